"""The CoPE page: settings, inputs, cached views and figures, notes, code snippets and prose."""

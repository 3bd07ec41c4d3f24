"""The RoPE page: its settings, cached views and figures, code snippets and prose."""

"""The CoPE page: settings, inputs (text box, inspected pair, gate table), notes, code snippets and prose."""

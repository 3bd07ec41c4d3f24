"""The ALiBi page: settings, cached views and figures, code snippets and prose."""

"""The NoPE page's settings and prose."""

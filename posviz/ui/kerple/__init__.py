"""The KERPLE page's settings and prose."""

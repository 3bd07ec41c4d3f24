"""The FIRE page's settings and prose."""

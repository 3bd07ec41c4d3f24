"""The stick-breaking page's settings and prose."""

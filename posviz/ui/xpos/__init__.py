"""The xPos page's settings and prose."""

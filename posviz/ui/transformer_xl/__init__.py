"""The Transformer-XL page's settings and prose."""

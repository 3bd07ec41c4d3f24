"""Streamlit layer: URL-bound controls, page chrome, exports, cached backend calls."""

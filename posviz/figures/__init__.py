"""Plotly figures built from tensors: no streamlit here."""

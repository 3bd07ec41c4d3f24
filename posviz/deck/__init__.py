"""A lecture deck outside the app: ``python -m posviz.deck export decks/rope.toml -o rope.html``.

``slides``: each slide's figure, taken from the app itself (its page run by ``streamlit.testing``
with the slide's settings, the spec read from the figure element it hands the browser).
``export``: the deck as one self-contained HTML file (figures drawn by the inlined Plotly bundle,
the clicker's keys, a presenter window, a print stylesheet of one page per slide).
"""

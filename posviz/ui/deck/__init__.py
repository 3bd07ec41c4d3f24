"""Lecture decks: a teacher's sequence of posviz links, presented with a clicker (issue 30).

``model``: the deck file (TOML or JSON), its validation and its forms in a link (plain Python).
``rooms``: windows that follow one presenter (a small process-level dict).
``present``: the presenter bar, the notes and audience windows (streamlit).
``editor``: building a deck in the sidebar (streamlit).
"""

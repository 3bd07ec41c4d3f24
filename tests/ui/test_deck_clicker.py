"""The deck's front-end code in the app (posviz/ui/deck/clicker.js) survives Streamlit's sanitiser."""

from __future__ import annotations

import re
from pathlib import Path

from posviz.ui.deck import present

CLICKER = Path(present.__file__).with_name("clicker.js")


def test_the_script_has_nothing_the_sanitiser_drops():
    """DOMPurify (st.html) removes a script whose text holds "<" before a letter or "/": the whole
    clicker would then be silently missing (it was, once, over a comment's ``<key>``)."""
    assert not re.search(r"<[/\w]", CLICKER.read_text())
    assert present._CLICKER_JS.startswith("<script>") and present._CLICKER_JS.endswith("</script>")
    assert present._CLICKER_JS.count("</script>") == 1

"""The scripts put in the page through st.html (posviz/ui/front/clicker.js, anchor.js) survive Streamlit's
sanitiser."""

from __future__ import annotations

import re
from pathlib import Path

from posviz.ui.deck import present

CLICKER = Path(present.__file__).parents[1] / "front" / "clicker.js"


def test_the_script_has_nothing_the_sanitiser_drops():
    """DOMPurify (st.html) removes a script whose text holds "<" before a letter or "/": the whole
    clicker would then be silently missing (it was, once, over a comment's ``<key>``)."""
    assert not re.search(r"<[/\w]", CLICKER.read_text())
    assert present._CLICKER_JS.startswith("<script>") and present._CLICKER_JS.endswith("</script>")
    assert present._CLICKER_JS.count("</script>") == 1


def test_the_anchor_script_has_nothing_the_sanitiser_drops():
    from posviz.ui import sections

    assert not re.search(r"<[/\w]", (CLICKER.parent / "anchor.js").read_text())
    assert sections._ANCHOR_JS.count("</script>") == 1

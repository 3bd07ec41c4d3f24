"""The front-end code posviz puts in the page, as ``.js`` and ``.css`` files beside this module.

Each file is static: no user text, no formatting; Python reads it once and hands it to Streamlit
(``st.html`` for styles, a Streamlit component for scripts). ``HOOKS.md`` lists every
Streamlit DOM hook these files rely on (``data-testid`` selectors, the root element's state
attributes, ``st-key-*`` classes); ``tests/test_front.py`` checks that the list and the files agree
and ``tests/browser/test_hooks_browser.py`` that each hook is still in a real page.
"""

from __future__ import annotations

import functools
from importlib.resources import files


@functools.cache
def asset(name: str) -> str:
    """The text of the front-end file ``name`` (``"plot.js"``)."""
    return (files(__package__) / name).read_text(encoding="utf-8")


def style(*names: str) -> str:
    """The CSS files ``names`` as one ``<style>`` element."""
    return "<style>\n" + "".join(asset(n) for n in names) + "</style>"

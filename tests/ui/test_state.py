"""Every session key posviz uses is listed in posviz.ui.state; widget values are only ever assigned.

The pages are run through AppTest (each with its on-demand sections open, and a deck presented and
edited) and every key left in the session must be one :func:`posviz.ui.state.declared` knows.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from posviz.schemes import PAGES
from posviz.ui import state
from posviz.ui.deck.links import every_url_key, on_demand_keys

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app.py"


def _keys(at: AppTest) -> set[str]:
    return set(at.session_state.keys())


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES], ids=lambda p: p.key or "home")
def test_every_key_a_page_leaves_in_the_session_is_declared(page):
    at = AppTest.from_file(str(APP), default_timeout=180)
    at.query_params.update({k: "true" for k in on_demand_keys(page.key)})
    at.switch_page(page.path).run()
    assert not at.exception, [e.value for e in at.exception]
    at.button(key="deck_add").click().run()  # the deck editor's draft too
    unknown = sorted(k for k in _keys(at) if not state.declared(k, every_url_key()))
    assert not unknown, f"session keys missing from posviz/ui/state.py: {unknown}"


def test_a_presented_deck_leaves_only_declared_keys():
    at = AppTest.from_file(str(APP), default_timeout=180)
    at.query_params.update({"deck": "relative", "slide": "12"})
    at.run()
    at.button(key="deck_next").click().run()
    assert not at.exception
    unknown = sorted(k for k in _keys(at) if not state.declared(k, every_url_key()))
    assert not unknown, unknown


def test_the_deck_package_names_only_declared_keys():
    """Every literal key the deck package writes into the session is declared in posviz.ui.state."""
    urls = every_url_key()
    for path in (ROOT / "posviz" / "ui" / "deck").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            targets = node.targets if isinstance(node, ast.Assign) else []
            for t in targets:
                if isinstance(t, ast.Subscript) and "session_state" in ast.unparse(t.value):
                    key = ast.unparse(t.slice)
                    literal = re.fullmatch(r"['\"][a-z].*['\"]", key)
                    assert not literal or state.declared(ast.literal_eval(key), urls), (path.name, key)


def test_declared_keys_are_described():
    assert all(text.strip() for text in state.KEYS.values())
    assert all(text.strip() for text in state.FAMILIES.values())
    assert not state.declared("some_undeclared_key")

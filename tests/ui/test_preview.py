"""Still pictures of a session's first charts (posviz.ui.preview), and what they assume of Streamlit."""

from __future__ import annotations

from pathlib import Path

import streamlit

from posviz.ui.preview import key_class
from tests.app.conftest import open_page

STATIC = Path(streamlit.__file__).parent / "static" / "static" / "js"


def _frontend() -> str:
    return "".join(p.read_text(errors="ignore") for p in STATIC.glob("index.*.js"))


def test_streamlit_still_names_keyed_elements_and_skeletons_as_assumed():
    js = _frontend()
    assert "`st-key-`+e.trim().replaceAll(/[^a-zA-Z0-9_-]/g,`-`)" in js  # key_class mirrors this rule
    assert "stSkeleton" in "".join(p.read_text(errors="ignore") for p in STATIC.glob("*.js"))
    assert key_class(" fig_t5 step/1 ") == "st-key-fig_t5-step-1"


def _pictures(at) -> list[str]:
    return [m.value for m in at.sidebar.markdown if "st-key-fig_" in m.value]


def test_first_run_sends_a_picture_per_chart_and_later_runs_none():
    at = open_page("pages/t5.py", all_open=False)
    charts = at.get("plotly_chart")
    pictures = _pictures(at)
    assert len(pictures) == len(charts) > 0
    assert all(p.startswith("<style>.st-key-fig_t5_") for p in pictures)
    at.run()
    assert not _pictures(at) and len(at.get("plotly_chart")) == len(charts)

"""The process-wide figure cache: the same view gives the same charts, another view its own."""

from __future__ import annotations

import streamlit as st

from posviz.ui.exports import _FIGURE_KEY

from .conftest import assert_healthy, charts, open_page


def specs(at) -> dict[str, dict]:
    return {c.key: c.spec for c in charts(at)}


def test_a_cached_view_equals_a_fresh_one(monkeypatch):
    from posviz.figures import t5 as fig

    calls = []
    real = fig.bucket_figure
    monkeypatch.setattr(fig, "bucket_figure", lambda *a, **k: calls.append(1) or real(*a, **k))
    st.cache_data.clear()
    first = specs(open_page("pages/t5.py", q_len="40"))
    assert len(calls) == 1
    second = specs(open_page("pages/t5.py", q_len="40"))  # served from the cache
    assert first == second and len(calls) == 1  # the second session built nothing
    st.cache_data.clear()
    rebuilt = specs(open_page("pages/t5.py", q_len="40"))  # built again from scratch
    assert rebuilt == first and len(calls) == 2


def test_another_view_gets_its_own_charts():
    a = specs(open_page("pages/shaw.py", clip="3"))
    b = specs(open_page("pages/shaw.py", clip="5"))
    assert a["fig_shaw_index"] != b["fig_shaw_index"]
    lecture = specs(open_page("pages/shaw.py", clip="3", lecture="1"))
    assert lecture["fig_shaw_index"]["layout"]["font"]["size"] == 20 != a["fig_shaw_index"]["layout"]["font"]["size"]


def test_a_page_without_a_key_never_reuses_the_last_pages_key():
    at = open_page("pages/t5.py")
    assert at.session_state[_FIGURE_KEY][0] == "t5"
    at.switch_page("pages/cope.py").run()  # CoPE's figures depend on an editable table: not cached
    assert_healthy(at)
    assert _FIGURE_KEY not in at.session_state
    assert all(c.key.startswith("fig_cope") for c in charts(at))

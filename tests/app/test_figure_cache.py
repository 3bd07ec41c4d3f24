"""The process-wide caches: keyed by the arguments a view or figure was built from, and nothing else."""

from __future__ import annotations

import warnings
from dataclasses import asdict, fields
from typing import Any

import plotly.graph_objects as go
import pytest
import streamlit as st

from posviz.figures.chart import Chart
from posviz.schemes import PAGES, SCHEMES
from posviz.ui.params import Param
from posviz.ui.settings import params_of

from .conftest import charts, count_calls, open_page, settings_classes, widget

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # no runtime: Streamlit warns that caches live in memory
    from posviz.ui.cache import chart


def other_value(p: Param, value: Any) -> Any:
    """A valid value of ``p`` other than ``value``."""
    if p.kind == "bool":
        return not value
    if p.kind == "choice":
        return next(o for o in p.options if o != value)
    if p.kind == "text":
        return value + " x"
    step = p.step or 1
    up = value + step
    return up if p.max is None or up <= p.max else value - step


def test_every_scheme_with_a_page_has_settings():
    found = {c.__module__.split(".")[2] for c in settings_classes()}
    assert {s.key for s in SCHEMES if s.page} <= found
    assert found - {s.key for s in SCHEMES} <= {p.key for p in PAGES} and "models" in found


built: list[tuple] = []  # what probe was called with


def probe(*, lecture: bool, **settings: Any) -> Chart:
    """A figure function: one call per view it is built for."""
    built.append((tuple(sorted(settings.items())), lecture))
    return Chart.of(go.Figure(layout={"title": {"text": repr(sorted(settings.items()))}}))


@pytest.mark.parametrize("cls", settings_classes(), ids=lambda c: c.__name__)
def test_views_differing_in_any_one_setting_never_share_a_figure(cls):
    st.cache_resource.clear()
    built.clear()
    base = asdict(cls())
    first = chart(probe, **base, lecture=False)
    assert chart(probe, **base, lecture=False) is first and len(built) == 1  # the same view: from the cache
    for name, p in params_of(cls).items():
        changed = {**base, name: other_value(p, base[name])}
        spec = chart(probe, **changed, lecture=False).spec
        assert spec["layout"]["title"]["text"] == repr(sorted(changed.items())), name  # built for this view
    assert len(built) == 1 + len(params_of(cls))
    chart(probe, **base, lecture=True)  # lecture mode is part of every figure's key too
    assert len(built) == 2 + len(params_of(cls))


def test_settings_fields_are_all_url_bound():
    """A settings class holds URL-bound fields only: anything else would not reopen from a link."""
    for cls in settings_classes():
        assert {f.name for f in fields(cls)} == set(params_of(cls)), cls.__name__


def specs(at) -> dict[str, dict]:
    return {c.key: c.spec for c in charts(at)}


def test_a_cached_view_equals_a_fresh_one(monkeypatch):
    from posviz.figures import t5 as fig

    calls = []
    real = fig.bucket_figure
    monkeypatch.setattr(fig, "bucket_figure", lambda *a, **k: calls.append(1) or real(*a, **k))
    st.cache_resource.clear()
    st.cache_data.clear()
    first = specs(open_page("pages/t5.py", q_len="40"))
    assert len(calls) == 1
    second = specs(open_page("pages/t5.py", q_len="40"))  # served from the cache
    assert first == second and len(calls) == 1  # the second session built nothing
    st.cache_resource.clear()
    rebuilt = specs(open_page("pages/t5.py", q_len="40"))  # built again from scratch
    assert rebuilt == first and len(calls) == 2


def test_moving_head_rebuilds_only_the_heads_figures(monkeypatch):
    from posviz.figures import t5, t5_bias

    counts = count_calls(monkeypatch, [(t5, "bucket_figure"), (t5_bias, "bias_figure"), (t5_bias, "bias_grid_figure")])
    st.cache_resource.clear()
    at = open_page("pages/t5.py", q_len="48", k_len="48")
    assert counts == {"bucket_figure": 1, "bias_figure": 1, "bias_grid_figure": 1}
    widget(at, "head").set_value(3).run()
    assert counts == {"bucket_figure": 1, "bias_figure": 2, "bias_grid_figure": 1}


def test_another_view_gets_its_own_charts():
    a = specs(open_page("pages/shaw.py", clip="3"))
    b = specs(open_page("pages/shaw.py", clip="5"))
    assert a["fig_shaw_index"] != b["fig_shaw_index"]
    lecture = specs(open_page("pages/shaw.py", clip="3", lecture="1"))
    assert lecture["fig_shaw_index"]["layout"]["font"]["size"] == 20 != a["fig_shaw_index"]["layout"]["font"]["size"]

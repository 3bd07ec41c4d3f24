"""The app with one more page, ``/floor``: a bare page drawing ``?n=`` trivial ``st.plotly_chart`` charts.

``python -m tools.bench --floor`` serves this instead of ``app.py`` (``streamlit run
tools/floor_app.py`` from the checkout under test), so each chart page and its floor come
from the same server process. It runs the checkout's own ``app.py`` unchanged, adding
the floor page to its navigation; relative page paths resolve against the checkout.
Streamlit serves ``/app/static/`` from the main script's folder: ``tools/static`` is a link to
the checkout's ``static/`` (Plotly's bundle, :mod:`posviz.ui.plot`).

``POSVIZ_FLOOR_WITHOUT=part+part`` (a ``--variant LABEL:env:POSVIZ_FLOOR_WITHOUT=...``) draws the
pages without some of what they show, to find where a page's time over its floor goes:
``latex`` (formulas), ``tables`` (``st.dataframe``, ``st.table``, ``st.data_editor``, uploads),
``extras`` (each figure's CSV button and code expander), ``prose`` (markdown and captions).
For measuring only: what such a page shows is incomplete.
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

import plotly.graph_objects as go
import streamlit as st

CHECKOUT = Path(os.getcwd())  # the checkout under test: its app.py, pages and posviz
MAX_CHARTS = 40


def floor_page() -> None:
    """``n`` heatmaps of four cells each: what a page with that many charts costs the platform."""
    try:
        n = max(0, min(MAX_CHARTS, int(st.query_params.get("n", "4"))))
    except ValueError:
        n = 4
    for i in range(n):
        st.plotly_chart(go.Figure(go.Heatmap(z=[[0, 1], [2, 3]])), key=f"floor_{i}", theme=None)


WITHOUT = frozenset(filter(None, os.environ.get("POSVIZ_FLOOR_WITHOUT", "").replace(",", "+").split("+")))
PARTS = frozenset({"latex", "tables", "extras", "prose"})


def _nothing(*_args, **_kwargs) -> None:
    return None


def drop(parts: frozenset[str]) -> None:
    """Replace the Streamlit calls (and posviz's figure extras) that draw ``parts`` with nothing, once a process."""
    if parts - PARTS:
        raise ValueError(f"POSVIZ_FLOOR_WITHOUT: unknown parts {sorted(parts - PARTS)}; known {sorted(PARTS)}")
    if not parts or getattr(st, "_floor_dropped", False):
        return
    st._floor_dropped = True
    if "latex" in parts:
        st.latex = _nothing
    if "tables" in parts:
        st.dataframe = st.table = st.file_uploader = _nothing
        st.data_editor = lambda data, *_args, **_kwargs: data
    if "prose" in parts:
        st.markdown = st.caption = _nothing
    if "extras" in parts:
        import posviz.ui.exports as exports

        show = exports.show_figure

        def bare(fig, *args, **kwargs):  # the chart alone
            kwargs.update(csv=None, code=None)
            return show(getattr(fig, "figure", fig), *args, **kwargs)

        exports.show_figure = bare


def _with_checkout(page, **kwargs):
    return _PAGE(str(CHECKOUT / page) if isinstance(page, str) else page, **kwargs)


def _with_floor(pages, **kwargs):
    return _NAVIGATION([*pages, _PAGE(floor_page, title="floor", url_path="floor")], **kwargs)


if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))
_PAGE, _NAVIGATION = getattr(st, "_floor_originals", (st.Page, st.navigation))
st._floor_originals = (_PAGE, _NAVIGATION)  # this script reruns: wrap Streamlit's own functions once
drop(WITHOUT)
st.Page, st.navigation = _with_checkout, _with_floor
try:
    runpy.run_path(str(CHECKOUT / "app.py"), run_name="__main__")
finally:
    st.Page, st.navigation = _PAGE, _NAVIGATION

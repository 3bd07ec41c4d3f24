"""Figures drawn by Plotly's cartesian bundle through a Streamlit component (``st.components.v2``).

``st.plotly_chart`` draws with the whole of Plotly.js, a 4.7 MB chunk that every first visit
loads and starts before its first chart. posviz draws only cartesian traces (heatmaps, lines,
bars, animation frames), which Plotly's own cartesian bundle (``static/plotly-cartesian.min.js``,
plotly.js 4.1.1, the version Streamlit's chunk carries; 1.5 MB, MIT) draws the same. The
component's JavaScript loads that file once per page from the app's own server
(``server.enableStaticServing``) and draws each figure with ``Plotly.react``; a box drawn with
Plotly's box select comes back as the component's ``selection`` state, shaped as
``st.plotly_chart``'s (``{"box": [{"x": [x0, x1], "y": [y0, y1]}], "points": []}``). The
toolbar's last button shows the figure full screen, as ``st.plotly_chart``'s own does.

The figure travels as one JSON document in bytes: ``{"figure": spec, "config": ..., "alt": ..., "texts": ...}``,
made once per figure object and language (figures are shared and never mutated, :mod:`posviz.ui.cache`).
``texts`` are the component's own words in the run's language (the placeholder, the full-screen
button, the error); outside English the config also carries Plotly's toolbar words (``locales``).
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable
from typing import Any

import streamlit as st

from posviz.figures.chart import Chart
from posviz.i18n import DEFAULT, N_, _, current
from posviz.ui.front import asset

BUNDLE = "app/static/plotly-cartesian.min.js"  # relative to the page's base URL


_HTML = '<div class="posviz-plot-wait">Drawing the figure…</div><div class="posviz-plot" role="figure"></div>'
# The component's own words (the script shows them in the run's language: ``document``'s "texts").
WAIT = N_("Drawing the figure…")
FULL_SCREEN = N_("Full screen (Esc leaves)")
FAILED = N_("The figure could not be drawn:")
# The words Plotly's cartesian bundle shows (its toolbar's button titles, a hint), as it spells them.
PLOTLY_WORDS = (
    N_("Autoscale"),
    N_("Box Select"),
    N_("Compare data on hover"),
    N_("Double-click to zoom back out"),
    N_("Double-click on legend to isolate one trace"),
    N_("Download plot"),
    N_("Download plot as a PNG"),
    N_("Download plot as JSON"),
    N_("Image download succeeded"),
    N_("Preparing image - this may take a few seconds"),
    N_("Sorry, there was a problem downloading your image!"),
    N_("Share chart..."),
    N_("Share chart"),
    N_("Share"),
    N_("Cancel"),
    N_("Lasso Select"),
    N_("Pan"),
    N_("Reset axes"),
    N_("Reset view"),
    N_("Reset views"),
    N_("Reset"),
    N_("Show closest data on hover"),
    N_("Toggle Spike Lines"),
    N_("Toggle show closest data on hover"),
    N_("Zoom in"),
    N_("Zoom out"),
    N_("Zoom"),
)

# Static code, no user text (tests/test_security.py), in posviz/ui/front/plot.js and plot.css. One instance
# per figure element; the bundle is loaded once per page and shared (window.__posvizPlotly), whatever the
# component's module instances. The placeholder holds the figure's height until it is drawn.
_component = st.components.v2.component(
    "posviz_plot", html=_HTML, css=asset("plot.css"), js=asset("plot.js"), isolate_styles=False
)

# id(figure) -> {(config, alt, select): its JSON document}; figures are shared, cached and never
# mutated, and an entry goes with its figure (weakref.finalize).
_documents: dict[int, dict[tuple, bytes]] = {}


def localised(config: dict) -> dict:
    """``config`` with Plotly's toolbar words in the run's language (``config`` itself in English)."""
    lang = current()
    if lang == DEFAULT:
        return config
    words = {w: _(w) for w in PLOTLY_WORDS if _(w) != w}
    return {**config, "locale": lang, "locales": {lang: {"dictionary": words}}}


def document(fig: Chart, config: dict, alt: str, select: bool) -> bytes:
    """The bytes the component receives: ``{"figure", "config", "alt", "select", "texts"}`` as JSON (UTF-8),
    in the run's language."""
    config = localised(config)
    key = (json.dumps(config, sort_keys=True), alt, select, current())
    per_figure = _documents.get(id(fig))
    if per_figure is None:
        per_figure = _documents[id(fig)] = {}
        weakref.finalize(fig, _documents.pop, id(fig), None)
    if key not in per_figure:
        # numpy arrays as base64 typed arrays, as st.plotly_chart sends; a chart's JSON is made once
        spec = fig.json
        texts = {"wait": _(WAIT), "fullScreen": _(FULL_SCREEN), "failed": _(FAILED)}
        head = json.dumps({"config": config, "alt": alt, "select": select, "texts": texts})
        per_figure[key] = (head[:-1] + ', "figure": ' + spec + "}").encode()
    return per_figure[key]


def plot(fig: Chart, *, key: str, config: dict, alt: str, on_select: Callable[[], None] | None = None) -> Any:
    """Draw ``fig`` (a shared figure) under ``key``; ``on_select`` runs when a box is drawn on it."""
    callbacks = {} if on_select is None else {"on_selection_change": on_select}
    return _component(
        key=key,
        data=document(fig, config, alt, on_select is not None),
        default={"selection": {"box": [], "points": []}} if on_select else None,
        **callbacks,
    )

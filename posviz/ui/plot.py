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

The figure travels as one JSON document in bytes: ``{"figure": spec, "config": ..., "alt": ...}``,
made once per figure object (figures are shared and never mutated, :mod:`posviz.ui.cache`).
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

from posviz.figures.chart import Chart

BUNDLE = "app/static/plotly-cartesian.min.js"  # relative to the page's base URL

# Static code, no user text (tests/test_security.py). One instance per figure element; the bundle
# is loaded once per page and shared (window.__posvizPlotly), whatever the component's module
# instances. The placeholder holds the figure's height until it is drawn.
_JS = """
const BUNDLE = "app/static/plotly-cartesian.min.js";  // posviz.ui.plot.BUNDLE

function plotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__posvizPlotly) {
    window.__posvizPlotly = new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = new URL(BUNDLE, document.baseURI).href;
      s.onload = () => resolve(window.Plotly);
      s.onerror = () => { window.__posvizPlotly = null; reject(new Error("could not load " + BUNDLE)); };
      document.head.appendChild(s);
    });
  }
  return window.__posvizPlotly;
}

const decoder = new TextDecoder();

// Full screen, as st.plotly_chart's own button: the figure fills the screen (Esc leaves).
const FULL_SCREEN = {
  name: "fullscreen",
  title: "Full screen (Esc leaves)",
  icon: {
    width: 24, height: 24,
    path: "M3 3h7v2H5v5H3V3zm11 0h7v7h-2V5h-5V3zM3 14h2v5h5v2H3v-7zm16 0h2v7h-7v-2h5v-5z",
  },
  click: (gd) => (document.fullscreenElement ? document.exitFullscreen() : gd.requestFullscreen()),
};

function followFullScreen(Plotly, box) {
  if (box.__posvizFull) return;
  box.__posvizFull = true;
  box.addEventListener("fullscreenchange", () => {  // fired at the element entering or leaving
    if (!box._fullLayout) return;
    const full = document.fullscreenElement === box;
    if (full === Boolean(box.__posvizHeight)) return;
    if (full) box.__posvizHeight = box._fullLayout.height;
    const height = full ? box.clientHeight : box.__posvizHeight;
    if (!full) box.__posvizHeight = 0;
    Plotly.relayout(box, { height, width: full ? box.clientWidth : null });  // null: the column's width again
  });
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const box = parentElement.querySelector(".posviz-plot");
  const wait = parentElement.querySelector(".posviz-plot-wait");
  if (!box || !data) return;
  const doc = JSON.parse(typeof data === "string" ? data : decoder.decode(data));
  const fig = doc.figure;
  const height = (fig.layout && fig.layout.height) || 450;
  box.setAttribute("aria-label", doc.alt || "");
  if (!box._fullLayout) wait.style.height = height + "px";
  let gone = false;
  plotly().then((Plotly) => {
    if (gone) return;
    const layout = Object.assign({}, fig.layout || {}, { autosize: true });
    delete layout.width;
    if (box.__posvizHeight) {  // redrawn while full screen
      Object.assign(layout, { height: box.clientHeight, width: box.clientWidth });
    }
    const config = Object.assign({ responsive: true }, doc.config || {});
    config.modeBarButtonsToAdd = [FULL_SCREEN];
    if (doc.select) {  // as st.plotly_chart(selection_mode="box"): the box tool, and picked
      config.modeBarButtonsToAdd.unshift("select2d");
      if (layout.dragmode === undefined) layout.dragmode = "select";
    }
    followFullScreen(Plotly, box);
    // frames too: the skew's animation plays them in the browser
    return Plotly.react(box, { data: fig.data || [], layout, config, frames: fig.frames || [] }).then(() => {
      wait.style.display = "none";
      if (doc.select && !box.__posvizSelect) {
        box.__posvizSelect = true;
        box.on("plotly_selected", (e) => {
          const range = e && e.range;
          const boxes = range && range.x && range.y ? [{ x: range.x, y: range.y }] : [];
          setStateValue("selection", { box: boxes, points: [] });
        });
      }
    });
  }).catch((err) => { wait.textContent = "The figure could not be drawn: " + err.message; });
  return () => { gone = true; };
}
"""

_HTML = '<div class="posviz-plot-wait">Drawing the figure…</div><div class="posviz-plot" role="figure"></div>'
_CSS = """
.posviz-plot { width: 100%; }
.posviz-plot:fullscreen { background: #fff; }
.posviz-plot-wait {
  display: flex; align-items: center; justify-content: center; height: 420px;
  background: #f3f4f6; border: 1px dashed #c3c7cf; border-radius: 6px; color: #4b5563;
}
"""

_component = st.components.v2.component("posviz_plot", html=_HTML, css=_CSS, js=_JS, isolate_styles=False)

# id(figure) -> {(config, alt, select): its JSON document}; figures are shared, cached and never
# mutated, and an entry goes with its figure (weakref.finalize).
_documents: dict[int, dict[tuple, bytes]] = {}


def document(fig: go.Figure | Chart, config: dict, alt: str, select: bool) -> bytes:
    """The bytes the component receives: ``{"figure", "config", "alt", "select"}`` as JSON (UTF-8)."""
    key = (json.dumps(config, sort_keys=True), alt, select)
    per_figure = _documents.get(id(fig))
    if per_figure is None:
        per_figure = _documents[id(fig)] = {}
        weakref.finalize(fig, _documents.pop, id(fig), None)
    if key not in per_figure:
        # numpy arrays as base64 typed arrays, as st.plotly_chart sends; a chart's JSON is made once
        spec = fig.json if isinstance(fig, Chart) else pio.to_json(fig, validate=False)
        head = json.dumps({"config": config, "alt": alt, "select": select})
        per_figure[key] = (head[:-1] + ', "figure": ' + spec + "}").encode()
    return per_figure[key]


def plot(
    fig: go.Figure | Chart, *, key: str, config: dict, alt: str, on_select: Callable[[], None] | None = None
) -> Any:
    """Draw ``fig`` (a shared figure) under ``key``; ``on_select`` runs when a box is drawn on it."""
    callbacks = {} if on_select is None else {"on_selection_change": on_select}
    return _component(
        key=key,
        data=document(fig, config, alt, on_select is not None),
        default={"selection": {"box": [], "points": []}} if on_select else None,
        **callbacks,
    )

"""The figure component's data: the chart's figure as Plotly's JSON, made once per chart."""

from __future__ import annotations

import gc
import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from posviz.figures.chart import Chart
from posviz.ui import plot


def test_the_document_is_the_figure_as_plotly_sends_it_made_once():
    plain = go.Figure(go.Heatmap(z=np.arange(6.0).reshape(2, 3)))
    fig = Chart.of(plain)
    doc = plot.document(fig, {"displaylogo": False}, "a 2 x 3 grid", False)
    parsed = json.loads(doc)
    assert parsed["figure"] == json.loads(pio.to_json(plain, validate=False))  # base64 arrays, as st.plotly_chart
    assert parsed["config"] == {"displaylogo": False} and parsed["alt"] == "a 2 x 3 grid" and not parsed["select"]
    assert plot.document(fig, {"displaylogo": False}, "a 2 x 3 grid", False) is doc  # made once
    assert json.loads(plot.document(fig, {}, "x", True))["select"] is True  # other options, another document


def test_a_figure_takes_its_documents_with_it():
    fig = Chart.of(go.Figure(go.Scatter(y=[1, 2])))
    plot.document(fig, {}, "a line", False)
    key = id(fig)
    assert key in plot._documents
    del fig
    gc.collect()
    assert key not in plot._documents

"""Rebuilding a figure without validation keeps what Plotly's private parts must keep (posviz/figures/rebuild.py)."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from posviz.figures.rebuild import SpecFigure, assemble, parts, subplot_grid, unvalidated


def test_a_rebuilt_subplot_figure_keeps_its_grid_traces_and_frames():
    fig = make_subplots(rows=2, cols=1, subplot_titles=["top", "bottom"])
    fig.add_trace(go.Scatter(x=[0, 1], y=[1, 2]), row=1, col=1)
    fig.frames = [go.Frame(name="one", data=[go.Scatter(y=[3, 4])])]
    data, layout, rest = parts(fig)
    assert all(isinstance(t, dict) and t["type"] == "scatter" for t in data)  # the figure's own trace dicts
    layout["title"] = {"text": "rebuilt"}
    out = assemble(data, layout, rest)
    out.add_trace(go.Bar(x=[0], y=[1]), row=2, col=1)  # row/col still address the grid
    assert out.data[1].yaxis == "y2" and out.layout.title.text == "rebuilt"
    assert [f.name for f in out.frames] == ["one"]
    assert [a.text for a in out.layout.annotations] == ["top", "bottom"]


def test_unvalidated_keeps_what_a_validator_would_refuse():
    bogus = {"data": [{"type": "scatter", "opacity": 7}]}
    assert unvalidated(bogus).data[0].opacity == 7  # not validated: the spec is trusted as given
    with pytest.raises(ValueError):
        go.Figure(bogus)  # Plotly's validators would refuse it


def test_a_spec_figure_builds_its_object_view_only_when_read():
    layout, grid = subplot_grid(1, 2, titles=["left", "right"], horizontal_spacing=0.1)
    spec = dict(data=[{"type": "heatmap", "z": [[1, 2]], "xaxis": "x2", "yaxis": "y2"}], layout=layout, **grid)
    fig = assemble(*parts(spec))
    assert isinstance(fig, SpecFigure) and isinstance(fig, go.Figure)
    assert not fig.built and fig.spec["data"][0]["z"] == [[1, 2]]  # kept as plain data
    assert list(map(list, fig.data[0].z)) == [[1, 2]] and fig.built  # reading builds it, from the spec
    fig.add_trace(go.Scatter(x=[0], y=[1]), row=1, col=1)  # the grid survived: row/col address it
    assert fig.data[1].xaxis == "x"
    assert [a.text for a in fig.layout.annotations] == ["left", "right"]
    with pytest.raises(AttributeError):
        fig.no_such_property  # noqa: B018

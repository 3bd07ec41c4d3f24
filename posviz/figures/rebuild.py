"""Figures rebuilt from plain data without validating again: the one module that uses Plotly's private parts.

Plotly validates every property as it is set, through an object model that costs
about 10 ms for a simple figure and 30 ms for a grid of panels, most of a figure's
build time. What this module rebuilds came from validated objects (the traces, the
layout as ``to_plotly_json`` gave it) plus the shared look of
:func:`posviz.figures.layout.finish`, so validating it again would only repeat work.

It relies on two private parts of Plotly's ``BaseFigure``: the ``_validate=False``
argument, and the subplot grid (``_grid_str``, ``_grid_ref``) that a figure-like
dict may carry, so that a rebuilt ``make_subplots`` figure still takes
``row=``/``col=``. ``tests/figures/test_rebuild.py`` fails if either changes, and
``tests/app/test_specs.py`` validates every figure the pages send.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots


def unvalidated(spec: dict[str, Any]) -> go.Figure:
    """``go.Figure(spec)`` without validating ``spec`` (it must come from validated figures)."""
    return go.Figure(spec, _validate=False)


def rebuild(fig: go.Figure, layout: dict[str, Any]) -> go.Figure:
    """``fig``'s traces, frames and subplot grid with ``layout`` (plain data) as its layout."""
    grid = dict(_grid_str=fig._grid_str, _grid_ref=fig._grid_ref)
    return unvalidated(dict(data=fig.data, layout=layout, frames=fig.frames, **grid))


def on_panel(panel: int) -> dict[str, str]:
    """A trace's axes in panel ``panel`` of a grid (row by row from 1): ``xaxis="x2", yaxis="y2"``."""
    suffix = "" if panel == 1 else str(panel)
    return dict(xaxis=f"x{suffix}", yaxis=f"y{suffix}")


@functools.lru_cache(maxsize=64)
def _grid(rows: int, cols: int, titles: int, horizontal: float, vertical: float) -> tuple[str, Any, Any]:
    placeholders = [f"title {i}" for i in range(titles)]  # the real titles are filled in per figure
    fig = make_subplots(
        rows=rows, cols=cols, subplot_titles=placeholders, horizontal_spacing=horizontal, vertical_spacing=vertical
    )
    return json.dumps(fig.layout.to_plotly_json()), fig._grid_str, fig._grid_ref


def subplot_grid(
    rows: int, cols: int, *, titles: list[str], horizontal_spacing: float, vertical_spacing: float = 0.0
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``make_subplots``' layout as plain data (a fresh copy) and its grid, for :func:`unvalidated`.

    ``unvalidated(dict(data=traces, layout=layout, **grid))`` is the figure: panel ``p``
    (row by row from 1) has axes ``xaxis{p}``/``yaxis{p}`` (no number for the first),
    its traces ``xaxis="x{p}", yaxis="y{p}"``. A grid is laid out once per shape
    (``make_subplots`` costs 7 to 16 ms); ``titles`` are written into its annotations.
    """
    layout, grid_str, grid_ref = _grid(rows, cols, len(titles), horizontal_spacing, vertical_spacing)
    layout = json.loads(layout)
    for annotation, text in zip(layout.get("annotations", []), titles, strict=True):
        annotation["text"] = text
    return layout, dict(_grid_str=grid_str, _grid_ref=grid_ref)

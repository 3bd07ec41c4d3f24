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

from typing import Any

import plotly.graph_objects as go


def unvalidated(spec: dict[str, Any]) -> go.Figure:
    """``go.Figure(spec)`` without validating ``spec`` (it must come from validated figures)."""
    return go.Figure(spec, _validate=False)


def rebuild(fig: go.Figure, layout: dict[str, Any]) -> go.Figure:
    """``fig``'s traces, frames and subplot grid with ``layout`` (plain data) as its layout."""
    grid = dict(_grid_str=fig._grid_str, _grid_ref=fig._grid_ref)
    return unvalidated(dict(data=fig.data, layout=layout, frames=fig.frames, **grid))

"""Figures built from plain data without validation: the one module that uses Plotly's private parts.

Plotly validates every property as it is set, through an object model that costs
about 10 ms for a simple heatmap and 30 ms for a grid of panels, most of a figure's
build time. The shared builders (``posviz.figures.common``, ``layout.finish``) write
their specs as plain data instead (trace dicts with their ``type``, layout dicts,
named colour scales spelled out as Plotly's validators spell them) and turn them
into a figure here, once, without validating. Two tests keep that honest:
``tests/app/test_specs.py`` validates every figure the pages send, and
``tests/figures/test_plain_specs.py`` the builders' specs in every branch.

The figure is a :class:`SpecFigure`: it keeps the spec and builds Plotly's object
view (``.data``, ``.layout``, 1 to 3 ms a figure, mostly copying the template) only
when something reads it. Serving a figure reads nothing but its spec
(``posviz.ui.frozen``), so the app never builds it.

It relies on private parts of Plotly's ``BaseFigure``: the ``_validate=False``
argument, the subplot grid (``_grid_str``, ``_grid_ref``) that a figure-like dict
may carry, so that a ``make_subplots`` figure rebuilt from data still takes
``row=``/``col=``, the trace dicts a figure keeps (``_data``), and the ``_data_objs``
attribute that tells a built object view.
``tests/figures/test_rebuild.py`` fails if any of them changes.
"""

from __future__ import annotations

import functools
import json
import threading
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots


def unvalidated(spec: dict[str, Any]) -> go.Figure:
    """``go.Figure(spec)`` without validating ``spec`` (plain data as Plotly's validators would leave it)."""
    return go.Figure(spec, _validate=False)


_build_lock = threading.Lock()  # sessions share cached figures: one of them builds the object view


class SpecFigure(go.Figure):
    """A figure kept as its spec (plain data) until something reads its object view.

    ``spec`` is what :func:`unvalidated` takes. It is the figure's until the object view
    is built (:attr:`built`); from then on the view is the figure and the spec is stale.
    """

    def __init__(self, spec: dict[str, Any]) -> None:
        # No go.Figure.__init__ yet: the object view is built on first use (__getattr__).
        object.__setattr__(self, "_spec", spec)

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: before the object view exists, its attributes do not.
        if name.startswith("__") or "_data_objs" in self.__dict__:
            raise AttributeError(name)
        with _build_lock:
            if "_data_objs" not in self.__dict__:
                go.Figure.__init__(self, self._spec, _validate=False)
        return getattr(self, name)

    @property
    def spec(self) -> dict[str, Any]:
        """The plain data the figure was made from (stale once :attr:`built`)."""
        return self._spec

    @property
    def built(self) -> bool:
        """Whether the object view exists (then it, not the spec, is the figure)."""
        return "_data_objs" in self.__dict__


def parts(fig: go.Figure | dict[str, Any]) -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
    """A figure's traces, its layout as plain data (the caller's to edit), and the rest (frames, subplot grid).

    ``fig`` is a ``go.Figure`` or a spec built as plain data: ``dict(data=[trace dicts],
    layout={...})``, with the grid of :func:`subplot_grid` when it has panels. A spec's
    traces are its dicts; a figure's are the dicts its trace objects keep (``_data``, shared).
    """
    if isinstance(fig, dict):
        rest = {k: v for k, v in fig.items() if k not in ("data", "layout")}
        return list(fig.get("data", [])), fig.get("layout", {}), rest
    rest = dict(_grid_str=fig._grid_str, _grid_ref=fig._grid_ref)
    if fig.frames:
        rest["frames"] = [frame.to_plotly_json() for frame in fig.frames]
    return list(fig._data), fig.layout.to_plotly_json(), rest


def assemble(data: list[Any], layout: dict[str, Any], rest: dict[str, Any]) -> SpecFigure:
    """The figure of :func:`parts`, not validated (its object view built only when read)."""
    return SpecFigure(dict(data=data, layout=layout, **rest))


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

"""Colour scales that fit the data, and masked cells with their own colour and legend entry."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posviz.figures.data import as_array, compact
from posviz.figures.layout import axis_name, look, number, on_panel
from posviz.i18n import _

# Sequential and colourblind-safe for indices; diverging, centred at 0, for
# signed values such as biases (ColorBrewer RdBu reads under all common CVDs).
# One-signed data on the diverging palette get its matching half: blues for
# values <= 0, reds for values >= 0, 0 white as in RdBu.
SEQUENTIAL = "Viridis"
DIVERGING = "RdBu_r"
NEGATIVE = "Blues_r"  # low (most negative) dark, 0 white
POSITIVE = "Reds"  # 0 white, high dark
MASK_COLOR = "#b0b0b0"
MASK_EDGE = "#e6007e"  # outline of masked cells too few to see as grey (a diagonal of 128 x 128)
MARK_FRACTION = 0.05  # masked cells get an outlined marker when they are under 5 % of the cells
MARK_MAX = 4000  # and at most this many
LOG_DECADES = 4  # a log colour scale spans 4 decades below the largest magnitude


def log_colors(z: np.ndarray, decades: int, *, top: float | None = None) -> tuple[np.ndarray, dict]:
    """Colour values ``log10(|z|)`` clipped to ``decades`` below the largest, and their colour-bar ticks.

    The data must be of one sign (weights >= 0, ALiBi biases <= 0); the ticks carry
    the true values, so the bar reads in the data's own units. ``top``: the largest
    magnitude, when several panels share the scale.
    """
    finite = z[np.isfinite(z)]
    sign = -1.0 if finite.size and finite.max() <= 0 and finite.min() < 0 else 1.0
    top = top if top is not None else (float(np.abs(finite).max()) if finite.size else 1.0)
    top = top or 1.0
    lo = 10.0 ** (math.ceil(math.log10(top) - 1e-9) - decades)  # a whole decade: the clip reads plainly
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.log10(np.clip(np.abs(z), lo, top)).astype(np.float32)
    c[~np.isfinite(z)] = np.nan
    floor = math.log10(lo)
    exps = [e for e in range(math.ceil(floor), math.floor(math.log10(top) + 1e-9) + 1) if e > floor + 0.2]
    ticks = [floor] + [float(e) for e in exps]  # the first tick is the clip: smaller magnitudes share its colour
    text = [("≥ " if sign < 0 else "≤ ") + number(sign * lo, 2)] + [number(sign * 10.0**e, 3) for e in exps]
    scale = SEQUENTIAL if sign > 0 else "Blues"
    return c, dict(
        colorscale=scale, zmin=math.log10(lo), zmax=math.log10(top), colorbar_ticks=dict(tickvals=ticks, ticktext=text)
    )


def colors_for(z, palette: str, zmin, zmax) -> dict:
    """Colour scale and range: the diverging palette on signed data, its one-sided half on one-signed data."""
    if palette != "diverging":
        return dict(colorscale=SEQUENTIAL, zmin=zmin, zmax=zmax)
    z = as_array(z)
    finite = z[np.isfinite(z)]
    if finite.size and zmin is None and zmax is None and finite.max() <= 0 and finite.min() < 0:
        return dict(colorscale=NEGATIVE, zmin=float(finite.min()), zmax=0.0)
    if finite.size and zmin is None and zmax is None and finite.min() >= 0 and finite.max() > 0:
        return dict(colorscale=POSITIVE, zmin=0.0, zmax=float(finite.max()))
    bound = float(np.abs(finite).max()) if finite.size else 1.0
    bound = bound or 1.0
    return dict(
        colorscale=DIVERGING, zmid=0.0, zmin=-bound if zmin is None else zmin, zmax=bound if zmax is None else zmax
    )


@functools.cache
def _stops(name: str) -> tuple[tuple[float, str], ...]:
    return go.layout.Coloraxis(colorscale=name).colorscale  # Plotly's own reading of the name, "_r" and all


def scale_stops(name: str) -> list[list[float | str]]:
    """A named colour scale (``"RdBu_r"``) as the ``[[0.0, "rgb(...)"], ...]`` stops Plotly's validators make.

    Plotly.js knows fewer names than Plotly (and draws some of them differently), so
    a spec built as plain data spells the scale out, as a validated figure would.
    """
    return [list(stop) for stop in _stops(name)]


def plain(props: dict[str, Any]) -> dict[str, Any]:
    """Trace or colour-axis properties as a validated figure sends them: no ``None``, named scales spelled out."""
    out = {k: v for k, v in props.items() if v is not None}
    if isinstance(out.get("colorscale"), str):
        out["colorscale"] = scale_stops(out["colorscale"])
    return out


def mask_traces(mask, q_pos, k_pos, *, label: str, lecture: bool = False) -> list[dict[str, Any]]:
    """The legend entry of masked cells (grey), and an outlined marker on each when they are few (plain data).

    Masked cells are gaps that show the grey plot background. A thin set of them
    (under 5 % of the cells, e.g. the diagonal of a 128 x 128 view) would be a
    one-pixel hairline, so each also gets a marker that stays visible at any size.
    """
    lk = look(lecture)
    mask = as_array(mask).astype(bool)
    count = int(mask.sum())
    entry = dict(symbol="square", size=lk.font, color=MASK_COLOR)
    edge = dict(width=2, color=MASK_EDGE)
    if 0 < count <= min(MARK_FRACTION * mask.size, MARK_MAX):
        rows, cols = np.nonzero(mask)
        q, k = as_array(q_pos), as_array(k_pos)
        return [
            dict(
                type="scatter",
                x=compact(k[cols]),
                y=compact(q[rows]),
                mode="markers",
                marker=dict(symbol="square", size=max(7, lk.font // 2), color=MASK_COLOR, line=edge),
                name=label,
                showlegend=True,
                hovertemplate=_("query i = %{y}<br>key j = %{x}") + f"<br>{label}<extra></extra>",
            )
        ]
    only = dict(type="scatter", x=[None], y=[None], mode="markers", marker=entry, name=label, showlegend=True)
    return [dict(only, hoverinfo="skip")]


def legend_only(trace: dict[str, Any]) -> bool:
    """A trace that only makes a legend entry (no points): ``x == [None]``."""
    x = trace.get("x")
    return isinstance(x, list | tuple) and list(x) == [None]


def cell_ranges(q_pos, k_pos) -> tuple[list[float], list[float]]:
    """Axis ranges that end at the outer cell edges (queries top to bottom): markers must not pad them."""
    ranges = []
    for pos in (as_array(k_pos).astype(np.float64), as_array(q_pos).astype(np.float64)):
        half = (pos[1] - pos[0]) / 2 if len(pos) > 1 else 0.5
        ranges.append([float(pos.min() - half), float(pos.max() + half)])
    return ranges[0], ranges[1][::-1]


def add_masks(
    data: list[dict[str, Any]], layout: dict[str, Any], panels: list, q_pos, k_pos, *, label: str, lecture: bool
) -> None:
    """Add mask markers to ``data`` and ``layout`` (plain data) for each ``(panel, mask)``.

    Panels are numbered row by row from 1, as :func:`posviz.figures.layout.on_panel`
    numbers them. One legend entry in all; the plot background turns grey.
    """
    legend = False
    x_range, y_range = cell_ranges(q_pos, k_pos)
    for panel, mask in panels:
        if not mask.any():
            continue
        for trace in mask_traces(mask, q_pos, k_pos, label=label, lecture=lecture):
            if legend_only(trace) and legend:
                continue
            trace.update(showlegend=not legend, legendgroup="mask", **on_panel(panel))
            legend = True
            data.append(trace)
            if not legend_only(trace):
                layout.setdefault(axis_name("x", panel), {})["range"] = x_range
                layout.setdefault(axis_name("y", panel), {}).update(range=y_range, autorange=False)
    if legend:
        layout["plot_bgcolor"] = MASK_COLOR

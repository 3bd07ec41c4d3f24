"""Axes of a still picture: their ranges and ticks as Plotly computes them, grid lines, anchoring."""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from posviz.figures.preview.model import PLOTLY_JS, Canvas, array, nice_ticks, tick_label


@dataclass
class Axis:
    name: str  # "xaxis", "yaxis2", ...
    domain: tuple[float, float]
    lo: float
    hi: float
    reversed: bool
    log: bool
    props: dict

    def fraction(self, value: float) -> float:
        """Where ``value`` sits along the axis, 0 at its start (left, bottom) and 1 at its end."""
        v = math.log10(value) if self.log and value > 0 else value
        lo, hi = (math.log10(self.lo), math.log10(self.hi)) if self.log else (self.lo, self.hi)
        f = (v - lo) / (hi - lo) if hi != lo else 0.5
        return 1 - f if self.reversed else f

    def plot_fraction(self, value: float) -> float:
        """``value``'s place along the whole plot area (0..1): through the axis's domain."""
        return self.domain[0] + self.fraction(value) * (self.domain[1] - self.domain[0])

    def ticks(self, length_px: float) -> list[tuple[float, str]]:
        p = self.props
        if p.get("showticklabels") is False:
            return []
        vals, text = p.get("tickvals"), p.get("ticktext")
        if vals is not None:
            vals = [float(v) for v in array(vals)]
            labels = [str(t) for t in text] if text is not None else [tick_label(v, 1) for v in vals]
            return [(v, t) for v, t in zip(vals, labels, strict=False) if self._inside(v)]
        if self.log:
            lo, hi = sorted((self.lo, self.hi))
            exps = range(math.ceil(math.log10(lo) - 1e-9), math.floor(math.log10(hi) + 1e-9) + 1)
            return [(10.0**e, _power_label(e)) for e in exps]
        if p.get("dtick") and isinstance(p.get("dtick"), int | float):
            step = float(p["dtick"])
            lo, hi = sorted((self.lo, self.hi))
            first = math.ceil(lo / step - 1e-9)
            vals = [k * step for k in range(first, math.floor(hi / step + 1e-9) + 1)]
        else:
            per = 40 if self.name.startswith("y") else 80
            count = p.get("nticks") or min(max(length_px / per, 4), 9) + 1
            vals, step = nice_ticks(self.lo, self.hi, count)
        step = abs(vals[1] - vals[0]) if len(vals) > 1 else 1.0
        return [(v, tick_label(v, step)) for v in vals]

    def _inside(self, v: float) -> bool:
        lo, hi = sorted((self.lo, self.hi))
        return lo - 1e-9 * abs(hi - lo) <= v <= hi + 1e-9 * abs(hi - lo)


def _power_label(e: int) -> str:
    if -3 <= e <= 3:
        return f"{10.0**e:g}"
    return "10" + str(e).replace("-", "⁻").translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


def cell_edges(values: np.ndarray | None, n: int) -> np.ndarray:
    """Cell edges along one side of a heatmap (n + 1, increasing or decreasing), as Plotly draws them:
    halfway between centres, the outer cells as wide as their neighbours' spacing."""
    centres = np.arange(n, dtype=float) if values is None else values.astype(float)[:n]
    if n == 1:
        return np.array([centres[0] - 0.5, centres[0] + 0.5])
    steps = np.diff(centres)
    if not (np.all(steps > 0) or np.all(steps < 0)):
        raise Unsupported("heatmap coordinates not monotonic")
    mids = (centres[:-1] + centres[1:]) / 2
    return np.concatenate([[centres[0] - steps[0] / 2], mids, [centres[-1] + steps[-1] / 2]])


def sample_columns(edges: np.ndarray, limit: int) -> np.ndarray:
    """Which cell each of a row of equal image pixels shows: one pixel per cell when the cells are equal."""
    widths = np.abs(np.diff(edges))
    n = widths.size
    if np.allclose(widths, widths[0], rtol=1e-6):
        idx = np.arange(n)
        return idx if n <= limit else idx[:: math.ceil(n / limit)]
    count = int(min(limit, math.ceil(widths.sum() / widths.min())))
    span = edges[-1] - edges[0]
    centres = edges[0] + (np.arange(count) + 0.5) / count * span
    inc = edges if edges[-1] > edges[0] else edges[::-1]
    idx = np.clip(np.searchsorted(inc, centres if span > 0 else centres[::-1]) - 1, 0, n - 1)
    return idx if span > 0 else (n - 1 - idx)[::-1]


class Unsupported(Exception):
    """The figure has something the preview does not draw."""


def axis_ids(trace: dict) -> tuple[str, str]:
    x, y = trace.get("xaxis", "x"), trace.get("yaxis", "y")
    return "xaxis" + x[1:], "yaxis" + y[1:]


def _data_extent(trace: dict, letter: str) -> tuple[float, float, float] | None:
    """(low, high, padding fraction) of one trace's data along ``letter``."""
    kind = trace.get("type", "scatter")
    if kind == "heatmap":
        z = array(trace.get("z"))
        if z is None or z.ndim != 2:
            raise Unsupported("heatmap without a 2-D z")
        edges = cell_edges(array(trace.get(letter)), z.shape[1] if letter == "x" else z.shape[0])
        return float(edges.min()), float(edges.max()), 0.0
    values = array(trace.get(letter))
    if values is None or values.dtype == object:
        raise Unsupported("category axis")
    values = values.astype(float)
    values = values[np.isfinite(values)]
    if not values.size:
        return None
    if kind == "bar":
        if letter == "y":
            return min(0.0, float(values.min())), max(0.0, float(values.max())), 0.05
        d = float(np.min(np.diff(np.unique(values)))) if values.size > 1 else 1.0
        return float(values.min() - d / 2), float(values.max() + d / 2), 0.0
    mode = trace.get("mode", "lines+markers")
    pad = 0.05 if (letter == "y" or "markers" in mode or "text" in mode) else 0.0
    return float(values.min()), float(values.max()), pad


def read_axes(spec: dict) -> dict[str, Axis]:
    layout = spec.get("layout", {})
    data = spec.get("data", [])
    names = {k for k in layout if re.fullmatch(r"[xy]axis\d*", k)} | {"xaxis", "yaxis"}
    for trace in data:
        names.update(axis_ids(trace))
    axes = {}
    for name in names:
        props = layout.get(name, {}) or {}
        if props.get("scaleanchor") or props.get("matches") or props.get("overlaying"):
            raise Unsupported("linked axes")
        if props.get("type") not in (None, "linear", "log", "-"):
            raise Unsupported("axis type")
        log = props.get("type") == "log"
        letter = name[0]
        extents = [e for t in data if axis_ids(t)[0 if letter == "x" else 1] == name and (e := _data_extent(t, letter))]
        rng = props.get("range")
        if rng is not None and None not in rng:
            lo, hi = float(rng[0]), float(rng[1])
            if log:
                lo, hi = 10.0**lo, 10.0**hi
        elif extents:
            lo, hi = min(e[0] for e in extents), max(e[1] for e in extents)
            if props.get("rangemode") == "tozero":
                lo, hi = min(lo, 0.0), max(hi, 0.0)
            pad = max(e[2] for e in extents)
            if log:
                if lo <= 0:
                    raise Unsupported("log axis over values <= 0")
                a, b = math.log10(lo), math.log10(hi)
                span = (b - a) or 1.0
                lo, hi = 10 ** (a - pad * span), 10 ** (b + pad * span)
            else:
                span = (hi - lo) or (abs(hi) or 1.0)
                lo = lo if (props.get("rangemode") == "tozero" and lo == 0) else lo - pad * span
                hi = hi if (props.get("rangemode") == "tozero" and hi == 0) else hi + pad * span
                if hi == lo:
                    lo, hi = lo - 1, hi + 1
        else:
            lo, hi = (-1.0, 6.0) if letter == "x" else (-1.0, 4.0)
        reverse = props.get("autorange") == "reversed"
        if lo > hi:
            lo, hi, reverse = hi, lo, not reverse
        domain = tuple(props.get("domain", (0.0, 1.0)))
        axes[name] = Axis(name, (float(domain[0]), float(domain[1])), lo, hi, reverse, log, props)
    return axes


def anchored_left(ax: Axis, axes: dict[str, Axis]) -> bool:
    """Whether a y axis sits at the figure's left edge (its x axis starts at 0)."""
    anchor = ax.props.get("anchor", "x")
    xa = axes.get("xaxis" + anchor[1:]) if anchor and anchor.startswith("x") else None
    return xa is None or xa.domain[0] <= 0.01


def anchored_bottom(ax: Axis, axes: dict[str, Axis]) -> bool:
    anchor = ax.props.get("anchor", "y")
    ya = axes.get("yaxis" + anchor[1:]) if anchor and anchor.startswith("y") else None
    return ya is None or ya.domain[0] <= 0.01


def subplot_used(xa: Axis, ya: Axis, data: list[dict]) -> bool:
    return any(axis_ids(t) == (xa.name, ya.name) for t in data) or (xa.name == "xaxis" and not data)


def plot_box(xa: Axis, ya: Axis, canvas: Canvas, fill: Any) -> str:
    y0, y1 = canvas.y(ya.domain[1]) - canvas.top, canvas.y(ya.domain[0]) - canvas.top
    return (
        f'<rect x="{100 * xa.domain[0]:.4f}%" width="{100 * (xa.domain[1] - xa.domain[0]):.4f}%" '
        f'y="{y0:.1f}" height="{y1 - y0:.1f}" fill="{html.escape(str(fill))}"/>'
    )


def draw_grid(ax: Axis, axes: dict[str, Axis], canvas: Canvas, template: dict, out: list[str]) -> None:
    base = template.get(ax.name[:5]) or {}
    props = {**base, **ax.props}
    if props.get("showgrid") is False and props.get("zeroline") is False:
        return
    other = partner_axis(ax, axes)
    color = html.escape(str(props.get("gridcolor", PLOTLY_JS["gridcolor"])))
    lines = []
    if props.get("showgrid", True) is not False:
        for v, _ in ax.ticks(axis_length(ax, canvas)):
            lines.append(_rule(ax, other, v, canvas, color, 1))
    if props.get("zeroline", True) is not False and not ax.log and ax.lo < 0 < ax.hi:
        zero = html.escape(str(props.get("zerolinecolor", PLOTLY_JS["zerolinecolor"])))
        lines.append(_rule(ax, other, 0.0, canvas, zero, props.get("zerolinewidth", 1)))
    out.extend(lines)


def partner_axis(ax: Axis, axes: dict[str, Axis]) -> Axis:
    anchor = ax.props.get("anchor")
    letter = "y" if ax.name.startswith("x") else "x"
    if anchor and anchor != "free":
        return axes.get(f"{letter}axis{anchor[1:]}") or axes[f"{letter}axis"]
    return axes.get(f"{letter}axis{ax.name[5:]}") or axes[f"{letter}axis"]


def axis_length(ax: Axis, canvas: Canvas) -> float:
    span = ax.domain[1] - ax.domain[0]
    return span * (canvas.plot_height if ax.name.startswith("y") else 700)


def _rule(ax: Axis, other: Axis, v: float, canvas: Canvas, color: str, width: float) -> str:
    if ax.name.startswith("x"):
        f = ax.plot_fraction(v)
        y0, y1 = canvas.y(other.domain[1]) - canvas.top, canvas.y(other.domain[0]) - canvas.top
        return (
            f'<line x1="{100 * f:.4f}%" x2="{100 * f:.4f}%" y1="{y0:.1f}" y2="{y1:.1f}" '
            f'stroke="{color}" stroke-width="{width}"/>'
        )
    y = canvas.y(ax.plot_fraction(v)) - canvas.top
    return (
        f'<line x1="{100 * other.domain[0]:.4f}%" x2="{100 * other.domain[1]:.4f}%" y1="{y:.1f}" y2="{y:.1f}" '
        f'stroke="{color}" stroke-width="{width}"/>'
    )

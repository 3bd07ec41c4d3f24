"""Traces of a still picture: heatmaps (as PNG), numbers in cells, lines, markers and bars."""

from __future__ import annotations

import base64
import html
import math
import re
from typing import Any

import numpy as np

from posviz.figures.preview.axes import Axis, Unsupported, cell_edges, sample_columns
from posviz.figures.preview.model import (
    COLUMNS_MAX,
    LINE_BUCKETS,
    TEXT_CELLS_MAX,
    Canvas,
    array,
    colormap,
    font_style,
    png,
    svg_text,
)


def scale_of(trace: dict, layout: dict) -> tuple[list, float, float, float | None, dict, bool]:
    """(colour scale, low, high, mid, colour bar props, shows a bar) of a heatmap or its colour axis."""
    ref = trace.get("coloraxis")
    if ref:
        ca = layout.get(ref) or {}
        scale, lo, hi, mid = ca.get("colorscale"), ca.get("cmin"), ca.get("cmax"), ca.get("cmid")
        bar, show = ca.get("colorbar") or {}, ca.get("showscale", True)
    else:
        scale, lo, hi, mid = trace.get("colorscale"), trace.get("zmin"), trace.get("zmax"), trace.get("zmid")
        bar, show = trace.get("colorbar") or {}, trace.get("showscale", True)
    if scale is None:
        scale = ((layout.get("template") or {}).get("layout") or {}).get("colorscale", {}).get("sequential")
    if isinstance(scale, str) or not scale:
        raise Unsupported("named colour scale")
    return scale, lo, hi, mid, bar, show is not False


def heatmap_range(trace: dict, layout: dict) -> tuple[float, float]:
    scale, lo, hi, mid, _, _ = scale_of(trace, layout)
    if lo is None or hi is None:
        if trace.get("coloraxis"):
            z = np.concatenate(
                [
                    array(t["z"]).astype(float).ravel()
                    for t in layout.get("_traces", [])
                    if t.get("coloraxis") == trace.get("coloraxis")
                ]
                or [array(trace["z"]).astype(float).ravel()]
            )
        else:
            z = array(trace["z"]).astype(float)
        finite = z[np.isfinite(z)]
        lo = float(finite.min()) if lo is None and finite.size else (lo if lo is not None else 0.0)
        hi = float(finite.max()) if hi is None and finite.size else (hi if hi is not None else 1.0)
        if mid is not None:
            half = max(abs(hi - mid), abs(mid - lo))
            lo, hi = mid - half, mid + half
    return float(lo), float(hi)


def heatmap_svg(trace: dict, xa: Axis, ya: Axis, canvas: Canvas, layout: dict) -> str:
    z = array(trace["z"]).astype(float)
    scale, *_ = scale_of(trace, layout)
    lo, hi = heatmap_range(trace, layout)
    xe, ye = cell_edges(array(trace.get("x")), z.shape[1]), cell_edges(array(trace.get("y")), z.shape[0])
    fy_span = abs(ya.plot_fraction(ye[-1]) - ya.plot_fraction(ye[0]))
    cols = sample_columns(xe, COLUMNS_MAX)
    rows = sample_columns(ye, max(16, math.ceil(fy_span * canvas.plot_height)))
    rgba = colormap(z[np.ix_(rows, cols)], scale, lo, hi)
    # Rows run from y[0]; the image's first row is drawn at the top: flip unless y grows downwards.
    fx0, fx1 = xa.plot_fraction(xe[0]), xa.plot_fraction(xe[-1])
    fy0, fy1 = ya.plot_fraction(ye[0]), ya.plot_fraction(ye[-1])
    if fy0 < fy1:
        rgba = rgba[::-1]
    if fx0 > fx1:
        rgba = rgba[:, ::-1]
    x0, x1 = sorted((fx0, fx1))
    top, bottom = canvas.y(max(fy0, fy1)) - canvas.top, canvas.y(min(fy0, fy1)) - canvas.top
    href = "data:image/png;base64," + base64.b64encode(png(np.ascontiguousarray(rgba))).decode()
    return (
        f'<image x="{100 * x0:.4f}%" width="{100 * (x1 - x0):.4f}%" y="{top:.1f}" height="{bottom - top:.1f}" '
        f'preserveAspectRatio="none" style="image-rendering:pixelated" href="{href}"/>'
    )


def cell_text_svg(trace: dict, xa: Axis, ya: Axis, canvas: Canvas, size: float) -> str:
    template = trace.get("texttemplate")
    if not template:
        return ""
    z = array(trace["z"])
    text = array(trace.get("text")) if trace.get("text") is not None else None
    if z.size > TEXT_CELLS_MAX:
        return ""
    xs = array(trace.get("x")) if trace.get("x") is not None else np.arange(z.shape[1])
    ys = array(trace.get("y")) if trace.get("y") is not None else np.arange(z.shape[0])
    if xs.dtype == object or ys.dtype == object:
        raise Unsupported("category cells")
    font_size, color = font_style(trace.get("textfont") or {}, {"size": size * 0.9, "color": "#222"})
    parts = []
    for r in range(z.shape[0]):
        for c in range(z.shape[1]):
            label = _fill_template(template, z[r, c], None if text is None else text[r, c])
            if label:
                px, dx = canvas.x(xa.plot_fraction(xs[c]))
                parts.append(
                    svg_text(
                        px,
                        dx,
                        canvas.y(ya.plot_fraction(ys[r])),
                        label,
                        size=font_size,
                        color=color,
                        anchor="middle",
                        baseline="central",
                    )
                )
    return "".join(parts)


def _fill_template(template: str, z: Any, text: Any) -> str:
    """A Plotly text template with ``%{z...}`` and ``%{text}`` filled in (formats: ``.Nf``, ``.Ng``, ``d``)."""

    def one(match: re.Match) -> str:
        name, fmt = match.group(1), match.group(2)
        value = z if name == "z" else text
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            return ""
        if fmt:
            try:
                return format(float(value) if fmt[-1] in "fgeE%" else int(value), fmt).replace("-", "−")
            except (TypeError, ValueError):
                return str(value)
        return str(value).replace("-", "−") if not isinstance(value, float) else f"{value:g}".replace("-", "−")

    return re.sub(r"%\{(z|text)(?::([^}]*))?\}", one, template)


def dash_array(line: dict) -> str:
    dash = (line or {}).get("dash")
    pattern = {"dot": "2,3", "dash": "8,4", "dashdot": "8,3,2,3", "longdash": "12,4"}.get(dash or "solid")
    return f' stroke-dasharray="{pattern}"' if pattern else ""


def _points(trace: dict, xa: Axis, ya: Axis, canvas: Canvas) -> list[tuple[float, float]]:
    x, y = array(trace.get("x")), array(trace.get("y"))
    if x is None or y is None or x.dtype == object or y.dtype == object:
        raise Unsupported("category data")
    w, _h = 1000.0, canvas.plot_height
    out = []
    for a, b in zip(x.astype(float).ravel(), y.astype(float).ravel(), strict=False):
        if not (math.isfinite(a) and math.isfinite(b)) or (xa.log and a <= 0) or (ya.log and b <= 0):
            out.append((math.nan, math.nan))
            continue
        out.append((xa.plot_fraction(a) * w, canvas.y(ya.plot_fraction(b)) - canvas.top))
    return out


def thinned(pts: list[tuple[float, float]], buckets: int = LINE_BUCKETS) -> list[tuple[float, float]]:
    """A line's points as drawn at ``buckets`` columns of the 1000-unit box: in each run of points that
    fall in one column, its first, lowest, highest and last, in order (the line's envelope stays)."""
    if len(pts) <= 4 * buckets:
        return pts
    out: list[tuple[float, float]] = []
    run: list[tuple[float, float]] = []
    key = None

    def flush() -> None:
        if run:
            keep = {0, len(run) - 1, min(range(len(run)), key=lambda i: run[i][1])}
            keep.add(max(range(len(run)), key=lambda i: run[i][1]))
            out.extend(run[i] for i in sorted(keep))

    for p in pts:
        k = None if math.isnan(p[0]) else int(p[0] * buckets / 1000)
        if k != key or k is None:
            flush()
            run, key = [], k
        if k is None:
            out.append(p)  # a gap in the line stays a gap
        else:
            run.append(p)
    flush()
    return out


def _scaled(content: str, canvas: Canvas) -> str:
    """Content in a box 1000 units wide that stretches with the plot area (lines keep their width)."""
    return (
        f'<svg width="100%" height="100%" viewBox="0 0 1000 {canvas.plot_height:.1f}" preserveAspectRatio="none">'
        f"{content}</svg>"
    )


def scatter_svg(trace: dict, xa: Axis, ya: Axis, canvas: Canvas, default: str) -> str:
    mode = trace.get("mode", "lines+markers")
    pts = _points(trace, xa, ya, canvas)
    line = trace.get("line") or {}
    marker = trace.get("marker") or {}
    color = html.escape(
        str(line.get("color") or (marker.get("color") if isinstance(marker.get("color"), str) else None) or default)
    )
    opacity = float(trace.get("opacity", 1))
    out = []
    if "lines" in mode and line.get("width", 2) != 0:
        shape = line.get("shape", "linear")
        d, pen = [], "M"
        prev = None
        for px, py in thinned(pts) if shape == "linear" else pts:
            if math.isnan(px):
                pen = "M"
                prev = None
                continue
            if shape == "hv" and prev is not None:
                d.append(f"H{px:.2f}V{py:.2f}")
            elif shape == "vh" and prev is not None:
                d.append(f"V{py:.2f}H{px:.2f}")
            else:
                d.append(f"{pen}{px:.1f} {py:.1f}")
            pen, prev = "L", (px, py)
        fill = ""
        if trace.get("fill") in ("toself", "tonexty", "tozeroy") and trace.get("fillcolor"):
            fill = f' fill="{html.escape(str(trace["fillcolor"]))}"'
        out.append(
            f'<path d="{"".join(d)}" fill="none"{fill} stroke="{color}" stroke-width="{line.get("width", 2)}"'
            f'{dash_array(line)} vector-effect="non-scaling-stroke" stroke-linejoin="round" opacity="{opacity}"/>'
        )
    if "markers" in mode:
        sizes = marker.get("size", 6)
        colors = marker.get("color")
        symbol = str(marker.get("symbol", "circle"))
        edge = marker.get("line") or {}
        many_colors = colors is not None and not isinstance(colors, str)
        if many_colors:
            values = array(colors)
            if values is None or values.dtype == object:
                raise Unsupported("marker colours")
        if not isinstance(sizes, int | float):
            sizes_arr = array(sizes)
        if many_colors:
            raise Unsupported("marker colour scale")
        # One path per look (stroke, size, cap, opacity): a dot per marker ("M x y h0"), not an element each.
        dots: dict[str, list[str]] = {}
        for k, (px, py) in enumerate(pts):
            if math.isnan(px):
                continue
            s = float(sizes if isinstance(sizes, int | float) else sizes_arr.ravel()[k])
            if "open" in symbol or marker.get("opacity") == 0:
                stroke, cap, alpha = html.escape(str(edge.get("color") or color)), "round", 0.6 * opacity
            else:
                stroke, alpha = color, float(marker.get("opacity", 1)) * opacity
                cap = "square" if symbol.startswith("square") else "round"
            attrs = f'stroke="{stroke}" stroke-width="{s:.1f}" stroke-linecap="{cap}" opacity="{alpha}"'
            dots.setdefault(attrs, []).append(f"M{px:.1f} {py:.1f}h0")
        for attrs, d in dots.items():
            out.append(f'<path d="{"".join(d)}" {attrs} vector-effect="non-scaling-stroke"/>')
    return _scaled("".join(out), canvas) if out else ""


def scatter_text_svg(trace: dict, xa: Axis, ya: Axis, canvas: Canvas, size: float, ink: str) -> str:
    if "text" not in trace.get("mode", "") or trace.get("text") is None:
        return ""
    texts = trace["text"]
    texts = [texts] * len(array(trace.get("x"))) if isinstance(texts, str) else list(array(texts).ravel())
    x, y = array(trace["x"]).astype(float).ravel(), array(trace["y"]).astype(float).ravel()
    font_size, color = font_style(trace.get("textfont") or {}, {"size": size, "color": ink})
    out = []
    for a, b, t in zip(x, y, texts, strict=False):
        if math.isfinite(a) and math.isfinite(b):
            px, dx = canvas.x(xa.plot_fraction(a))
            out.append(
                svg_text(
                    px,
                    dx,
                    canvas.y(ya.plot_fraction(b)),
                    str(t),
                    size=font_size,
                    color=color,
                    anchor="middle",
                    baseline="central",
                )
            )
    return "".join(out)


def bars_svg(trace: dict, xa: Axis, ya: Axis, canvas: Canvas, default: str) -> str:
    x, y = array(trace.get("x")), array(trace.get("y"))
    if x is None or y is None or x.dtype == object or y.dtype == object or trace.get("orientation") == "h":
        raise Unsupported("bars")
    x, y = x.astype(float).ravel(), y.astype(float).ravel()
    width = float(np.min(np.diff(np.unique(x)))) * 0.8 if x.size > 1 else 0.8
    marker = trace.get("marker") or {}
    color = marker.get("color") if isinstance(marker.get("color"), str) else default
    out = []
    for a, b in zip(x, y, strict=False):
        if not (math.isfinite(a) and math.isfinite(b)):
            continue
        x0, x1 = xa.plot_fraction(a - width / 2), xa.plot_fraction(a + width / 2)
        y0, y1 = canvas.y(ya.plot_fraction(0.0)) - canvas.top, canvas.y(ya.plot_fraction(b)) - canvas.top
        out.append(
            f'<rect x="{100 * min(x0, x1):.4f}%" width="{100 * abs(x1 - x0):.4f}%" y="{min(y0, y1):.1f}" '
            f'height="{abs(y1 - y0):.1f}" fill="{html.escape(str(color))}"/>'
        )
    return "".join(out)

"""Labels of a still picture: shapes, tick labels, titles, annotations, colour bars and legends."""

from __future__ import annotations

import html
import math

from posviz.figures.preview.axes import Axis, Unsupported, axis_length, partner_axis
from posviz.figures.preview.model import (
    COLORBAR_PX,
    LEGEND_SWATCH_PX,
    Canvas,
    esc,
    font_style,
    nice_ticks,
    svg_text,
    text_lines,
    text_width,
    tick_label,
)
from posviz.figures.preview.traces import dash_array, heatmap_range, scale_of


def _ref_fraction(ref: str, value: float, axes: dict[str, Axis], letter: str) -> float | None:
    """Plot fraction of a shape's or annotation's coordinate; None when it is relative to the figure."""
    if ref in (None, "paper"):
        return float(value)
    if ref == "container":
        return None
    name = f"{letter}axis{ref.split()[0][1:]}"
    ax = axes.get(name)
    if ax is None:
        raise Unsupported("reference to a missing axis")
    if ref.endswith(" domain"):
        return ax.domain[0] + float(value) * (ax.domain[1] - ax.domain[0])
    return ax.plot_fraction(float(value))


def draw_shapes(shapes: list[dict], axes: dict[str, Axis], canvas: Canvas, out: list[str]) -> None:
    for shape in shapes:
        kind = shape.get("type", "rect")
        fx = [_ref_fraction(shape.get("xref", "x"), shape[k], axes, "x") for k in ("x0", "x1")]
        fy = [_ref_fraction(shape.get("yref", "y"), shape[k], axes, "y") for k in ("y0", "y1")]
        if None in fx or None in fy:
            raise Unsupported("shape placed on the figure")
        ys = [canvas.y(f) - canvas.top for f in fy]
        line = shape.get("line") or {}
        color = html.escape(str(line.get("color", "#444")))
        width = line.get("width", 2)
        if kind == "line":
            out.append(
                f'<line x1="{100 * fx[0]:.4f}%" x2="{100 * fx[1]:.4f}%" y1="{ys[0]:.1f}" y2="{ys[1]:.1f}" '
                f'stroke="{color}" stroke-width="{width}"{dash_array(line)} opacity="{shape.get("opacity", 1)}"/>'
            )
        elif kind == "rect":
            fill = html.escape(str(shape.get("fillcolor", "none")))
            stroke = f' stroke="{color}" stroke-width="{width}"{dash_array(line)}' if width else ""
            out.append(
                f'<rect x="{100 * min(fx):.4f}%" width="{100 * abs(fx[1] - fx[0]):.4f}%" y="{min(ys):.1f}" '
                f'height="{abs(ys[1] - ys[0]):.1f}" fill="{fill}"{stroke} opacity="{shape.get("opacity", 1)}"/>'
            )
        else:
            raise Unsupported("shape type")


def axis_labels_svg(ax: Axis, axes: dict[str, Axis], canvas: Canvas, size: float, ink: str) -> str:
    other = partner_axis(ax, axes)
    out = []
    title = ax.props.get("title") or {}
    title = title if isinstance(title, dict) else {"text": title}
    standoff = title.get("standoff", 10)
    ticks = ax.ticks(axis_length(ax, canvas))
    if ax.name.startswith("x"):
        base = canvas.y(other.domain[0])
        for v, label in ticks:
            px, dx = canvas.x(ax.plot_fraction(v))
            out.append(svg_text(px, dx, base + 3 + size, label, size=size, color=ink, anchor="middle"))
        if title.get("text"):
            px, dx = canvas.x((ax.domain[0] + ax.domain[1]) / 2)
            below = base + (size * 1.25 if ticks else 0) + standoff + size
            tsize, tcolor = font_style(title.get("font") or {}, {"size": size, "color": ink})
            out.append(svg_text(px, dx, below, title["text"], size=tsize, color=tcolor, anchor="middle"))
    else:
        px, dx = canvas.x(other.domain[0])
        width = 0.0
        for v, label in ticks:
            y = canvas.y(ax.plot_fraction(v))
            out.append(svg_text(px, dx - 4, y, label, size=size, color=ink, anchor="end", baseline="central"))
            width = max(width, text_width(label, size))
        if title.get("text"):
            y = canvas.y((ax.domain[0] + ax.domain[1]) / 2)
            tsize, tcolor = font_style(title.get("font") or {}, {"size": size, "color": ink})
            out.append(
                svg_text(
                    px,
                    dx - 4 - width - standoff,
                    y,
                    title["text"],
                    size=tsize,
                    color=tcolor,
                    anchor="middle",
                    rotate=True,
                )
            )
    return "".join(out)


def draw_titles(layout: dict, template: dict, canvas: Canvas, ink: str, size: float, out: list[str]) -> None:
    title = layout.get("title") or {}
    title = title if isinstance(title, dict) else {"text": title}
    if not title.get("text"):
        return
    tsize, tcolor = font_style(title.get("font") or {}, {"size": size * 17 / 12, "color": ink})
    pad = title.get("pad") or {}
    y = float(pad.get("t", 0)) + tsize * 0.9
    x_pct = f"{100 * float(title.get('x', 0.5)):.3f}%" if title.get("xref") == "container" else None
    anchor = {"left": "start", "right": "end"}.get(title.get("xanchor", "left"), "middle")
    if x_pct is None:
        x_pct, dx = canvas.x(float(title.get("x", 0.5)))
    else:
        dx = 0.0
    dx += float(pad.get("l", 0)) if anchor == "start" else 0.0
    out.append(svg_text(x_pct, dx, y, title["text"], size=tsize, color=tcolor, anchor=anchor))
    sub = title.get("subtitle") or {}
    if sub.get("text"):
        ssize, scolor = font_style(sub.get("font") or {}, {"size": size, "color": ink})
        lines = len(text_lines(title["text"]))
        out.append(
            svg_text(
                x_pct,
                dx,
                y + tsize * 1.2 * (lines - 1) + ssize * 1.45,
                sub["text"],
                size=ssize,
                color=scolor,
                anchor=anchor,
            )
        )


def draw_annotations(
    items: list[dict], axes: dict[str, Axis], canvas: Canvas, size: float, ink: str, out: list[str]
) -> None:
    for a in items:
        if a.get("showarrow", True) or a.get("visible") is False:
            if a.get("visible") is False:
                continue
            raise Unsupported("arrow annotation")
        fx = _ref_fraction(a.get("xref", "paper"), a.get("x", 0.5), axes, "x")
        fy = _ref_fraction(a.get("yref", "paper"), a.get("y", 0.5), axes, "y")
        if fx is None:
            px, dx = f"{100 * float(a.get('x', 0.5)):.3f}%", 0.0
        else:
            px, dx = canvas.x(fx)
        y = canvas.y(fy) if fy is not None else canvas.height * (1 - float(a.get("y", 0.5)))
        asize, acolor = font_style(a.get("font") or {}, {"size": size, "color": ink})
        n = len(text_lines(a.get("text")))
        yanchor = a.get("yanchor", "middle")
        first = {"top": y + asize * 0.95, "bottom": y - asize * 1.2 * (n - 1) - asize * 0.3}.get(
            yanchor, y - asize * 1.2 * (n - 1) / 2 + asize * 0.35
        )
        anchor = {"left": "start", "right": "end"}.get(a.get("xanchor", "center"), "middle")
        shift = float(a.get("xshift", 0))
        out.append(
            svg_text(
                px,
                dx + shift,
                first - float(a.get("yshift", 0)),
                a.get("text", ""),
                size=asize,
                color=acolor,
                anchor=anchor,
            )
        )


def read_colorbars(data: list[dict], layout: dict) -> list[dict]:
    """One colour bar per colour axis or per heatmap with its own, as Plotly shows them."""
    bars, seen = [], set()
    bar_ticks = min(max((float(layout.get("height", 450)) - 150) / 40, 4), 9) + 1  # Plotly's count for its length
    layout_with_traces = {**layout, "_traces": data}
    for trace in data:
        if trace.get("type") != "heatmap":
            continue
        key = trace.get("coloraxis") or id(trace)
        if key in seen:
            continue
        seen.add(key)
        scale, _, _, _, props, show = scale_of(trace, layout)
        if not show:
            continue
        lo, hi = heatmap_range(trace, layout_with_traces)
        title = props.get("title") or {}
        title = title if isinstance(title, dict) else {"text": title}
        vals, text = props.get("tickvals"), props.get("ticktext")
        if vals is not None:
            ticks = list(
                zip(
                    [float(v) for v in vals], [str(t) for t in (text or [tick_label(v, 1) for v in vals])], strict=False
                )
            )
        else:
            values, step = nice_ticks(lo, hi, bar_ticks)
            ticks = [(v, tick_label(v, step)) for v in values]
        ticks = [(v, t) for v, t in ticks if min(lo, hi) - 1e-9 <= v <= max(lo, hi) + 1e-9]
        bars.append(dict(scale=scale, lo=lo, hi=hi, ticks=ticks, title=title, width=0.0))
    if len(bars) > 1:
        raise Unsupported("several colour bars")
    for bar in bars:
        size = float(((layout.get("font") or {}).get("size")) or 12)
        tick_w = max((text_width(t, size) for _, t in bar["ticks"]), default=0)
        title_w = size * 1.3 + 6 if bar["title"].get("text") else 0
        bar["width"] = COLORBAR_PX + 4 + tick_w + title_w
    return bars


def colorbar_svg(bar: dict, canvas: Canvas, size: float, ink: str, k: int) -> str:
    # The bar's left edge is at x = 1.02 of the plot, plus Plotly's 10 px pad; as tall as the plot area.
    px, dx = canvas.x(1.02)
    x = dx + 10
    y0, y1 = canvas.top + 10, canvas.top + canvas.plot_height - 10
    stops = "".join(f'<stop offset="{float(p):.4f}" stop-color="{html.escape(str(c))}"/>' for p, c in bar["scale"])
    grad = f'<linearGradient id="cb{k}" x1="0" x2="0" y1="1" y2="0">{stops}</linearGradient>'
    out = [
        f'<defs>{grad}</defs><svg x="{px}" overflow="visible"><rect x="{x:.1f}" y="{y0:.1f}" width="30" '
        f'height="{y1 - y0:.1f}" fill="url(#cb{k})"/></svg>'
    ]
    span = bar["hi"] - bar["lo"] or 1.0
    width = 0.0
    for v, label in bar["ticks"]:
        y = y1 - (v - bar["lo"]) / span * (y1 - y0)
        out.append(svg_text(px, x + 33, y, label, size=size, color=ink, anchor="start", baseline="central"))
        width = max(width, text_width(label, size))
    if bar["title"].get("text"):
        out.append(
            f'<svg x="{px}" overflow="visible"><text transform="translate({x + 36 + width + size:.1f},'
            f'{(y0 + y1) / 2:.1f}) rotate(90)" font-size="{size:.1f}" fill="{html.escape(ink)}" '
            f'text-anchor="middle">{esc(bar["title"]["text"])}</text></svg>'
        )
    return "".join(out)


def read_legend(data: list[dict], layout: dict, colorway: list[str]) -> dict | None:
    entries = []
    for i, t in enumerate(data):
        shown = t.get("showlegend")
        if t.get("type") == "heatmap" or shown is False or not t.get("name"):
            continue
        entries.append((i, t))
    if layout.get("showlegend") is False or not entries or (len(entries) < 2 and layout.get("showlegend") is not True):
        return None
    legend = layout.get("legend") or {}
    size = float((legend.get("font") or {}).get("size") or (layout.get("font") or {}).get("size") or 12)
    items = []
    for i, t in entries:
        line = t.get("line") or {}
        marker = t.get("marker") or {}
        color = line.get("color") or (marker.get("color") if isinstance(marker.get("color"), str) else None)
        items.append(
            dict(
                name=str(t["name"]),
                color=str(color or colorway[i % len(colorway)]),
                mode=t.get("mode", "lines"),
                dash=line.get("dash"),
                kind=t.get("type", "scatter"),
            )
        )
    horizontal = legend.get("orientation") == "h"
    widths = [LEGEND_SWATCH_PX + text_width(it["name"], size) + 10 for it in items]
    out = dict(items=items, size=size, props=legend, horizontal=horizontal, widths=widths)
    out["side"] = not horizontal and legend.get("x", 1.02) >= 1
    out["width"] = max(widths) + 10 if out["side"] else 0.0
    out["rows"] = 1 if not horizontal else max(1, math.ceil(sum(widths) / 600))
    if horizontal and legend.get("yref") != "container" and legend.get("y", -0.1) >= 0:
        raise Unsupported("legend above the plot")
    return out


def legend_svg(legend: dict, canvas: Canvas, size: float, ink: str) -> str:
    out = []
    step = legend["size"] * 1.6
    if legend["side"]:
        px, dx = canvas.x(1.02)
        spots = [(px, dx + 10, canvas.top + 10 + k * step) for k in range(len(legend["items"]))]
    else:
        props = legend["props"]
        if props.get("xref") == "container":
            px, dx = f"{100 * float(props.get('x', 0)):.3f}%", 10.0
        else:
            px, dx = canvas.x(float(props.get("x", 0)))
        y = canvas.height - 10 - step / 2 if props.get("yref") == "container" else canvas.height - 20
        spots, offset = [], 0.0
        for w in legend["widths"]:
            spots.append((px, dx + offset, y))
            offset += w
    for it, (px, dx, y) in zip(legend["items"], spots, strict=False):
        color = html.escape(it["color"])
        swatch = ""
        if it["kind"] == "bar":
            swatch = f'<rect x="{dx + 8:.1f}" y="{y - 6:.1f}" width="20" height="12" fill="{color}"/>'
        else:
            if "lines" in it["mode"]:
                swatch += (
                    f'<line x1="{dx + 5:.1f}" x2="{dx + 35:.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="{color}" '
                    f'stroke-width="2"{dash_array({"dash": it["dash"]})}/>'
                )
            if "markers" in it["mode"]:
                swatch += f'<circle cx="{dx + 20:.1f}" cy="{y:.1f}" r="4" fill="{color}"/>'
        out.append(f'<svg x="{px}" overflow="visible">{swatch}</svg>')
        label = svg_text(px, dx + LEGEND_SWATCH_PX, y, it["name"], size=legend["size"], color=ink, baseline="central")
        out.append(label)
    return "".join(out)

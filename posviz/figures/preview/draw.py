"""A still picture of a whole figure: its margins as Plotly's automatic ones, then every layer."""

from __future__ import annotations

import html
import re
from typing import Any

from posviz.figures.preview.axes import (
    Unsupported,
    anchored_bottom,
    anchored_left,
    axis_ids,
    draw_grid,
    plot_box,
    read_axes,
    subplot_used,
)
from posviz.figures.preview.labels import (
    axis_labels_svg,
    colorbar_svg,
    draw_annotations,
    draw_shapes,
    draw_titles,
    legend_svg,
    read_colorbars,
    read_legend,
)
from posviz.figures.preview.model import (
    PICTURE_MAX_BYTES,
    PLACEHOLDER_COLORWAY,
    PLOTLY_JS,
    SANS,
    SUPPORTED_TRACES,
    UNSUPPORTED_LAYOUT,
    Canvas,
    Preview,
    font_style,
    text_width,
)
from posviz.figures.preview.traces import bars_svg, cell_text_svg, heatmap_svg, scatter_svg, scatter_text_svg


def preview(spec: dict[str, Any]) -> Preview | None:
    """The figure's still picture, or None when it has something the preview does not draw.

    None too when its SVG would pass ``PICTURE_MAX_BYTES`` (thousands of markers, say): a picture
    goes to every new session, and the plain placeholder costs nothing.
    """
    try:
        pic = _draw(spec)
    except (Unsupported, ValueError, TypeError, KeyError, IndexError, ZeroDivisionError, OverflowError):
        # Data the picture does not read (category axes, text coordinates): the plain placeholder.
        return None
    return pic if len(pic.text) + len(pic.ink) <= PICTURE_MAX_BYTES else None


def _draw(spec: dict[str, Any]) -> Preview:
    layout = spec.get("layout", {}) or {}
    data = spec.get("data", []) or []
    if any(k in layout for k in UNSUPPORTED_LAYOUT) or spec.get("frames"):
        raise Unsupported("layout feature")
    if any(t.get("type", "scatter") not in SUPPORTED_TRACES for t in data):
        raise Unsupported("trace type")
    if any(t.get("visible") not in (None, True) for t in data):
        raise Unsupported("hidden traces")
    template = ((layout.get("template") or {}).get("layout")) or {}
    height = layout.get("height")
    if not height:
        raise Unsupported("no fixed height")
    font = {**(template.get("font") or {}), **(layout.get("font") or {})}
    size, ink = font_style(font, {"color": PLOTLY_JS["font_color"]})
    colorway = layout.get("colorway") or template.get("colorway") or PLACEHOLDER_COLORWAY
    if any(re.fullmatch(r"#0000[0-9]{2}", str(c)) for c in colorway):
        colorway = PLACEHOLDER_COLORWAY
    plot_bg = layout.get("plot_bgcolor") or template.get("plot_bgcolor") or PLOTLY_JS["plot_bgcolor"]
    paper_bg = layout.get("paper_bgcolor") or template.get("paper_bgcolor") or PLOTLY_JS["paper_bgcolor"]
    axes = read_axes(spec)
    bars = read_colorbars(data, layout)
    legend = read_legend(data, layout, colorway)

    margin = {**{"l": 80, "r": 80, "t": 100, "b": 80}, **(layout.get("margin") or {})}
    # Estimated automatic margins: tick labels, axis titles, colour bars, a legend at the right.
    tick_size = size
    left = margin["l"]
    bottom = margin["b"]
    for ax in axes.values():
        title = (ax.props.get("title") or {}) if isinstance(ax.props.get("title"), dict) else {}
        standoff = title.get("standoff", 10)
        has_title = bool(title.get("text"))
        if ax.name.startswith("y") and ax.domain[0] is not None:
            ticks = ax.ticks(200)
            w = max((text_width(t, tick_size) for _, t in ticks), default=0)
            if anchored_left(ax, axes):
                need = w + 2 + (standoff + size * 0.9 if has_title else 0)
                left = max(left, margin["l"] + need)
        elif ax.domain is not None and (ax.props.get("showticklabels") is not False or has_title):
            need = (size * 1.25 if ax.props.get("showticklabels") is not False else 0) + (
                standoff + size * 1.1 if has_title else 0
            )
            if ax.props.get("tickangle"):
                need += size
            bottom = max(bottom, margin["b"] + need) if anchored_bottom(ax, axes) else bottom
    right_px = margin["r"]
    scale = 1.0
    side = [b["width"] for b in bars] + ([legend["width"]] if legend and legend["side"] else [])
    if side:
        right_px += max(side)
        scale = 1 / 1.02
    if legend and not legend["side"]:
        bottom = max(bottom, margin["b"] + legend["rows"] * (size + 6) + 10)
    top = margin["t"]
    canvas = Canvas(left, right_px, scale, top, float(height), bottom)

    text_parts: list[str] = []
    ink_parts: list[str] = [f'<rect width="100%" height="100%" fill="{html.escape(str(plot_bg))}" fill-opacity="0"/>']
    # Plot backgrounds, one per subplot, and grid lines.
    for xa in [a for a in axes.values() if a.name.startswith("x")]:
        ya = axes.get("yaxis" + xa.name[5:]) or axes["yaxis"]
        if not subplot_used(xa, ya, data):
            continue
        ink_parts.append(plot_box(xa, ya, canvas, plot_bg))
    for ax in axes.values():
        draw_grid(ax, axes, canvas, template, ink_parts)
    for i, trace in enumerate(data):
        xa, ya = (axes[n] for n in axis_ids(trace))
        kind = trace.get("type", "scatter")
        if kind == "heatmap":
            ink_parts.append(heatmap_svg(trace, xa, ya, canvas, layout))
            text_parts.append(cell_text_svg(trace, xa, ya, canvas, size))
        elif kind == "bar":
            ink_parts.append(bars_svg(trace, xa, ya, canvas, colorway[i % len(colorway)]))
        else:
            ink_parts.append(scatter_svg(trace, xa, ya, canvas, colorway[i % len(colorway)]))
            text_parts.append(scatter_text_svg(trace, xa, ya, canvas, size, ink))
    draw_shapes(layout.get("shapes") or [], axes, canvas, ink_parts)
    for ax in axes.values():
        text_parts.append(axis_labels_svg(ax, axes, canvas, size, ink))
    draw_titles(layout, template, canvas, ink, size, text_parts)
    draw_annotations(layout.get("annotations") or [], axes, canvas, size, ink, text_parts)
    for k, bar in enumerate(bars):
        text_parts.append(colorbar_svg(bar, canvas, size, ink, k))
    if legend:
        text_parts.append(legend_svg(legend, canvas, size, ink))

    text_svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="100%" height="100%" '
        f'font-family="{SANS}">' + "".join(text_parts) + "</svg>"
    )
    ink_svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="100%" height="100%" overflow="hidden">'
        + "".join(ink_parts)
        + "</svg>"
    )
    return Preview(text_svg, ink_svg, int(height), left, right_px, scale, top, canvas.plot_height, str(paper_bg))

"""A still picture of a figure, drawn from its spec in SVG: shown while Plotly's code loads.

A browser's first visit to a page with charts waits for Plotly.js (4.7 MB of
JavaScript) to load, compile and draw: about two seconds in Chromium, during
which the page would show empty boxes. :func:`preview` draws the same figure
(heatmaps, lines, markers, bars, text, shapes, annotations, colour bars,
legends, titles) as two SVG images that CSS lays over that box until the
interactive chart replaces it.

The box's width is the browser's, unknown here: the figure's margins are fixed
pixels and its plot area takes the rest, as Plotly lays it out. So the preview
is two layers (:class:`Preview`):

- ``ink``, drawn to exactly the plot area (CSS sizes it, ``calc(...)``): heatmap
  images, lines, markers, bars and shapes, in a coordinate box that stretches
  with the width (strokes keep their width: ``non-scaling-stroke``);
- ``text``, the whole figure: every label placed at a fraction of the width
  plus a pixel offset (``x="f%" dx="px"``), so it lands where the plot area puts it.

Margins follow Plotly's automatic margins approximately (label widths are
estimated, the preview's font is the system's): a preview may sit a few pixels
off the chart that replaces it, never elsewhere. A figure with features the
preview does not draw (locked aspect ratios, sliders, 3-D, ...) gets ``None``:
the page shows its plain placeholder instead.

No streamlit here; plotly's spec format only (JSON-ready dicts, arrays as
``{"dtype", "bdata", "shape"}`` or lists).
"""

from __future__ import annotations

import base64
import html
import math
import re
import struct
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

SANS = "'Source Sans Pro', 'Source Sans', Arial, Helvetica, sans-serif"
CHAR_EM = 0.52  # mean advance of a character, in ems (digits ~0.5, mixed text ~0.52)
COLORBAR_PX = 30 + 10  # Plotly's bar thickness and its padding
LEGEND_SWATCH_PX = 40
CELLS_MAX = 512 * 512  # larger heatmaps are drawn from a strided sample (the preview's pixels)
TEXT_CELLS_MAX = 400  # numbers in cells only while they are few enough to read
UNSUPPORTED_LAYOUT = ("sliders", "updatemenus", "scene", "geo", "polar", "ternary", "mapbox", "map", "grid")
SUPPORTED_TRACES = {"heatmap", "scatter", "bar"}
# Plotly.js's own defaults, where the figure's template sets none.
PLOTLY_JS = {
    "font_color": "#444",
    "plot_bgcolor": "#fff",
    "paper_bgcolor": "#fff",
    "gridcolor": "#eee",
    "zerolinecolor": "#444",
}
# Streamlit's template writes its theme colours as placeholders (#000001 ...) that its front end
# replaces; with ``theme=None`` the categorical ones become Plotly's own colour sequence.
PLACEHOLDER_COLORWAY = [
    "#636efa",
    "#EF553B",
    "#00cc96",
    "#ab63fa",
    "#FFA15A",
    "#19d3f3",
    "#FF6692",
    "#B6E880",
    "#FF97FF",
    "#FECB52",
]


@dataclass(frozen=True)
class Preview:
    """The two SVG layers and where the ink goes (pixels from the top left; the width is CSS's).

    ``ink`` covers the plot area: ``left`` px from the left edge, ``right`` px from the
    right one (plus ``1 - scale`` of the width when a colour bar or legend sits at
    ``x = 1.02`` of the plot, as Plotly places it), ``top`` px down, ``plot_height`` tall.
    """

    text: str
    ink: str
    height: int
    left: float
    right: float
    scale: float  # the plot area's width is scale * (width - left - right)
    top: float
    plot_height: float
    background: str = "#fff"  # the paper's colour, under both layers

    def ink_width_css(self) -> str:
        inner = f"(100% - {self.left + self.right:.1f}px)"
        return f"calc({inner} * {self.scale:.5f})" if self.scale != 1 else f"calc{inner}"


# ------------------------------------------------------------------ values


def array(value: Any) -> np.ndarray | None:
    """A spec's array (typed base64, list or numpy) as numpy; None when absent."""
    if value is None:
        return None
    if isinstance(value, dict) and "bdata" in value:
        out = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if shape:
            dims = [int(s) for s in str(shape).split(",")] if not isinstance(shape, list | tuple) else list(shape)
            out = out.reshape(dims)
        return out
    if isinstance(value, np.ndarray):
        return value
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return np.asarray(value, dtype=object)


def text_width(text: str, size: float) -> float:
    """Estimated width (px) of one line of ``text`` at ``size`` px."""
    return len(_plain(text)) * size * CHAR_EM


def _plain(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", str(text)))


def _lines(text: str | None) -> list[str]:
    return [] if not text else re.split(r"<br\s*/?>", str(text))


def tick_label(value: float, step: float) -> str:
    """A tick's label as Plotly writes it: the step's decimals, k above 10⁴, a true minus sign."""
    if abs(value) < step * 1e-9:
        value = 0.0
    if step >= 1 and abs(value) >= 1e4 and all(abs(value) % 1000 == 0 for _ in [0]):
        text = f"{value / 1000:g}k"
    else:
        decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step > 0 else 0
        text = f"{value:.{decimals}f}"
    return text.replace("-", "−")


def nice_ticks(lo: float, hi: float, count: float) -> tuple[list[float], float]:
    """Plotly's automatic linear ticks: a step of 1, 2 or 5 × 10ᵏ at or above ``range / count``."""
    lo, hi = min(lo, hi), max(lo, hi)
    span = hi - lo
    if not math.isfinite(span) or span <= 0:
        return [lo], 1.0
    rough = span / count
    base = 10.0 ** math.floor(math.log10(rough))
    step = base * next(m for m in (1, 2, 5, 10) if m * base >= rough * (1 - 1e-9))
    first = math.ceil(lo / step - 1e-9)
    return [k * step for k in range(first, math.floor(hi / step + 1e-9) + 1)], step


# ------------------------------------------------------------------ colours


def _rgb(color: str) -> tuple[int, int, int]:
    color = color.strip()
    if color.startswith("#"):
        h = color[1:]
        h = "".join(c * 2 for c in h) if len(h) == 3 else h[:6]
        return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
    nums = re.findall(r"[\d.]+", color)
    return int(float(nums[0])), int(float(nums[1])), int(float(nums[2]))


def colormap(z: np.ndarray, scale: list, lo: float, hi: float) -> np.ndarray:
    """RGBA (uint8) of every value of ``z`` on a Plotly colour scale over ``[lo, hi]``; NaN transparent."""
    pos = np.array([float(s[0]) for s in scale])
    rgb = np.array([_rgb(str(s[1])) for s in scale], dtype=float)
    t = (z.astype(float) - lo) / (hi - lo) if hi > lo else np.full(z.shape, 0.5)
    t = np.nan_to_num(np.clip(t, 0.0, 1.0), nan=0.0)
    out = np.zeros(z.shape + (4,), dtype=np.uint8)
    for c in range(3):
        out[..., c] = np.round(np.interp(t, pos, rgb[:, c]))
    out[..., 3] = np.where(np.isfinite(z.astype(float)), 255, 0)
    return out


def png(rgba: np.ndarray) -> bytes:
    """A PNG file of an RGBA image (rows top to bottom)."""
    h, w, _ = rgba.shape
    rows = np.concatenate([np.zeros((h, 1), np.uint8), rgba.reshape(h, w * 4)], axis=1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6))
        + chunk(b"IEND", b"")
    )


# ------------------------------------------------------------------ axes


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


def _edges(values: np.ndarray | None, n: int) -> np.ndarray:
    """Cell edges along one side of a heatmap (n + 1, increasing or decreasing), as Plotly draws them:
    halfway between centres, the outer cells as wide as their neighbours' spacing."""
    centres = np.arange(n, dtype=float) if values is None else values.astype(float)[:n]
    if n == 1:
        return np.array([centres[0] - 0.5, centres[0] + 0.5])
    steps = np.diff(centres)
    if not (np.all(steps > 0) or np.all(steps < 0)):
        raise _Unsupported("heatmap coordinates not monotonic")
    mids = (centres[:-1] + centres[1:]) / 2
    return np.concatenate([[centres[0] - steps[0] / 2], mids, [centres[-1] + steps[-1] / 2]])


def _columns(edges: np.ndarray, limit: int) -> np.ndarray:
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


class _Unsupported(Exception):
    """The figure has something the preview does not draw."""


def _axis_ids(trace: dict) -> tuple[str, str]:
    x, y = trace.get("xaxis", "x"), trace.get("yaxis", "y")
    return "xaxis" + x[1:], "yaxis" + y[1:]


def _data_extent(trace: dict, letter: str) -> tuple[float, float, float] | None:
    """(low, high, padding fraction) of one trace's data along ``letter``."""
    kind = trace.get("type", "scatter")
    if kind == "heatmap":
        z = array(trace.get("z"))
        if z is None or z.ndim != 2:
            raise _Unsupported("heatmap without a 2-D z")
        edges = _edges(array(trace.get(letter)), z.shape[1] if letter == "x" else z.shape[0])
        return float(edges.min()), float(edges.max()), 0.0
    values = array(trace.get(letter))
    if values is None or values.dtype == object:
        raise _Unsupported("category axis")
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


def _axes(spec: dict) -> dict[str, Axis]:
    layout = spec.get("layout", {})
    data = spec.get("data", [])
    names = {k for k in layout if re.fullmatch(r"[xy]axis\d*", k)} | {"xaxis", "yaxis"}
    for trace in data:
        names.update(_axis_ids(trace))
    axes = {}
    for name in names:
        props = layout.get(name, {}) or {}
        if props.get("scaleanchor") or props.get("matches") or props.get("overlaying"):
            raise _Unsupported("linked axes")
        if props.get("type") not in (None, "linear", "log", "-"):
            raise _Unsupported("axis type")
        log = props.get("type") == "log"
        letter = name[0]
        extents = [
            e for t in data if _axis_ids(t)[0 if letter == "x" else 1] == name and (e := _data_extent(t, letter))
        ]
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
                    raise _Unsupported("log axis over values <= 0")
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


# ------------------------------------------------------------------ SVG text helpers


def _esc(text: Any) -> str:
    return html.escape(_plain(text), quote=True)


def _style(font: dict, default: dict) -> tuple[float, str]:
    size = float((font or {}).get("size") or default.get("size") or 12)
    color = (font or {}).get("color") or default.get("color") or "#2a3f5f"
    return size, str(color)


def _text(
    x: str,
    dx: float,
    y: float,
    text: str,
    *,
    size: float,
    color: str,
    anchor: str = "start",
    baseline: str = "auto",
    weight: str = "normal",
    rotate: bool = False,
) -> str:
    """One label of one or more lines (``<br>``), first line at ``y``; ``x`` a percentage or pixels."""
    lines = _lines(text)
    if not lines:
        return ""
    bold = weight == "bold" or str(text).strip().startswith("<b>")
    attrs = (
        f'font-size="{size:.1f}" fill="{html.escape(color)}" text-anchor="{anchor}"'
        + (' font-weight="bold"' if bold else "")
        + (f' dominant-baseline="{baseline}"' if baseline != "auto" else "")
    )
    if rotate:
        tspans = "".join(
            f'<tspan x="0" dy="{0 if i == 0 else size * 1.2:.1f}">{_esc(line)}</tspan>' for i, line in enumerate(lines)
        )
        return (
            f'<svg x="{x}" y="0" overflow="visible"><text transform="translate({dx:.1f},{y:.1f}) rotate(-90)" '
            f"{attrs}>{tspans}</text></svg>"
        )
    tspans = "".join(
        f'<tspan x="{x}" dx="{dx:.1f}" {"dy" if i else "y"}="{size * 1.2 if i else y:.1f}">{_esc(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    return f"<text {attrs}>{tspans}</text>"


# ------------------------------------------------------------------ the figure


class _Canvas:
    """Pixel geometry of one figure: margins, plot area, and where a fraction of the plot lands."""

    def __init__(self, left: float, right: float, scale: float, top: float, height: float, bottom: float):
        self.left, self.right, self.scale = left, right, scale
        self.top, self.bottom, self.height = top, bottom, height
        self.plot_height = height - top - bottom

    def x(self, f: float) -> tuple[str, float]:
        """(percentage of the figure's width, pixel offset) of the point at plot fraction ``f``."""
        a = f * self.scale
        return f"{100 * a:.4f}%", self.left - a * (self.left + self.right)

    def y(self, f: float) -> float:
        """Pixels down from the top of the point at plot fraction ``f`` (0 at the bottom)."""
        return self.top + (1 - f) * self.plot_height


def preview(spec: dict[str, Any]) -> Preview | None:
    """The figure's still picture, or None when it has something the preview does not draw."""
    try:
        return _draw(spec)
    except (_Unsupported, ValueError, TypeError, KeyError, IndexError, ZeroDivisionError, OverflowError):
        # Data the picture does not read (category axes, text coordinates): the plain placeholder.
        return None


def _draw(spec: dict[str, Any]) -> Preview:
    layout = spec.get("layout", {}) or {}
    data = spec.get("data", []) or []
    if any(k in layout for k in UNSUPPORTED_LAYOUT) or spec.get("frames"):
        raise _Unsupported("layout feature")
    if any(t.get("type", "scatter") not in SUPPORTED_TRACES for t in data):
        raise _Unsupported("trace type")
    if any(t.get("visible") not in (None, True) for t in data):
        raise _Unsupported("hidden traces")
    template = ((layout.get("template") or {}).get("layout")) or {}
    height = layout.get("height")
    if not height:
        raise _Unsupported("no fixed height")
    font = {**(template.get("font") or {}), **(layout.get("font") or {})}
    size, ink = _style(font, {"color": PLOTLY_JS["font_color"]})
    colorway = layout.get("colorway") or template.get("colorway") or PLACEHOLDER_COLORWAY
    if any(re.fullmatch(r"#0000[0-9]{2}", str(c)) for c in colorway):
        colorway = PLACEHOLDER_COLORWAY
    plot_bg = layout.get("plot_bgcolor") or template.get("plot_bgcolor") or PLOTLY_JS["plot_bgcolor"]
    paper_bg = layout.get("paper_bgcolor") or template.get("paper_bgcolor") or PLOTLY_JS["paper_bgcolor"]
    axes = _axes(spec)
    bars = _colorbars(data, layout)
    legend = _legend(data, layout, colorway)

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
            if _anchored_left(ax, axes):
                need = w + 2 + (standoff + size * 0.9 if has_title else 0)
                left = max(left, margin["l"] + need)
        elif ax.domain is not None and (ax.props.get("showticklabels") is not False or has_title):
            need = (size * 1.25 if ax.props.get("showticklabels") is not False else 0) + (
                standoff + size * 1.1 if has_title else 0
            )
            if ax.props.get("tickangle"):
                need += size
            bottom = max(bottom, margin["b"] + need) if _anchored_bottom(ax, axes) else bottom
    right_px = margin["r"]
    scale = 1.0
    side = [b["width"] for b in bars] + ([legend["width"]] if legend and legend["side"] else [])
    if side:
        right_px += max(side)
        scale = 1 / 1.02
    if legend and not legend["side"]:
        bottom = max(bottom, margin["b"] + legend["rows"] * (size + 6) + 10)
    top = margin["t"]
    canvas = _Canvas(left, right_px, scale, top, float(height), bottom)

    text_parts: list[str] = []
    ink_parts: list[str] = [f'<rect width="100%" height="100%" fill="{html.escape(str(plot_bg))}" fill-opacity="0"/>']
    # Plot backgrounds, one per subplot, and grid lines.
    for xa in [a for a in axes.values() if a.name.startswith("x")]:
        ya = axes.get("yaxis" + xa.name[5:]) or axes["yaxis"]
        if not _used(xa, ya, data):
            continue
        ink_parts.append(_box(xa, ya, canvas, plot_bg))
    for ax in axes.values():
        _grid(ax, axes, canvas, template, ink_parts)
    for i, trace in enumerate(data):
        xa, ya = (axes[n] for n in _axis_ids(trace))
        kind = trace.get("type", "scatter")
        if kind == "heatmap":
            ink_parts.append(_heatmap(trace, xa, ya, canvas, layout))
            text_parts.append(_cell_text(trace, xa, ya, canvas, size))
        elif kind == "bar":
            ink_parts.append(_bars(trace, xa, ya, canvas, colorway[i % len(colorway)]))
        else:
            ink_parts.append(_scatter(trace, xa, ya, canvas, colorway[i % len(colorway)]))
            text_parts.append(_scatter_text(trace, xa, ya, canvas, size, ink))
    _shapes(layout.get("shapes") or [], axes, canvas, ink_parts)
    for ax in axes.values():
        text_parts.append(_axis_labels(ax, axes, canvas, size, ink))
    _titles(layout, template, canvas, ink, size, text_parts)
    _annotations(layout.get("annotations") or [], axes, canvas, size, ink, text_parts)
    for k, bar in enumerate(bars):
        text_parts.append(_colorbar(bar, canvas, size, ink, k))
    if legend:
        text_parts.append(_legend_svg(legend, canvas, size, ink))

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


def _anchored_left(ax: Axis, axes: dict[str, Axis]) -> bool:
    """Whether a y axis sits at the figure's left edge (its x axis starts at 0)."""
    anchor = ax.props.get("anchor", "x")
    xa = axes.get("xaxis" + anchor[1:]) if anchor and anchor.startswith("x") else None
    return xa is None or xa.domain[0] <= 0.01


def _anchored_bottom(ax: Axis, axes: dict[str, Axis]) -> bool:
    anchor = ax.props.get("anchor", "y")
    ya = axes.get("yaxis" + anchor[1:]) if anchor and anchor.startswith("y") else None
    return ya is None or ya.domain[0] <= 0.01


def _used(xa: Axis, ya: Axis, data: list[dict]) -> bool:
    return any(_axis_ids(t) == (xa.name, ya.name) for t in data) or (xa.name == "xaxis" and not data)


def _box(xa: Axis, ya: Axis, canvas: _Canvas, fill: Any) -> str:
    y0, y1 = canvas.y(ya.domain[1]) - canvas.top, canvas.y(ya.domain[0]) - canvas.top
    return (
        f'<rect x="{100 * xa.domain[0]:.4f}%" width="{100 * (xa.domain[1] - xa.domain[0]):.4f}%" '
        f'y="{y0:.1f}" height="{y1 - y0:.1f}" fill="{html.escape(str(fill))}"/>'
    )


def _grid(ax: Axis, axes: dict[str, Axis], canvas: _Canvas, template: dict, out: list[str]) -> None:
    base = template.get(ax.name[:5]) or {}
    props = {**base, **ax.props}
    if props.get("showgrid") is False and props.get("zeroline") is False:
        return
    other = _partner(ax, axes)
    color = html.escape(str(props.get("gridcolor", PLOTLY_JS["gridcolor"])))
    lines = []
    if props.get("showgrid", True) is not False:
        for v, _ in ax.ticks(_length(ax, canvas)):
            lines.append(_rule(ax, other, v, canvas, color, 1))
    if props.get("zeroline", True) is not False and not ax.log and ax.lo < 0 < ax.hi:
        zero = html.escape(str(props.get("zerolinecolor", PLOTLY_JS["zerolinecolor"])))
        lines.append(_rule(ax, other, 0.0, canvas, zero, props.get("zerolinewidth", 1)))
    out.extend(lines)


def _partner(ax: Axis, axes: dict[str, Axis]) -> Axis:
    anchor = ax.props.get("anchor")
    letter = "y" if ax.name.startswith("x") else "x"
    if anchor and anchor != "free":
        return axes.get(f"{letter}axis{anchor[1:]}") or axes[f"{letter}axis"]
    return axes.get(f"{letter}axis{ax.name[5:]}") or axes[f"{letter}axis"]


def _length(ax: Axis, canvas: _Canvas) -> float:
    span = ax.domain[1] - ax.domain[0]
    return span * (canvas.plot_height if ax.name.startswith("y") else 700)


def _rule(ax: Axis, other: Axis, v: float, canvas: _Canvas, color: str, width: float) -> str:
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


def _scale_of(trace: dict, layout: dict) -> tuple[list, float, float, float | None, dict, bool]:
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
        raise _Unsupported("named colour scale")
    return scale, lo, hi, mid, bar, show is not False


def _heatmap_range(trace: dict, layout: dict) -> tuple[float, float]:
    scale, lo, hi, mid, _, _ = _scale_of(trace, layout)
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


def _heatmap(trace: dict, xa: Axis, ya: Axis, canvas: _Canvas, layout: dict) -> str:
    z = array(trace["z"]).astype(float)
    scale, *_ = _scale_of(trace, layout)
    lo, hi = _heatmap_range(trace, layout)
    xe, ye = _edges(array(trace.get("x")), z.shape[1]), _edges(array(trace.get("y")), z.shape[0])
    side = int(math.sqrt(CELLS_MAX))
    cols, rows = _columns(xe, side), _columns(ye, side)
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


def _cell_text(trace: dict, xa: Axis, ya: Axis, canvas: _Canvas, size: float) -> str:
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
        raise _Unsupported("category cells")
    font_size, color = _style(trace.get("textfont") or {}, {"size": size * 0.9, "color": "#222"})
    parts = []
    for r in range(z.shape[0]):
        for c in range(z.shape[1]):
            label = _fill_template(template, z[r, c], None if text is None else text[r, c])
            if label:
                px, dx = canvas.x(xa.plot_fraction(xs[c]))
                parts.append(
                    _text(
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


def _dash(line: dict) -> str:
    dash = (line or {}).get("dash")
    pattern = {"dot": "2,3", "dash": "8,4", "dashdot": "8,3,2,3", "longdash": "12,4"}.get(dash or "solid")
    return f' stroke-dasharray="{pattern}"' if pattern else ""


def _points(trace: dict, xa: Axis, ya: Axis, canvas: _Canvas) -> list[tuple[float, float]]:
    x, y = array(trace.get("x")), array(trace.get("y"))
    if x is None or y is None or x.dtype == object or y.dtype == object:
        raise _Unsupported("category data")
    w, _h = 1000.0, canvas.plot_height
    out = []
    for a, b in zip(x.astype(float).ravel(), y.astype(float).ravel(), strict=False):
        if not (math.isfinite(a) and math.isfinite(b)) or (xa.log and a <= 0) or (ya.log and b <= 0):
            out.append((math.nan, math.nan))
            continue
        out.append((xa.plot_fraction(a) * w, canvas.y(ya.plot_fraction(b)) - canvas.top))
    return out


def _scaled(content: str, canvas: _Canvas) -> str:
    """Content in a box 1000 units wide that stretches with the plot area (lines keep their width)."""
    return (
        f'<svg width="100%" height="100%" viewBox="0 0 1000 {canvas.plot_height:.1f}" preserveAspectRatio="none">'
        f"{content}</svg>"
    )


def _scatter(trace: dict, xa: Axis, ya: Axis, canvas: _Canvas, default: str) -> str:
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
        for px, py in pts:
            if math.isnan(px):
                pen = "M"
                prev = None
                continue
            if shape == "hv" and prev is not None:
                d.append(f"H{px:.2f}V{py:.2f}")
            elif shape == "vh" and prev is not None:
                d.append(f"V{py:.2f}H{px:.2f}")
            else:
                d.append(f"{pen}{px:.2f} {py:.2f}")
            pen, prev = "L", (px, py)
        fill = ""
        if trace.get("fill") in ("toself", "tonexty", "tozeroy") and trace.get("fillcolor"):
            fill = f' fill="{html.escape(str(trace["fillcolor"]))}"'
        out.append(
            f'<path d="{"".join(d)}" fill="none"{fill} stroke="{color}" stroke-width="{line.get("width", 2)}"'
            f'{_dash(line)} vector-effect="non-scaling-stroke" stroke-linejoin="round" opacity="{opacity}"/>'
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
                raise _Unsupported("marker colours")
        if not isinstance(sizes, int | float):
            sizes_arr = array(sizes)
        for k, (px, py) in enumerate(pts):
            if math.isnan(px):
                continue
            s = float(sizes if isinstance(sizes, int | float) else sizes_arr.ravel()[k])
            c = color
            if many_colors:
                raise _Unsupported("marker colour scale")
            if "open" in symbol or marker.get("opacity") == 0:
                stroke = html.escape(str(edge.get("color") or c))
                out.append(
                    f'<path d="M{px:.2f} {py:.2f}h0" stroke="{stroke}" stroke-width="{s:.1f}" stroke-linecap="round" '
                    f'vector-effect="non-scaling-stroke" opacity="{0.6 * opacity}"/>'
                )
                continue
            cap = "square" if symbol.startswith("square") else "round"
            out.append(
                f'<path d="M{px:.2f} {py:.2f}h0" stroke="{c}" stroke-width="{s:.1f}" stroke-linecap="{cap}" '
                f'vector-effect="non-scaling-stroke" opacity="{float(marker.get("opacity", 1)) * opacity}"/>'
            )
    return _scaled("".join(out), canvas) if out else ""


def _scatter_text(trace: dict, xa: Axis, ya: Axis, canvas: _Canvas, size: float, ink: str) -> str:
    if "text" not in trace.get("mode", "") or trace.get("text") is None:
        return ""
    texts = trace["text"]
    texts = [texts] * len(array(trace.get("x"))) if isinstance(texts, str) else list(array(texts).ravel())
    x, y = array(trace["x"]).astype(float).ravel(), array(trace["y"]).astype(float).ravel()
    font_size, color = _style(trace.get("textfont") or {}, {"size": size, "color": ink})
    out = []
    for a, b, t in zip(x, y, texts, strict=False):
        if math.isfinite(a) and math.isfinite(b):
            px, dx = canvas.x(xa.plot_fraction(a))
            out.append(
                _text(
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


def _bars(trace: dict, xa: Axis, ya: Axis, canvas: _Canvas, default: str) -> str:
    x, y = array(trace.get("x")), array(trace.get("y"))
    if x is None or y is None or x.dtype == object or y.dtype == object or trace.get("orientation") == "h":
        raise _Unsupported("bars")
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


def _ref_fraction(ref: str, value: float, axes: dict[str, Axis], letter: str) -> float | None:
    """Plot fraction of a shape's or annotation's coordinate; None when it is relative to the figure."""
    if ref in (None, "paper"):
        return float(value)
    if ref == "container":
        return None
    name = f"{letter}axis{ref.split()[0][1:]}"
    ax = axes.get(name)
    if ax is None:
        raise _Unsupported("reference to a missing axis")
    if ref.endswith(" domain"):
        return ax.domain[0] + float(value) * (ax.domain[1] - ax.domain[0])
    return ax.plot_fraction(float(value))


def _shapes(shapes: list[dict], axes: dict[str, Axis], canvas: _Canvas, out: list[str]) -> None:
    for shape in shapes:
        kind = shape.get("type", "rect")
        fx = [_ref_fraction(shape.get("xref", "x"), shape[k], axes, "x") for k in ("x0", "x1")]
        fy = [_ref_fraction(shape.get("yref", "y"), shape[k], axes, "y") for k in ("y0", "y1")]
        if None in fx or None in fy:
            raise _Unsupported("shape placed on the figure")
        ys = [canvas.y(f) - canvas.top for f in fy]
        line = shape.get("line") or {}
        color = html.escape(str(line.get("color", "#444")))
        width = line.get("width", 2)
        if kind == "line":
            out.append(
                f'<line x1="{100 * fx[0]:.4f}%" x2="{100 * fx[1]:.4f}%" y1="{ys[0]:.1f}" y2="{ys[1]:.1f}" '
                f'stroke="{color}" stroke-width="{width}"{_dash(line)} opacity="{shape.get("opacity", 1)}"/>'
            )
        elif kind == "rect":
            fill = html.escape(str(shape.get("fillcolor", "none")))
            stroke = f' stroke="{color}" stroke-width="{width}"{_dash(line)}' if width else ""
            out.append(
                f'<rect x="{100 * min(fx):.4f}%" width="{100 * abs(fx[1] - fx[0]):.4f}%" y="{min(ys):.1f}" '
                f'height="{abs(ys[1] - ys[0]):.1f}" fill="{fill}"{stroke} opacity="{shape.get("opacity", 1)}"/>'
            )
        else:
            raise _Unsupported("shape type")


def _axis_labels(ax: Axis, axes: dict[str, Axis], canvas: _Canvas, size: float, ink: str) -> str:
    other = _partner(ax, axes)
    out = []
    title = ax.props.get("title") or {}
    title = title if isinstance(title, dict) else {"text": title}
    standoff = title.get("standoff", 10)
    ticks = ax.ticks(_length(ax, canvas))
    if ax.name.startswith("x"):
        base = canvas.y(other.domain[0])
        for v, label in ticks:
            px, dx = canvas.x(ax.plot_fraction(v))
            out.append(_text(px, dx, base + 3 + size, label, size=size, color=ink, anchor="middle"))
        if title.get("text"):
            px, dx = canvas.x((ax.domain[0] + ax.domain[1]) / 2)
            below = base + (size * 1.25 if ticks else 0) + standoff + size
            tsize, tcolor = _style(title.get("font") or {}, {"size": size, "color": ink})
            out.append(_text(px, dx, below, title["text"], size=tsize, color=tcolor, anchor="middle"))
    else:
        px, dx = canvas.x(other.domain[0])
        width = 0.0
        for v, label in ticks:
            y = canvas.y(ax.plot_fraction(v))
            out.append(_text(px, dx - 4, y, label, size=size, color=ink, anchor="end", baseline="central"))
            width = max(width, text_width(label, size))
        if title.get("text"):
            y = canvas.y((ax.domain[0] + ax.domain[1]) / 2)
            tsize, tcolor = _style(title.get("font") or {}, {"size": size, "color": ink})
            out.append(
                _text(
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


def _titles(layout: dict, template: dict, canvas: _Canvas, ink: str, size: float, out: list[str]) -> None:
    title = layout.get("title") or {}
    title = title if isinstance(title, dict) else {"text": title}
    if not title.get("text"):
        return
    tsize, tcolor = _style(title.get("font") or {}, {"size": size * 17 / 12, "color": ink})
    pad = title.get("pad") or {}
    y = float(pad.get("t", 0)) + tsize * 0.9
    x_pct = f"{100 * float(title.get('x', 0.5)):.3f}%" if title.get("xref") == "container" else None
    anchor = {"left": "start", "right": "end"}.get(title.get("xanchor", "left"), "middle")
    if x_pct is None:
        x_pct, dx = canvas.x(float(title.get("x", 0.5)))
    else:
        dx = 0.0
    dx += float(pad.get("l", 0)) if anchor == "start" else 0.0
    out.append(_text(x_pct, dx, y, title["text"], size=tsize, color=tcolor, anchor=anchor))
    sub = title.get("subtitle") or {}
    if sub.get("text"):
        ssize, scolor = _style(sub.get("font") or {}, {"size": size, "color": ink})
        lines = len(_lines(title["text"]))
        out.append(
            _text(
                x_pct,
                dx,
                y + tsize * 1.2 * (lines - 1) + ssize * 1.45,
                sub["text"],
                size=ssize,
                color=scolor,
                anchor=anchor,
            )
        )


def _annotations(
    items: list[dict], axes: dict[str, Axis], canvas: _Canvas, size: float, ink: str, out: list[str]
) -> None:
    for a in items:
        if a.get("showarrow", True) or a.get("visible") is False:
            if a.get("visible") is False:
                continue
            raise _Unsupported("arrow annotation")
        fx = _ref_fraction(a.get("xref", "paper"), a.get("x", 0.5), axes, "x")
        fy = _ref_fraction(a.get("yref", "paper"), a.get("y", 0.5), axes, "y")
        if fx is None:
            px, dx = f"{100 * float(a.get('x', 0.5)):.3f}%", 0.0
        else:
            px, dx = canvas.x(fx)
        y = canvas.y(fy) if fy is not None else canvas.height * (1 - float(a.get("y", 0.5)))
        asize, acolor = _style(a.get("font") or {}, {"size": size, "color": ink})
        n = len(_lines(a.get("text")))
        yanchor = a.get("yanchor", "middle")
        first = {"top": y + asize * 0.95, "bottom": y - asize * 1.2 * (n - 1) - asize * 0.3}.get(
            yanchor, y - asize * 1.2 * (n - 1) / 2 + asize * 0.35
        )
        anchor = {"left": "start", "right": "end"}.get(a.get("xanchor", "center"), "middle")
        shift = float(a.get("xshift", 0))
        out.append(
            _text(
                px,
                dx + shift,
                first - float(a.get("yshift", 0)),
                a.get("text", ""),
                size=asize,
                color=acolor,
                anchor=anchor,
            )
        )


def _colorbars(data: list[dict], layout: dict) -> list[dict]:
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
        scale, _, _, _, props, show = _scale_of(trace, layout)
        if not show:
            continue
        lo, hi = _heatmap_range(trace, layout_with_traces)
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
        raise _Unsupported("several colour bars")
    for bar in bars:
        size = float(((layout.get("font") or {}).get("size")) or 12)
        tick_w = max((text_width(t, size) for _, t in bar["ticks"]), default=0)
        title_w = size * 1.3 + 6 if bar["title"].get("text") else 0
        bar["width"] = COLORBAR_PX + 4 + tick_w + title_w
    return bars


def _colorbar(bar: dict, canvas: _Canvas, size: float, ink: str, k: int) -> str:
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
        out.append(_text(px, x + 33, y, label, size=size, color=ink, anchor="start", baseline="central"))
        width = max(width, text_width(label, size))
    if bar["title"].get("text"):
        out.append(
            f'<svg x="{px}" overflow="visible"><text transform="translate({x + 36 + width + size:.1f},'
            f'{(y0 + y1) / 2:.1f}) rotate(90)" font-size="{size:.1f}" fill="{html.escape(ink)}" '
            f'text-anchor="middle">{_esc(bar["title"]["text"])}</text></svg>'
        )
    return "".join(out)


def _legend(data: list[dict], layout: dict, colorway: list[str]) -> dict | None:
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
        raise _Unsupported("legend above the plot")
    return out


def _legend_svg(legend: dict, canvas: _Canvas, size: float, ink: str) -> str:
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
                    f'stroke-width="2"{_dash({"dash": it["dash"]})}/>'
                )
            if "markers" in it["mode"]:
                swatch += f'<circle cx="{dx + 20:.1f}" cy="{y:.1f}" r="4" fill="{color}"/>'
        out.append(f'<svg x="{px}" overflow="visible">{swatch}</svg>')
        out.append(_text(px, dx + LEGEND_SWATCH_PX, y, it["name"], size=legend["size"], color=ink, baseline="central"))
    return "".join(out)

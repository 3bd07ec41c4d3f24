"""Shared parts of a still picture: constants, the :class:`Preview`, values, colours, PNG, SVG text, canvas."""

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
# Larger heatmaps are drawn from a strided sample: no more image rows than the plot has pixels,
# and at most COLUMNS_MAX columns (a picture shown for two seconds, stretched to the width).
COLUMNS_MAX = 480
LINE_BUCKETS = 500  # a line of more points keeps each of this many columns' first, lowest, highest and last
PICTURE_MAX_BYTES = 40_000  # a figure whose picture would be larger keeps the plain placeholder
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


def text_lines(text: str | None) -> list[str]:
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
    """A PNG file of an RGBA image (rows top to bottom).

    The rows are written unfiltered or all with PNG's "Up" filter (type 2: each row's difference
    from the row above, byte by byte, modulo 256), whichever compresses smaller: smooth heatmaps
    take a fraction of their unfiltered size, striped ones stay as they were.
    """
    h, w, _ = rgba.shape
    flat = rgba.reshape(h, w * 4).astype(np.uint8)
    up = flat.copy()
    up[1:] -= flat[:-1]  # uint8 arithmetic wraps: modulo 256, as the filter is defined
    idat = min(
        (
            zlib.compress(np.concatenate([np.full((h, 1), kind, np.uint8), rows], axis=1).tobytes(), 6)
            for kind, rows in ((0, flat), (2, up))
        ),
        key=len,
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


# ------------------------------------------------------------------ SVG text helpers


def esc(text: Any) -> str:
    return html.escape(_plain(text), quote=True)


def font_style(font: dict, default: dict) -> tuple[float, str]:
    size = float((font or {}).get("size") or default.get("size") or 12)
    color = (font or {}).get("color") or default.get("color") or "#2a3f5f"
    return size, str(color)


def svg_text(
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
    lines = text_lines(text)
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
            f'<tspan x="0" dy="{0 if i == 0 else size * 1.2:.1f}">{esc(line)}</tspan>' for i, line in enumerate(lines)
        )
        return (
            f'<svg x="{x}" y="0" overflow="visible"><text transform="translate({dx:.1f},{y:.1f}) rotate(-90)" '
            f"{attrs}>{tspans}</text></svg>"
        )
    tspans = "".join(
        f'<tspan x="{x}" dx="{dx:.1f}" {"dy" if i else "y"}="{size * 1.2 if i else y:.1f}">{esc(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    return f"<text {attrs}>{tspans}</text>"


# ------------------------------------------------------------------ canvas


class Canvas:
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

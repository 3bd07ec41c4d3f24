"""The shared look of every figure: fonts, titles that fit, legends clear of the plot, readable numbers.

Plotly neither wraps text nor tells Python how wide a chart is drawn, so a title is
wrapped for the narrowest chart its mode is made for (``Look.width``) at a
conservative width per character, and the top margin is computed from the lines it
holds: title, subtitle, then whatever sits just above the plot (subplot titles,
labels of marked lines). Legends go under the plot, where they cover no data.
"""

from __future__ import annotations

import functools
import json
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from posviz.figures.plotly_private import lazy_figure, plain_spec

LINE_EM = 1.3  # Plotly's line height for text with <br>
# The app's own font (Streamlit serves it, so every viewer has it); measured mean
# advance of a character in our titles: 0.38-0.42 em. 0.5 em leaves room for the
# sans-serif fallback (DejaVu Sans, about 0.5 em). Chinese text falls back, glyph by glyph,
# to a system CJK font (none is fetched from another host); a CJK character is 1 em wide.
CJK_FONTS = '"Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei"'
FONT = f'"Source Sans", "Source Sans Pro", {CJK_FONTS}, sans-serif'
CHAR_EM = 0.5  # per narrow character; a wide (CJK) character counts twice
TITLE_PAD = 10  # px above the title
GAP = 12  # px between stacked blocks (title, subtitle, subplot titles, plot)
LEGEND_SYMBOL = 40  # px a legend entry spends beside its text
SUBTITLE_COLOR = "#444"
BAR_THICKNESS = 14  # px, horizontal colour bars
BASE_BOTTOM = 60  # px under the plot that a chart's height already counts on
# A walk-through's step figure in lecture mode: with its Previous / Next row paged to the top of a
# 1280 x 720 projector (posviz.ui.sections), the figure, titles included, fits below it (~215 px down).
WALK_LECTURE_HEIGHT = 400


@dataclass(frozen=True)
class Look:
    """Font sizes (px), heights and the narrowest chart width the text is wrapped for.

    Lecture mode: 20 px, the page's body text there (``posviz.ui.chrome``), and
    wrapped for a 1024 px projector with the sidebar collapsed. Otherwise wrapped for
    1024 px with the sidebar open: the page's column is 564 px wide there.
    """

    font: int
    title: int
    height: int
    line: int
    width: int = 560


def look(lecture: bool = False) -> Look:
    if lecture:
        return Look(font=20, title=26, height=720, line=4, width=900)
    return Look(font=13, title=16, height=460, line=2, width=560)


# ------------------------------------------------------------------ panels


def on_panel(panel: int) -> dict[str, str]:
    """A trace's axes in panel ``panel`` of a grid (row by row from 1): ``xaxis="x2", yaxis="y2"``."""
    suffix = "" if panel == 1 else str(panel)
    return dict(xaxis=f"x{suffix}", yaxis=f"y{suffix}")


@functools.lru_cache(maxsize=64)
def _grid(rows: int, cols: int, titles: int, horizontal: float, vertical: float) -> str:
    placeholders = [f"title {i}" for i in range(titles)]  # the real titles are filled in per figure
    fig = make_subplots(
        rows=rows, cols=cols, subplot_titles=placeholders, horizontal_spacing=horizontal, vertical_spacing=vertical
    )
    return json.dumps(fig.layout.to_plotly_json())


def subplot_grid(
    rows: int, cols: int, *, titles: list[str], horizontal_spacing: float, vertical_spacing: float = 0.0
) -> dict[str, Any]:
    """``make_subplots``' layout as plain data (a fresh copy), its panel titles filled in.

    Panel ``p`` (row by row from 1) has axes ``xaxis{p}``/``yaxis{p}`` (no number for the
    first), its traces ``xaxis="x{p}", yaxis="y{p}"`` (:func:`on_panel`). A grid is laid out
    once per shape (``make_subplots`` costs 7 to 16 ms).
    """
    layout = json.loads(_grid(rows, cols, len(titles), horizontal_spacing, vertical_spacing))
    for annotation, text in zip(layout.get("annotations", []), titles, strict=True):
        annotation["text"] = text
    return layout


def _parts(fig: go.Figure | dict[str, Any]) -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
    """A figure's traces and layout as plain data (the caller's to edit), and its frames."""
    spec = plain_spec(fig)
    if spec is not None or isinstance(fig, dict):
        spec = fig if spec is None else spec
        rest = {"frames": spec["frames"]} if spec.get("frames") else {}
        return list(spec.get("data", [])), spec.get("layout", {}), rest
    rest = {"frames": [frame.to_plotly_json() for frame in fig.frames]} if fig.frames else {}
    return [trace.to_plotly_json() for trace in fig.data], fig.layout.to_plotly_json(), rest


# ------------------------------------------------------------------ text


def subtitle_lines(*parts: str | None) -> str | None:
    """Subtitle parts, one per line (plotly does not wrap text); None when there are none."""
    return "<br>".join(p for p in parts if p) or None


def wrap(text: str | None, *, size: float, width: float) -> str:
    """``text`` with ``<br>`` inserted so no line is wider than ``width`` px at font ``size`` px.

    Existing ``<br>`` are kept. A line breaks after a clause ("; ", ": ", ", ", or Chinese
    "；", "：", "，", "。") when one ends in the second half of the line, else at the last
    space, or after the last Chinese character, that fits; a single word longer than the
    line stays whole. A wide (CJK) character counts as two narrow ones.
    """
    if not text:
        return ""
    budget = max(12, int(width / (CHAR_EM * size)))
    return "<br>".join(line for part in text.split("<br>") for line in _wrap_line(part, budget))


_CLAUSES = ("; ", ": ", ", ", "；", "：", "，", "。")
_NO_LINE_START = set("，。；：、）》”’！？")  # Chinese punctuation that never begins a line


def _wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in "WF"


def text_width(text: str) -> int:
    """``text``'s width in narrow characters: a wide (CJK) character counts twice."""
    return sum(2 if _wide(ch) else 1 for ch in text)


def _fits(line: str, budget: int) -> int:
    """How many leading characters of ``line`` are at most ``budget`` narrow characters wide."""
    used = 0
    for i, ch in enumerate(line):
        used += 2 if _wide(ch) else 1
        if used > budget:
            return i
    return len(line)


def _wrap_line(line: str, budget: int) -> list[str]:
    out: list[str] = []
    while _fits(line, budget) < len(line):
        n = _fits(line, budget)
        head = line[: n + 1]
        cut = max((head.rfind(mark) + len(mark) - (mark[-1] == " ") for mark in _CLAUSES), default=-1)
        if cut < n // 2:
            cut = head.rfind(" ")
            after_wide = (i + 1 for i in range(n) if _wide(head[i]) and head[i + 1] not in _NO_LINE_START)
            cut = max(cut, max(after_wide, default=-1))
        if cut <= 0:
            cut = line.find(" ", n)
            if cut < 0:
                break
        out.append(line[:cut].rstrip())
        line = line[cut:].lstrip()
    out.append(line)
    return out


def line_count(text: str | None) -> int:
    return text.count("<br>") + 1 if text else 0


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def number(x: float, digits: int = 4, *, power: bool = False) -> str:
    """A number for prose, legends and titles: ``digits`` significant digits, never ``4.712e+04``.

    47123.9 -> "47124", 0.0123456 -> "0.01235", 1e-07 -> "10⁻⁷", 3e9 -> "3·10⁹";
    ``power``: always as a power of ten (the ticks of an axis that needs it anywhere).
    """
    x = float(x)
    if not math.isfinite(x):
        return {math.inf: "∞", -math.inf: "−∞"}.get(x, "nan")
    if x == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(x)))
    if -4 <= magnitude < 7 and not power:
        decimals = max(0, digits - 1 - magnitude)
        text = f"{x:.{decimals}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return text.replace("-", "−")
    mantissa = f"{x / 10**magnitude:.{max(digits - 1, 0)}f}".rstrip("0").rstrip(".")
    exponent = str(magnitude).translate(_SUPERSCRIPT)
    return ("" if mantissa == "1" else f"{mantissa}·").replace("-", "−") + f"10{exponent}"


# ------------------------------------------------------------------ log axes


def log_ticks(lo: float, hi: float) -> tuple[list[float], list[str]]:
    """Tick values and full labels for a log axis over ``[lo, hi]`` (both > 0).

    One tick per decade when the range spans two decades or more, else 1-2-5 steps,
    so no axis shows Plotly's bare minor labels ("2 5 9").
    """
    lo, hi = min(lo, hi), max(lo, hi)
    first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    steps = (1.0,) if math.log10(hi / lo) >= 2 else (1.0, 2.0, 5.0)
    vals = [s * 10.0**e for e in range(first, last + 1) for s in steps]
    vals = [v for v in vals if lo * 0.999 <= v <= hi * 1.001] or [10.0**first]
    power = vals[0] < 1e-4 or vals[-1] >= 1e7  # one notation along the axis
    return vals, [number(v, 3, power=power) for v in vals]


def _prop(trace: Any, name: str) -> Any:
    """A trace's property, from a trace object or a trace as plain data (None when unset)."""
    return trace.get(name) if isinstance(trace, dict) else getattr(trace, name, None)


def _axis_values(data: list[Any], name: str) -> np.ndarray:
    """Positive finite values the traces put on axis ``name`` (``xaxis``, ``yaxis2``, ...)."""
    letter, suffix = name[0], name[5:]
    ref = letter + suffix
    chunks = []
    for trace in data:
        if (_prop(trace, f"{letter}axis") or letter) != ref:
            continue
        values = _prop(trace, letter)
        if values is None:
            continue
        if isinstance(values, list | tuple):
            values = [np.nan if v is None else v for v in values]
        arr = np.asarray(values)
        if arr.dtype.kind in "iuf":
            arr = arr.astype(np.float64).ravel()
            chunks.append(arr[np.isfinite(arr) & (arr > 0)])
    return np.concatenate(chunks) if chunks else np.zeros(0)


def _log_tick_props(data: list[Any], layout: dict) -> dict[str, dict]:
    """``{axis name: tick props}``: full labels for every log axis of ``layout`` without explicit ticks."""
    out = {}
    for name, axis in layout.items():
        if not re.fullmatch(r"[xy]axis\d*", name) or axis.get("type") != "log":
            continue
        if axis.get("tickvals") is not None or axis.get("dtick") is not None:
            continue
        if axis.get("range") is not None:
            lo, hi = (10.0**v for v in axis["range"])
        else:
            values = _axis_values(data, name)
            if not values.size:
                continue
            lo, hi = float(values.min()), float(values.max())
        vals, text = log_ticks(lo, hi)
        out[name] = dict(tickvals=vals, ticktext=text, minor=dict(showgrid=False, ticks=""))
    return out


# ------------------------------------------------------------------ axes


def axis_name(letter: str, panel: int = 1) -> str:
    """Layout name of a panel's ``"x"`` or ``"y"`` axis: ``xaxis``, ``xaxis2``, ... (make_subplots numbers
    panels row by row from 1)."""
    return f"{letter}axis" if panel == 1 else f"{letter}axis{panel}"


def _layout_axes(layout: dict) -> list[str]:
    """Every x and y axis of a layout as plain data; ``xaxis`` and ``yaxis`` always (a figure has them)."""
    named = [k for k in layout if _AXIS.fullmatch(k)]
    return sorted({"xaxis", "yaxis", *named}, key=lambda k: (k[0], len(k), k))


_AXIS = re.compile(r"[xy]axis\d*")


def _band_above_plot(annotations: list[dict], font: int) -> int:
    """Height (px) of the annotations that sit on top of the plot area: subplot titles, line labels."""
    band = 0.0
    for a in annotations:
        yref = a.get("yref") or "y"
        if not (yref == "paper" or yref.endswith("domain")) or a.get("y") is None or a["y"] < 0.98:
            continue
        above = {"bottom": 1.0, "top": 0.0}.get(a.get("yanchor") or "auto", 0.5)
        height = line_count(a.get("text") or " ") * LINE_EM * font
        band = max(band, above * height + abs(a.get("yshift") or 0) + 4)
    return int(math.ceil(band))


def _legend_entries(data: list[Any], layout: dict) -> list[str]:
    if layout.get("showlegend") is False:
        return []
    names = []
    for trace in data:
        shown, name = _prop(trace, "showlegend"), _prop(trace, "name")
        if shown is False or not name or (_prop(trace, "type") or "scatter") in ("heatmap", "histogram2d"):
            continue
        if shown is None and len(data) == 1:
            continue  # plotly shows no legend for a lone trace
        names.append(name)
    return names


def legend_rows(names: list[str], *, font: int, width: float) -> int:
    """How many rows a horizontal legend of ``names`` takes in ``width`` px (greedy, as Plotly fills them)."""
    rows, used = 1, 0.0
    for name in names:
        entry = LEGEND_SYMBOL + CHAR_EM * font * text_width(name.replace("<br>", " "))
        if used and used + entry > width:
            rows, used = rows + 1, 0.0
        used += entry
    return rows


def _bars_below(layout: dict) -> list[str]:
    """Colour axes whose colour bar lies horizontally under the plots."""
    return [
        name
        for name, axis in layout.items()
        if re.fullmatch(r"coloraxis\d*", name) and axis.get("colorbar", {}).get("orientation") == "h"
    ]


def title_font(title: str, lk: Look) -> int:
    """The title's font size: ``lk.title``, smaller (down to the body size) so that a long title fits one line."""
    longest = max((text_width(line) for line in (title or "").split("<br>")), default=1)
    fits = (lk.width - 2 * TITLE_PAD) / (CHAR_EM * max(longest, 1))
    return int(max(lk.font, min(lk.title, math.floor(fits))))


def _baseline_top(lk: Look) -> float:
    """The top margin of a chart with a one-line title and a one-line subtitle."""
    return TITLE_PAD + LINE_EM * (lk.title + lk.font) + 0.5 * lk.font + GAP


def _left_edge(y: float, yanchor: str) -> dict:
    """Placement at the figure's left edge, ``y`` of the way up (0 bottom, 1 top), in container coordinates:
    the title and the legend stay put however the plot area moves."""
    return dict(x=0, xanchor="left", xref="container", y=y, yanchor=yanchor, yref="container")


def _merge(into: dict, extra: dict) -> dict:
    """``extra`` merged into ``into``, nested dicts key by key (as ``update_layout`` merges); returns ``into``."""
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value
    return into


def finish(
    fig: go.Figure | dict, *, title: str, subtitle: str | None, lecture: bool, height: int | None = None, plain=False
) -> Any:
    """Shared title, fonts, legend and margins; ``subtitle`` lines are separated by ``<br>``.

    Title and subtitle are wrapped to fit the chart and stacked from the top; the top
    margin makes room for them and for subplot titles; a legend goes under the plot;
    log axes get full tick labels; annotations take the figure's font size. Call it
    after the traces and annotations are added, and use what it returns (``plain``: the spec, not a figure).

    ``fig`` is a ``go.Figure`` or a spec built as plain data (``dict(data=..., layout=...)``),
    which this takes over. The layout is edited as plain data and the figure built once from
    it, not validated again (:mod:`posviz.figures.plotly_private`): Plotly's own updates cost
    about 10 ms a figure here (30 ms for a grid of panels). ``tests/app/test_specs.py`` and
    ``tests/figures/test_plain_specs.py`` validate what the pages send.
    """
    lk = look(lecture)
    data, layout, rest = _parts(fig)
    title_size = title_font(title, lk)
    title_text = wrap(title, size=title_size, width=lk.width - 2 * TITLE_PAD)
    sub_text = wrap(subtitle, size=lk.font, width=lk.width - 2 * TITLE_PAD)
    annotations = layout.get("annotations", [])
    for a in annotations:
        a.setdefault("font", {})["size"] = lk.font
    for name, props in _log_tick_props(data, layout).items():
        _merge(layout.setdefault(name, {}), props)
    header = TITLE_PAD + line_count(title_text) * LINE_EM * title_size
    if sub_text:
        header += 0.5 * lk.font + line_count(sub_text) * LINE_EM * lk.font
    top = int(math.ceil(header + GAP + _band_above_plot(annotations, lk.font) + (GAP if annotations else 0)))
    names = _legend_entries(data, layout)
    legend_band = legend_rows(names, font=lk.font, width=lk.width - 40) * LINE_EM * lk.font + 8 + GAP if names else 0
    bars = _bars_below(layout)
    bar_band = 2 * LINE_EM * lk.font + BAR_THICKNESS + 16 if bars else 0
    axis_below = 3.2 * lk.font + 24  # tick labels, standoff and axis title under the plot
    bottom = int(math.ceil(axis_below + bar_band + legend_band)) if names or bars else 20
    height = int((height or lk.height) + max(0, top - _baseline_top(lk)) + max(0, bottom - BASE_BOTTOM))
    if names:
        legend = dict(orientation="h", **_left_edge(0, "bottom"), bgcolor="rgba(0,0,0,0)", font=dict(size=lk.font))
        _merge(layout, dict(legend=legend))
    for name in bars:  # over the legend, under the axis title
        bar = dict(y=(legend_band + 4) / height, yref="container", yanchor="bottom", thickness=BAR_THICKNESS)
        _merge(layout[name], dict(colorbar=bar))
    title_spec = dict(
        text=title_text,
        font=dict(size=title_size),
        **_left_edge(1, "top"),
        pad=dict(l=TITLE_PAD, t=TITLE_PAD),
        subtitle=dict(text=sub_text, font=dict(size=lk.font, color=SUBTITLE_COLOR)),
    )
    _merge(
        layout,
        dict(
            title=title_spec,
            font=dict(size=lk.font, family=FONT),
            height=height,
            margin=dict(l=20, r=20, t=top, b=bottom),
            hoverlabel=dict(font=dict(size=lk.font)),
        ),
    )
    for name in _layout_axes(layout):
        _merge(layout.setdefault(name, {}), dict(automargin=True, title=dict(standoff=8)))
    spec = dict(data=data, layout=layout, **rest)
    return spec if plain else lazy_figure(spec)


def retitle(fig: go.Figure, title: str, *, lecture: bool) -> go.Figure:
    """Give a finished figure another title, sized and wrapped as :func:`finish` does (the margins stay)."""
    lk = look(lecture)
    size = title_font(title, lk)
    return fig.update_layout(title_text=wrap(title, size=size, width=lk.width - 2 * TITLE_PAD), title_font_size=size)

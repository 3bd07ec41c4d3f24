"""The one heatmap builder every page uses, and the shared look.

Every matrix figure has the true query positions ``i`` on the y axis and key
positions ``j`` on the x axis (also when strided), hover with ``i``, ``j``,
``r = j - i`` and the value, float32 data, and says when it is a sample.
Colour scales fit the data: a diverging scale for signed values, its one-sided
half for values of one sign, optionally a log scale of the magnitude (stated on
the colour bar); masked cells have their own colour and a legend entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posviz.figures.colors import (
    DIVERGING,
    LOG_DECADES,
    MASK_COLOR,
    MASK_EDGE,
    NEGATIVE,
    POSITIVE,
    SEQUENTIAL,
    add_masks,
    colors_for,
    log_colors,
    mask_traces,
    plain,
)
from posviz.figures.data import as_array, compact
from posviz.figures.layout import Look, axis_name, finish, look, number, on_panel, subplot_grid, subtitle_lines
from posviz.figures.memory import bytes_figure, human_bytes
from posviz.i18n import N_, _

# Re-exported: the figure modules and the ui import these from here.
__all__ = [
    "DIVERGING",
    "MASK_COLOR",
    "MASK_EDGE",
    "NEGATIVE",
    "POSITIVE",
    "SEQUENTIAL",
    "Look",
    "as_array",
    "bytes_figure",
    "compact",
    "finish",
    "human_bytes",
    "look",
    "mask_traces",
    "number",
    "subtitle_lines",
]
MAX_TEXT_CELLS = 24  # write values into cells up to 24 x 24


_ORDINALS = {"st": N_("{n}st"), "nd": N_("{n}nd"), "rd": N_("{n}rd"), "th": N_("{n}th")}


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 22nd ... in English; in Chinese the bare number (the text around it
    says 第 or 每 ... 个: "every {nth}, plus the last" reads 每 {nth} 个取一个)."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return _(_ORDINALS[suffix]).format(n=n)


# The hover's first lines over a matrix cell (Plotly's %{...} fields are kept in every language).
QUERY_KEY_HOVER = N_("query i = %{y}<br>key j = %{x}")


def log_name(value_name: str) -> str:
    """A colour bar's title when it colours by log10 |value|."""
    return _("{name} (log)").format(name=value_name)


def sample_note(q_pos, k_pos, q_len: int, k_len: int, *, pooled: bool = False) -> str | None:
    """Caption for a strided or windowed view, or None when every position is shown.

    ``pooled``: each cell is the mean over the block of positions it starts
    (:mod:`posviz.encodings.pooling`), not the value at its position alone.
    """
    parts, zoomed = [], False
    axes = (
        (N_("{shown} of {length} queries{window} ({every})"), "i", q_pos, q_len),
        (N_("{shown} of {length} keys{window} ({every})"), "j", k_pos, k_len),
    )
    for part, letter, pos, length in axes:
        pos = as_array(pos)
        if len(pos) < length:
            stride = int(pos[1] - pos[0]) if len(pos) > 1 else length
            span = int(pos[-1] - pos[0]) + 1 if len(pos) else 0
            # a zoom when more than a stride of the range is left out (a plain stride may skip the last)
            window = ""
            if span + stride <= length:
                window = _(" in the window {letter} = {first}…{last}").format(
                    letter=letter, first=int(pos[0]), last=int(pos[-1])
                )
            zoomed |= bool(window)
            if stride == 1:
                every = _("every one")
            elif pooled:
                every = _("each cell the mean of the {stride} from it").format(stride=stride)
            else:
                every = _("every {nth}, plus the last").format(nth=ordinal(stride))
            parts.append(_(part).format(shown=len(pos), length=length, window=window, every=every))
    if not parts:
        return None
    kind = _("Block means: ") if pooled else _("Strided sample: ")
    return (_("Window: ") if zoomed else kind) + _("; ").join(parts)


def _heatmap_trace(
    z, q_pos, k_pos, *, value_name: str, value_format: str, colour=None, text: bool = True, **props
) -> dict[str, Any]:
    """A heatmap trace of ``z`` as plain data; ``colour`` (same shape), when given, is what the colour
    scale shows (log10 |z|). ``props``: further trace properties (a named ``colorscale`` is spelled out)."""
    q = as_array(q_pos).astype(np.int64)
    k = as_array(k_pos).astype(np.int64)
    rel = compact(k[None, :] - q[:, None])  # (q, k), r = j - i
    z = compact(z)
    trace = dict(type="heatmap", x=compact(k), y=compact(q), **plain(props))
    small = z.shape[0] <= MAX_TEXT_CELLS and z.shape[1] <= MAX_TEXT_CELLS and text
    if colour is not None:  # colours and values differ: the values travel as customdata
        trace["customdata"] = np.stack([rel.astype(np.float32), z.astype(np.float32)], axis=-1)
        trace["hovertemplate"] = (
            _(QUERY_KEY_HOVER) + "<br>r = j − i = %{customdata[0]}"
            f"<br>{value_name} = %{{customdata[1]:{value_format}}}<extra></extra>"
        )
        if small:
            trace["text"] = [[_cell(v, value_format) for v in row] for row in z]
            trace["texttemplate"] = "%{text}"
        trace["z"] = compact(colour)
        return trace
    if small:
        trace["texttemplate"] = f"%{{z:{value_format}}}"
    if value_name == "r":  # the matrix is r itself: no second copy of it for the hover
        trace["hovertemplate"] = _(QUERY_KEY_HOVER) + "<br>r = j − i = %{z}<extra></extra>"
    else:
        trace["customdata"] = rel
        trace["hovertemplate"] = (
            _(QUERY_KEY_HOVER) + "<br>r = j − i = %{customdata}"
            f"<br>{value_name} = %{{z:{value_format}}}<extra></extra>"
        )
    trace["z"] = z
    return trace


def _coloraxis(colors: dict[str, Any], bar: dict[str, Any]) -> dict[str, Any]:
    """A layout colour axis from :func:`colors_for`'s (or :func:`log_colors`') scale and a colour bar."""
    names = dict(colorscale="colorscale", zmin="cmin", zmax="cmax", zmid="cmid")
    return plain({names[k]: v for k, v in colors.items()} | dict(colorbar=bar))


def _cell(v: float, value_format: str) -> str:
    return "" if not np.isfinite(v) else format(float(v), value_format.replace("d", ".0f"))


def _axes(q_pos, k_pos) -> dict[str, Any]:
    """Position axes as layout data: whole-number ticks, queries top to bottom, no grid or zero lines over cells."""
    layout = {}
    for letter, title, pos, extra in (
        ("x", _("key position j"), k_pos, {}),
        ("y", _("query position i"), q_pos, {"autorange": "reversed"}),
    ):
        pos = as_array(pos)
        whole = {"dtick": 1} if len(pos) and pos.max() - pos.min() < 10 else {}  # no ticks at 0.5
        axis = dict(title=dict(text=title), automargin=True, showgrid=False, zeroline=False, **whole, **extra)
        layout[axis_name(letter)] = axis
    return layout


def heatmap(
    z,
    *,
    q_pos,
    k_pos,
    title: str,
    value_name: str,
    palette: str = "sequential",
    q_len: int | None = None,
    k_len: int | None = None,
    subtitle: str | None = None,
    lecture: bool = False,
    zmin: float | None = None,
    zmax: float | None = None,
    value_format: str = ".3g",
    mask=None,
    mask_label: str | None = None,
    log_scale: bool = False,
    pooled: bool = False,
    height: int | None = None,
) -> go.Figure:
    """A ``(q, k)`` matrix as a heatmap on its true positions.

    Args:
        z: (len(q_pos), len(k_pos)) values; NaN cells are left blank.
        mask: (len(q_pos), len(k_pos)) bool; those cells are drawn in flat grey
            with a legend entry (``mask_label`` says what they are), outlined when few.
        q_pos, k_pos: the positions the rows and columns stand for.
        palette: ``"sequential"`` (indices) or ``"diverging"`` (signed, centred at 0;
            one-signed data get the matching half).
        q_len, k_len: full lengths, to say when the view is a strided sample.
        log_scale: colour by ``log10 |z|`` over the top 4 decades (one-signed data,
            e.g. attention weights); hover and colour bar keep the true values.
        pooled: each cell holds the mean over the block of positions it starts (the caption says so).
        height: the plot's height in px, when not the look's (a walk-through's step in lecture mode).
    """
    z = as_array(z).astype(np.float32) if mask is not None or log_scale else z
    masked = False
    if mask is not None:
        mask = as_array(mask).astype(bool)
        z = np.where(mask, np.nan, z)
        masked = bool(mask.any())
    colour, colors = None, colors_for(z, palette, zmin, zmax)
    bar = dict(title=dict(text=value_name, side="right"))
    if log_scale:
        colour, colors = log_colors(as_array(z).astype(np.float32), LOG_DECADES)
        bar.update(colors.pop("colorbar_ticks"))
        bar["title"]["text"] = log_name(value_name)
    trace = _heatmap_trace(
        z,
        q_pos,
        k_pos,
        colour=colour,
        hoverongaps=False,
        value_name=value_name,
        value_format=value_format,
        colorbar=bar,
        **colors,
    )
    data, layout = [trace], _axes(q_pos, k_pos)
    if masked:  # gaps show the grey background
        add_masks(data, layout, [(1, mask)], q_pos, k_pos, label=mask_label or _("masked"), lecture=lecture)
    note = sample_note(q_pos, k_pos, q_len or len(q_pos), k_len or len(k_pos), pooled=pooled)
    spec = dict(data=data, layout=layout)
    return finish(spec, title=title, subtitle=subtitle_lines(subtitle, note), lecture=lecture, height=height)


def heatmap_grid(
    zs,
    *,
    q_pos,
    k_pos,
    titles: list[str],
    title: str,
    value_name: str,
    palette: str = "diverging",
    q_len: int | None = None,
    k_len: int | None = None,
    subtitle: str | None = None,
    lecture: bool = False,
    cols: int = 4,
    mask=None,
    mask_label: str | None = None,
    log_scale: bool = False,
    pooled: bool = False,
    plain: bool = False,
) -> Any:
    """Small multiples of ``(n, q, k)`` matrices on one shared colour scale.

    ``mask`` ((q, k) or (n, q, k) bool), ``log_scale``, ``pooled`` as in :func:`heatmap`, ``plain`` in :func:`finish`.
    """
    zs = as_array(zs).astype(np.float32)
    n = zs.shape[0]
    masked = False
    if mask is not None:
        mask = np.broadcast_to(as_array(mask).astype(bool), zs.shape)
        zs = np.where(mask, np.nan, zs)
        masked = bool(mask.any())
    cols = min(cols, n)
    rows = -(-n // cols)
    lk = look(lecture)
    layout = subplot_grid(
        rows,
        cols,
        titles=titles,
        horizontal_spacing=0.06 if lecture else 0.035,
        vertical_spacing=min(0.3 / rows, 0.12) if rows > 1 else 0.0,
    )
    colour = None
    bar = dict(title=dict(text=value_name, side="right"))
    if log_scale:
        colour, colors = log_colors(zs, LOG_DECADES)
        bar.update(colors.pop("colorbar_ticks"))
        bar["title"]["text"] = log_name(value_name)
    else:
        colors = colors_for(zs, palette, None, None)
    layout["coloraxis"] = _coloraxis(colors, bar)
    for name in layout:
        if name.startswith(("xaxis", "yaxis")):
            layout[name].update(automargin=True, showgrid=False, zeroline=False)
            if name.startswith("y"):
                layout[name]["autorange"] = "reversed"
            elif cols >= 4:  # narrow panels: long labels ("100.02k") of neighbours would run together
                layout[name]["nticks"] = 3
    traces = []
    for h in range(n):  # panel h + 1, row by row
        trace = _heatmap_trace(
            zs[h],
            q_pos,
            k_pos,
            colour=None if colour is None else colour[h],
            text=False,
            value_name=value_name,
            value_format=".3g",
            coloraxis="coloraxis",
            hoverongaps=False,
            **on_panel(h + 1),
        )
        traces.append(trace)
        x, y = layout[axis_name("x", h + 1)], layout[axis_name("y", h + 1)]
        if h + cols < n:  # another panel below: its axis labels would collide with that panel's title
            x["showticklabels"] = False
        else:
            x["title"] = dict(text=_("key j"))
        if h % cols:  # rows share the query axis: tick labels on the first column only
            y["showticklabels"] = False
        else:
            y["title"] = dict(text=_("query i"))
    if masked:
        panels = [(h + 1, mask[h]) for h in range(n)]
        add_masks(traces, layout, panels, q_pos, k_pos, label=mask_label or _("masked"), lecture=lecture)
    sub = subtitle_lines(subtitle, sample_note(q_pos, k_pos, q_len or len(q_pos), k_len or len(k_pos), pooled=pooled))
    spec = dict(data=traces, layout=layout)
    height = max(lk.height, 220 * rows + 140)
    return finish(spec, title=title, subtitle=sub, lecture=lecture, height=height, plain=plain)


@dataclass(frozen=True)
class Panel:
    """One matrix of a :func:`heatmap_row`, with its own colour scale."""

    z: np.ndarray  # (q, k), or (rows, cols) with ``y``/``x`` given
    title: str
    value_name: str
    palette: str = "sequential"
    zmin: float | None = None
    zmax: float | None = None
    value_format: str = ".3g"
    mask: np.ndarray | None = None  # bool, cells drawn grey
    log_scale: bool = False  # colour by log10 |z| (one-signed data), as in heatmap()


def heatmap_row(
    panels: list[Panel],
    *,
    q_pos,
    k_pos,
    title: str,
    q_len: int | None = None,
    k_len: int | None = None,
    subtitle: str | None = None,
    lecture: bool = False,
    mask_label: str | None = None,
    shared_scale: bool = False,
) -> go.Figure:
    """``(q, k)`` matrices side by side on the same positions.

    Each panel has its own colour scale and a horizontal colour bar under it,
    unless ``shared_scale`` (then one scale, taken from the first panel's
    palette, spans every panel). Masked cells are gaps over a grey background,
    with a legend entry (``mask_label``).
    """
    n = len(panels)
    gap = 0.07 if lecture else 0.05
    layout = subplot_grid(1, n, titles=[p.title for p in panels], horizontal_spacing=gap)
    traces = []
    width = (1.0 - gap * (n - 1)) / n
    if shared_scale:
        finite = [as_array(p.z)[np.isfinite(as_array(p.z))] for p in panels]
        both = np.concatenate([f.ravel() for f in finite]) if finite else np.zeros(1)
        shared = colors_for(both if both.size else np.zeros(1), panels[0].palette, panels[0].zmin, panels[0].zmax)
        top = float(np.abs(both).max()) if both.size else 1.0
    masks = []
    for c, p in enumerate(panels):
        z = as_array(p.z).astype(np.float32)
        if p.mask is not None:
            mask = as_array(p.mask).astype(bool)
            masks.append((c + 1, mask))
            z = np.where(mask, np.nan, z)
        colour = None
        if p.log_scale:
            colour, colors = log_colors(z, LOG_DECADES, top=top if shared_scale else None)
            ticks = colors.pop("colorbar_ticks")
        else:
            colors, ticks = (shared if shared_scale else colors_for(z, p.palette, p.zmin, p.zmax)), {}
        axis = "coloraxis" if shared_scale or c == 0 else f"coloraxis{c + 1}"
        if not shared_scale or c == 0:
            name = log_name(p.value_name) if colour is not None else p.value_name
            # Under its bar: Plotly.js draws a title on "top" of a bar placed in container coordinates
            # (layout.finish puts every horizontal bar there) over the bar itself.
            side = "right" if shared_scale else "bottom"
            bar = dict(title=dict(text=name, side=side), orientation="h", len=width * 0.9, **ticks)
            bar.update(x=c * (width + gap) + width / 2, xanchor="center")
            if shared_scale:
                bar.update(x=0.5, len=0.6)
            layout[axis] = _coloraxis(colors, bar)
        trace = _heatmap_trace(
            z,
            q_pos,
            k_pos,
            colour=colour,
            value_name=p.value_name,
            value_format=p.value_format,
            coloraxis=axis,
            hoverongaps=False,
            **on_panel(c + 1),
        )
        traces.append(trace)
    q = as_array(q_pos)
    whole = {"dtick": 1} if len(q) and q.max() - q.min() < 10 else {}
    for c in range(n):
        layout[axis_name("x", c + 1)].update(title=dict(text=_("key position j")), showgrid=False, zeroline=False)
        layout[axis_name("y", c + 1)].update(autorange="reversed", showgrid=False, zeroline=False, **whole)
        if c:  # the same rows as the first panel: its ticks read for all (they would sit in the gap, on it)
            layout[axis_name("y", c + 1)].update(showticklabels=False, matches="y")
    layout["yaxis"]["title"] = dict(text=_("query position i"))
    add_masks(traces, layout, masks, q_pos, k_pos, label=mask_label or _("masked"), lecture=lecture)
    note = sample_note(q_pos, k_pos, q_len or len(q_pos), k_len or len(k_pos))
    spec = dict(data=traces, layout=layout)
    return finish(spec, title=title, subtitle=subtitle_lines(subtitle, note), lecture=lecture)

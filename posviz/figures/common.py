"""The one heatmap builder every page uses, and the shared look.

Every matrix figure has the true query positions ``i`` on the y axis and key
positions ``j`` on the x axis (also when strided), hover with ``i``, ``j``,
``r = j - i`` and the value, float32 data, and says when it is a sample.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

# Sequential and colourblind-safe for indices; diverging, centred at 0, for
# signed values such as biases (ColorBrewer RdBu reads under all common CVDs).
SEQUENTIAL = "Viridis"
DIVERGING = "RdBu_r"
MASK_COLOR = "#b0b0b0"
MAX_TEXT_CELLS = 24  # write values into cells up to 24 x 24


@dataclass(frozen=True)
class Look:
    """Font sizes and heights; lecture mode scales everything up for a projector."""

    font: int
    title: int
    height: int
    line: int


def look(lecture: bool = False) -> Look:
    return Look(font=20, title=26, height=720, line=4) if lecture else Look(font=13, title=16, height=460, line=2)


def as_array(x) -> np.ndarray:
    """A tensor or array as a numpy array (no autograd, on the CPU)."""
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    return np.asarray(x)


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 22nd ..."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def sample_note(q_pos, k_pos, q_len: int, k_len: int) -> str | None:
    """Caption for a strided or windowed view, or None when every position is shown."""
    parts, zoomed = [], False
    for name, letter, pos, length in (("queries", "i", q_pos, q_len), ("keys", "j", k_pos, k_len)):
        pos = as_array(pos)
        if len(pos) < length:
            stride = int(pos[1] - pos[0]) if len(pos) > 1 else length
            span = int(pos[-1] - pos[0]) + 1 if len(pos) else 0
            # a zoom when more than a stride of the range is left out (a plain stride may skip the last)
            window = f" in the window {letter} = {int(pos[0])}…{int(pos[-1])}" if span + stride <= length else ""
            zoomed |= bool(window)
            every = "every one" if stride == 1 else f"every {ordinal(stride)}, plus the last"
            parts.append(f"{len(pos)} of {length} {name}{window} ({every})")
    if not parts:
        return None
    return ("Window: " if zoomed else "Strided sample: ") + "; ".join(parts)


def subtitle_lines(*parts: str | None) -> str | None:
    """Subtitle parts, one per line (plotly does not wrap text); None when there are none."""
    return "<br>".join(p for p in parts if p) or None


def finish(fig: go.Figure, *, title: str, subtitle: str | None, lecture: bool, height: int | None = None) -> go.Figure:
    """Shared title, fonts and margins; ``subtitle`` lines are separated by ``<br>``."""
    lk = look(lecture)
    lines = subtitle.count("<br>") + 1 if subtitle else 0
    fig.update_layout(
        title=dict(text=title, font=dict(size=lk.title), subtitle=dict(text=subtitle or "")),
        font=dict(size=lk.font),
        height=height or lk.height,
        margin=dict(l=20, r=20, t=lk.title + int(1.4 * lk.font * lines) + 50, b=20),
        hoverlabel=dict(font=dict(size=lk.font)),
    )
    fig.update_xaxes(automargin=True, title_standoff=8)
    fig.update_yaxes(automargin=True, title_standoff=8)
    return fig


def compact(z) -> np.ndarray:
    """Chart data as small as it can honestly be: int8/int16 for small integers, else float32.

    Plotly ships numpy arrays base64-encoded, so bytes per cell is what a chart weighs.
    """
    z = as_array(z)
    if z.dtype == np.bool_:
        return z.astype(np.int8)
    if np.issubdtype(z.dtype, np.integer) and z.size:
        lo, hi = int(z.min()), int(z.max())
        for small in (np.int8, np.int16, np.int32):
            if np.iinfo(small).min <= lo and hi <= np.iinfo(small).max:
                return z.astype(small)
    return z.astype(np.float32)


def _heatmap_trace(z, q_pos, k_pos, *, value_name: str, value_format: str, **kwargs) -> go.Heatmap:
    q = as_array(q_pos).astype(np.int64)
    k = as_array(k_pos).astype(np.int64)
    rel = compact(k[None, :] - q[:, None])  # (q, k), r = j - i
    z = compact(z)
    extra = {}
    if z.shape[0] <= MAX_TEXT_CELLS and z.shape[1] <= MAX_TEXT_CELLS:
        extra["texttemplate"] = f"%{{z:{value_format}}}"
    if value_name == "r":  # the matrix is r itself: no second copy of it for the hover
        hover = "query i = %{y}<br>key j = %{x}<br>r = j − i = %{z}<extra></extra>"
    else:
        extra["customdata"] = rel
        hover = (
            "query i = %{y}<br>key j = %{x}<br>r = j − i = %{customdata}"
            f"<br>{value_name} = %{{z:{value_format}}}<extra></extra>"
        )
    return go.Heatmap(z=z, x=compact(k), y=compact(q), hovertemplate=hover, **extra, **kwargs)


def _colors(z, palette: str, zmin, zmax) -> dict:
    if palette == "diverging":
        z = as_array(z)
        finite = z[np.isfinite(z)]
        bound = float(np.abs(finite).max()) if finite.size else 1.0
        bound = bound or 1.0
        return dict(
            colorscale=DIVERGING, zmid=0.0, zmin=-bound if zmin is None else zmin, zmax=bound if zmax is None else zmax
        )
    return dict(colorscale=SEQUENTIAL, zmin=zmin, zmax=zmax)


def _axes(fig: go.Figure, q_pos, k_pos) -> None:
    """Position axes: whole-number ticks, queries top to bottom, no grid or zero lines over cells."""
    for update, title, pos, extra in (
        (fig.update_xaxes, "key position j", k_pos, {}),
        (fig.update_yaxes, "query position i", q_pos, {"autorange": "reversed"}),
    ):
        pos = as_array(pos)
        whole = {"dtick": 1} if len(pos) and pos.max() - pos.min() < 10 else {}  # no ticks at 0.5
        update(title_text=title, automargin=True, showgrid=False, zeroline=False, **whole, **extra)


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
) -> go.Figure:
    """A ``(q, k)`` matrix as a heatmap on its true positions.

    Args:
        z: (len(q_pos), len(k_pos)) values; NaN cells are left blank.
        mask: (len(q_pos), len(k_pos)) bool; those cells are drawn in flat grey
            (``mask_label`` says what they are) instead of on the colour scale.
        q_pos, k_pos: the positions the rows and columns stand for.
        palette: ``"sequential"`` (indices) or ``"diverging"`` (signed, centred at 0).
        q_len, k_len: full lengths, to say when the view is a strided sample.
    """
    if mask is not None:
        mask = as_array(mask).astype(bool)
        z = np.where(mask, np.nan, as_array(z).astype(np.float32))
        if mask.any():
            subtitle = subtitle_lines(subtitle, f"grey: {mask_label or 'masked'}")
    fig = go.Figure(
        _heatmap_trace(
            z,
            q_pos,
            k_pos,
            hoverongaps=False,
            value_name=value_name,
            value_format=value_format,
            colorbar=dict(title=dict(text=value_name, side="right")),
            **_colors(z, palette, zmin, zmax),
        )
    )
    _axes(fig, q_pos, k_pos)
    note = sample_note(q_pos, k_pos, q_len or len(q_pos), k_len or len(k_pos))
    subtitle = subtitle_lines(subtitle, note)
    if mask is not None:
        fig.update_layout(plot_bgcolor=MASK_COLOR)  # gaps (masked cells) show the background
    return finish(fig, title=title, subtitle=subtitle, lecture=lecture)


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
) -> go.Figure:
    """Small multiples of ``(n, q, k)`` matrices on one shared colour scale."""
    zs = as_array(zs).astype(np.float32)
    n = zs.shape[0]
    cols = min(cols, n)
    rows = -(-n // cols)
    lk = look(lecture)
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=titles,
        horizontal_spacing=0.06 if lecture else 0.035,
        vertical_spacing=min(0.3 / rows, 0.12) if rows > 1 else 0.0,
    )
    colors = _colors(zs, palette, None, None)
    coloraxis = dict(
        colorscale=colors["colorscale"],
        cmin=colors.get("zmin"),
        cmax=colors.get("zmax"),
        colorbar=dict(title=dict(text=value_name, side="right")),
    )
    if palette == "diverging":
        coloraxis["cmid"] = 0.0
    for h in range(n):
        trace = _heatmap_trace(zs[h], q_pos, k_pos, value_name=value_name, value_format=".3g", coloraxis="coloraxis")
        trace.texttemplate = None
        fig.add_trace(trace, row=h // cols + 1, col=h % cols + 1)
    fig.update_layout(coloraxis=coloraxis)
    fig.update_xaxes(automargin=True, showgrid=False, zeroline=False)
    fig.update_yaxes(autorange="reversed", automargin=True, showgrid=False, zeroline=False)
    for h in range(n):
        if h + cols < n:  # another panel below: its axis labels would collide with that panel's title
            fig.update_xaxes(showticklabels=False, row=h // cols + 1, col=h % cols + 1)
        else:
            fig.update_xaxes(title_text="key j", row=h // cols + 1, col=h % cols + 1)
    for h in range(n):
        if h % cols:  # rows share the query axis: tick labels on the first column only
            fig.update_yaxes(showticklabels=False, row=h // cols + 1, col=h % cols + 1)
        else:
            fig.update_yaxes(title_text="query i", row=h // cols + 1, col=1)
    note = sample_note(q_pos, k_pos, q_len or len(q_pos), k_len or len(k_pos))
    subtitle = subtitle_lines(subtitle, note)
    fig = finish(fig, title=title, subtitle=subtitle, lecture=lecture, height=max(lk.height, 220 * rows + 140))
    # Panel titles sit just above their panels, inside the top margin: make room for them.
    fig.update_annotations(font_size=lk.font)
    fig.update_layout(margin_t=fig.layout.margin.t + int(2.4 * lk.font))
    return fig


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
    palette, spans every panel). Masked cells are gaps over a grey background.
    """
    n = len(panels)
    lk = look(lecture)
    gap = 0.07 if lecture else 0.05
    fig = make_subplots(rows=1, cols=n, subplot_titles=[p.title for p in panels], horizontal_spacing=gap)
    width = (1.0 - gap * (n - 1)) / n
    if shared_scale:
        finite = [as_array(p.z)[np.isfinite(as_array(p.z))] for p in panels]
        both = np.concatenate([f.ravel() for f in finite]) if finite else np.zeros(1)
        shared = _colors(both if both.size else np.zeros(1), panels[0].palette, panels[0].zmin, panels[0].zmax)
    masked_any = False
    for c, p in enumerate(panels):
        z = as_array(p.z).astype(np.float32)
        if p.mask is not None:
            mask = as_array(p.mask).astype(bool)
            masked_any |= bool(mask.any())
            z = np.where(mask, np.nan, z)
        colors = shared if shared_scale else _colors(z, p.palette, p.zmin, p.zmax)
        axis = "coloraxis" if shared_scale or c == 0 else f"coloraxis{c + 1}"
        if not shared_scale or c == 0:
            bar = dict(title=dict(text=p.value_name, side="top"), orientation="h", len=width * 0.9, thickness=14)
            bar.update(x=c * (width + gap) + width / 2, xanchor="center", y=-0.3 if not lecture else -0.36)
            bar.update(yanchor="top", title_side="right" if shared_scale else "top")
            if shared_scale:
                bar.update(x=0.5, len=0.6)
            layout = dict(
                colorscale=colors["colorscale"], cmin=colors.get("zmin"), cmax=colors.get("zmax"), colorbar=bar
            )
            if "zmid" in colors:
                layout["cmid"] = colors["zmid"]
            fig.update_layout({axis: layout})
        trace = _heatmap_trace(z, q_pos, k_pos, value_name=p.value_name, value_format=p.value_format, coloraxis=axis)
        trace.hoverongaps = False
        fig.add_trace(trace, row=1, col=c + 1)
        fig.update_xaxes(title_text="key position j", row=1, col=c + 1)
    q = as_array(q_pos)
    whole = {"dtick": 1} if len(q) and q.max() - q.min() < 10 else {}
    fig.update_yaxes(autorange="reversed", showgrid=False, zeroline=False, **whole)
    fig.update_yaxes(title_text="query position i", row=1, col=1)
    fig.update_xaxes(showgrid=False, zeroline=False)
    if masked_any:
        fig.update_layout(plot_bgcolor=MASK_COLOR)
        subtitle = subtitle_lines(subtitle, f"grey: {mask_label or 'masked'}")
    note = sample_note(q_pos, k_pos, q_len or len(q_pos), k_len or len(k_pos))
    fig = finish(fig, title=title, subtitle=subtitle_lines(subtitle, note), lecture=lecture)
    fig.update_annotations(font_size=lk.font)
    fig.update_layout(margin_t=fig.layout.margin.t + int(1.6 * lk.font), margin_b=190 if lecture else 130)
    return fig


# Characters per line before a title or subtitle is wrapped: a figure about 940 px wide (a 1280 px
# screen with the sidebar open), at about half the font size per character.
TITLE_CHARS = {False: 100, True: 62}
SUBTITLE_CHARS = {False: 150, True: 95}
SUBTITLE_SCALE = 0.7  # plotly draws the subtitle at 0.7 of the title's font size


def _wrap(text: str, width: int) -> str:
    lines = [textwrap.wrap(line, width, break_long_words=False) or [""] for line in text.split("<br>")]
    return "<br>".join(part for line in lines for part in line)


def fit_title(fig: go.Figure, *, lecture: bool) -> go.Figure:
    """Wrap a long title and subtitle at word boundaries (plotly does not wrap text) and make room for them.

    The title block is pinned to the top of the figure and the top margin (and the height, by the
    same amount) grows by whatever the wrapped lines need, so the plot area keeps its size.
    """
    lk = look(lecture)
    title = fig.layout.title.text or ""
    subtitle = (fig.layout.title.subtitle.text if fig.layout.title.subtitle else None) or ""
    title, subtitle = _wrap(title, TITLE_CHARS[lecture]), _wrap(subtitle, SUBTITLE_CHARS[lecture])
    sub_lines = subtitle.count("<br>") + 1 if subtitle else 0
    pad = int(1.1 * lk.title) + 6  # plotly anchors a wrapped title by its first line's baseline, not its top
    need = pad + 1.3 * lk.title * title.count("<br>") + 1.5 * SUBTITLE_SCALE * lk.title * sub_lines + 30
    top = fig.layout.margin.t or 0
    grow = max(0, int(need) - top)
    fig.update_layout(
        title=dict(text=title, subtitle=dict(text=subtitle), yref="container", y=1.0, yanchor="top", pad=dict(t=pad)),
        margin=dict(t=top + grow),
        height=(fig.layout.height or lk.height) + grow,
    )
    return fig

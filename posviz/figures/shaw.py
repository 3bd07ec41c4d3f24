"""The Shaw page's lookup figures and its memory bill: one function of plain arguments per figure,
each returning a :class:`Chart`.

``index``, ``table``, ``relations_row`` and ``memory`` are what the page (and a notebook) calls; the
``*_figure`` builders above them turn arrays into specs. Each takes exactly what it depends on:
``row`` moves the ``R[i]`` figure only, ``separate`` the tables only (``R[i]`` reads a^K, the first
table drawn, either way). The toy attention is in :mod:`posviz.figures.shaw_toy`.
"""

from __future__ import annotations

import functools

import numpy as np
import plotly.graph_objects as go
import torch

from posviz.encodings.attention import logits_bytes
from posviz.encodings.positions import display_positions, display_stride, relative_positions
from posviz.encodings.shaw import (
    shaw_index,
    shaw_relations_bytes,
    shaw_relations_row,
    shaw_seeded_tables,
)
from posviz.figures.axes import Axes, Window, axes
from posviz.figures.chart import Chart
from posviz.figures.colors import scale_stops
from posviz.figures.common import (
    DIVERGING,
    Panel,
    as_array,
    compact,
    finish,
    heatmap_row,
    look,
    sample_note,
    subtitle_lines,
)
from posviz.figures.csv import columns_csv, panels_csv
from posviz.figures.layout import axis_name, on_panel, subplot_grid
from posviz.figures.marks import Mark, add_marks
from posviz.figures.memory import bytes_figure
from posviz.i18n import N_, _, ngettext

MAIN_POINTS = 128  # per axis of each of the three index panels
ROW_POINTS = 256  # keys in the R[i] slice
MEMORY_LENGTHS = tuple(2**p for p in range(4, 18))  # 16 .. 131072
ALLOCATE_UP_TO = 32 * 2**20  # bytes: below this the memory chart allocates R for real
MEASURED_ENTRIES = 16  # (dim, clip) whose measurements are kept: moving a length only moves the chart's marker

CLIP_LINE = dict(color="#111", width=2, dash="dash")


def _clip_lines(fig: go.Figure, q_pos, k_pos, clip: int, cols: int, lecture: bool) -> None:
    """Dashed diagonals ``j - i = +-K`` on every panel: beyond them, pairs share an edge row.

    ``fig`` is a heatmap row just finished (:func:`posviz.figures.common.heatmap_row`): the lines join its
    spec as plain data, before anything builds the figure."""
    q, k = as_array(q_pos).astype(np.int64), as_array(k_pos).astype(np.int64)
    lw = look(lecture).line
    for sign in (1, -1):
        x = q + sign * clip
        keep = (x >= k.min()) & (x <= k.max())
        if not keep.any():
            continue
        for c in range(cols):
            fig.spec["data"].append(
                dict(
                    type="scatter",
                    x=x[keep],
                    y=q[keep],
                    mode="lines",
                    line={**CLIP_LINE, "width": lw},
                    name="|j − i| = K",
                    showlegend=False,
                    hoverinfo="skip",
                    **on_panel(c + 1),
                ),
            )


def index_figure(rel, index, *, clip: int, q_pos, k_pos, q_len: int, k_len: int, lecture: bool = False) -> go.Figure:
    """Distance, clipped distance and table row, side by side on the shown cells.

    Args:
        rel: (q, k) ``j - i``; index: (q, k) ``clip(j - i, -K, K) + K``.
    """
    rel = as_array(rel)
    clipped = as_array(index) - clip
    bound = max(int(np.abs(rel).max()), 1)
    panels = [
        Panel(rel, _("distance r = j − i"), "r", "diverging", -bound, bound, "d"),
        Panel(clipped, "clip(r, −K, K)", _("clipped r"), "diverging", -max(clip, 1), max(clip, 1), "d"),
        Panel(as_array(index), "index = clip(r, −K, K) + K", _("table row"), "sequential", 0, max(2 * clip, 1), "d"),
    ]
    fig = heatmap_row(
        panels,
        q_pos=q_pos,
        k_pos=k_pos,
        title=_("Which table row each pair reads (K = {clip}: {rows} rows)").format(clip=clip, rows=2 * clip + 1),
        subtitle=_(
            "dashed: |j − i| = K = {clip}; every pair beyond reads row 0 (keys far left) or row {last} (far right)"
        ).format(clip=clip, last=2 * clip),
        q_len=q_len,
        k_len=k_len,
        lecture=lecture,
    )
    _clip_lines(fig, q_pos, k_pos, clip, 3, lecture)
    return fig


MAX_TABLE_ROWS = 257


def table_figure(tables: dict[str, np.ndarray], *, clip: int, lecture: bool = False) -> go.Figure:
    """The embedding table(s) ``(2K + 1, dim)``: one row per clipped relative position.

    Args:
        tables: panel title -> (2K + 1, dim) table; ``a^K`` and ``a^V`` when separate.
    """
    lk = look(lecture)
    names = list(tables)
    layout = subplot_grid(1, len(names), titles=[_(n) for n in names], horizontal_spacing=0.08)
    values = np.concatenate([as_array(t).ravel() for t in tables.values()])
    bound = float(np.abs(values).max()) or 1.0
    # A large K (up to 4096: 8193 rows) is drawn as an even sample of at most MAX_TABLE_ROWS rows, ends included.
    shown = np.unique(np.linspace(0, 2 * clip, min(2 * clip + 1, MAX_TABLE_ROWS)).round().astype(np.int64))
    rows = shown - clip
    traces = []  # plain data: built once, by finish
    for c, name in enumerate(names):
        table = as_array(tables[name]).astype(np.float32)[shown]
        traces.append(
            dict(
                type="heatmap",
                z=table,
                x=np.arange(table.shape[1]),
                y=rows,
                customdata=compact(np.repeat((rows + clip)[:, None], table.shape[1], axis=1)),
                coloraxis="coloraxis",
                hovertemplate=_("r = %{y} (table row %{customdata})<br>component %{x}<br>value = %{z:.3f}")
                + "<extra></extra>",
                **on_panel(c + 1),
            )
        )
        layout[axis_name("x", c + 1)].update(title=dict(text=_("component")), showgrid=False, zeroline=False)
        y_axis = dict(autorange="reversed", showgrid=False, zeroline=False)
        if clip <= 8:
            y_axis["dtick"] = 1
        layout[axis_name("y", c + 1)].update(y_axis)
    layout["yaxis"]["title"] = dict(text=_("relative position r (row r + K)"))
    layout["coloraxis"] = dict(
        colorscale=scale_stops(DIVERGING), cmin=-bound, cmax=bound, cmid=0.0, colorbar=dict(title=dict(text=_("value")))
    )
    fig = dict(data=traces, layout=layout)
    fig = finish(
        fig,
        title=ngettext(
            "The embedding table: {rows} rows × {dim} components",
            "The embedding tables: {rows} rows × {dim} components",
            len(names),
        ).format(rows=2 * clip + 1, dim=table.shape[1]),
        subtitle=(
            _("Strided sample: {shown} of {rows} rows. ").format(shown=len(shown), rows=2 * clip + 1)
            if len(shown) < 2 * clip + 1
            else ""
        )
        + _(
            "Xavier-normal from the seed; top row r = −{clip} serves every key K or more to the left, "
            "bottom row r = {clip} every key K or more to the right"
        ).format(clip=clip),
        lecture=lecture,
        height=max(int(lk.height * 0.75), min(lk.height, 160 + 22 * (2 * clip + 1))),
    )
    return fig


def relations_figure(r_row, *, row: int, k_pos, k_len: int, clip: int, index_row, lecture: bool = False) -> go.Figure:
    """``R[i] = table[index[i]]`` for one query: one column of components per key.

    Args:
        r_row: (k shown, dim) the looked-up vectors of query ``row``.
        index_row: (k shown,) the table row of each key.
    """
    z = as_array(r_row).T.astype(np.float32)  # (dim, k shown)
    k = as_array(k_pos).astype(np.int64)
    dim = z.shape[0]
    rel = np.broadcast_to((k - row)[None, :], z.shape)
    idx = np.broadcast_to(as_array(index_row)[None, :], z.shape)
    custom = np.stack([compact(rel).astype(np.int32), compact(idx).astype(np.int32)], axis=-1)
    bound = float(np.abs(z).max()) or 1.0
    trace = dict(  # plain data: built once, by finish
        type="heatmap",
        z=z,
        x=compact(k),
        y=np.arange(dim),
        customdata=custom,
        colorscale=scale_stops(DIVERGING),
        zmid=0.0,
        zmin=-bound,
        zmax=bound,
        colorbar=dict(title=dict(text=_("value"), side="right")),
        hovertemplate=_(
            "key j = %{x}<br>r = j − i = %{customdata[0]}<br>table row %{customdata[1]}"
            "<br>component %{y}<br>value = %{z:.3f}"
        )
        + "<extra></extra>",
    )
    lk = look(lecture)
    layout = dict(
        xaxis=dict(title=dict(text=_("key position j")), showgrid=False, zeroline=False),
        yaxis=dict(title=dict(text=_("component of R[i, j]")), autorange="reversed", showgrid=False, zeroline=False),
    )
    fig = dict(data=[trace], layout=layout)
    clips = [Mark(x, label, "top") for x, label in ((row - clip, "j = i − K"), (row + clip, "j = i + K"))]
    add_marks(fig, [m for m in clips if k.min() <= m.at <= k.max()], line={**CLIP_LINE, "width": lk.line})
    note = sample_note(np.array([row]), k, 1, k_len)
    return finish(
        fig,
        title=_("R[{row}] = table[index[{row}]]: the vectors query {row} adds, key by key").format(row=row),
        subtitle=subtitle_lines(
            _("keys beyond the dashed lines all read the same edge row, so their columns are identical"), note
        ),
        lecture=lecture,
    )


# --- the figures, by plain arguments ---------------------------------------------------------------


def main_axes(*, q_len: int, k_len: int, align: str, window: int = 0, q_start: int = 0, k_start: int = 0) -> Axes:
    """The shown queries and keys of the three index panels: at most ``MAIN_POINTS`` per axis."""
    return axes(q_len, k_len, align, MAIN_POINTS, window=Window(q_start, k_start, window))


def index(
    *,
    q_len: int,
    k_len: int,
    align: str,
    clip: int,
    window: int = 0,
    q_start: int = 0,
    k_start: int = 0,
    lecture: bool = False,
) -> Chart:
    """``j - i``, its clip to ``[-K, K]`` and the table row, on the shown cells: each ``(q shown, k shown)``."""
    ax = main_axes(q_len=q_len, k_len=k_len, align=align, window=window, q_start=q_start, k_start=k_start)
    q, k = torch.as_tensor(ax.q_pos), torch.as_tensor(ax.k_pos)
    rel, idx = relative_positions(q, k).numpy(), shaw_index(q, k, clip=clip).numpy()
    figure = index_figure(
        rel, idx, clip=clip, q_pos=ax.q_pos, k_pos=ax.k_pos, q_len=q_len, k_len=k_len, lecture=lecture
    )
    return Chart.of(figure, lambda: panels_csv({"r = j - i": rel, "index": idx}, ax.q_pos, ax.k_pos))


def named_tables(*, clip: int, dim: int, seed: int, separate: bool) -> dict[str, np.ndarray]:
    """The tables drawn, by their legend name, each (2K + 1, dim): two, or one when keys and values share it."""
    table_k, table_v = (t.numpy() for t in shaw_seeded_tables(clip, dim, seed=seed, separate=separate))
    if separate:  # the names are marked for the catalogue: the figure translates them, the CSV keeps them
        return {N_("a^K (keys)"): table_k, N_("a^V (values)"): table_v}
    return {N_("a^K = a^V (shared)"): table_k}


def table(*, clip: int, dim: int, seed: int, separate: bool, lecture: bool = False) -> Chart:
    """The embedding table(s) a^K (and a^V), one row per clipped distance."""
    named = named_tables(clip=clip, dim=dim, seed=seed, separate=separate)
    return Chart.of(
        table_figure(named, clip=clip, lecture=lecture),
        lambda: columns_csv({f"{n} component {c}": t[:, c] for n, t in named.items() for c in range(t.shape[1])}),
    )


def row_stride(k_len: int) -> int:
    """The stride of the keys of the ``R[i]`` figure (1: every key)."""
    return display_stride(k_len, ROW_POINTS)


def relations_row(
    *, q_len: int, k_len: int, align: str, clip: int, dim: int, seed: int, row: int, lecture: bool = False
) -> Chart:
    """``R[i]`` of query ``row`` (0-based, at position ``row + offset``) on at most ``ROW_POINTS`` keys:
    ``(k shown, dim)``; only that row is looked up (a^K only, so ``separate`` plays no part)."""
    position = row + (k_len - q_len if align == "end" else 0)
    kp = display_positions(k_len, ROW_POINTS)
    idx, rel = (t.numpy() for t in shaw_relations_row(position, kp, clip=clip, dim=dim, seed=seed))
    k_pos = kp.numpy()
    figure = relations_figure(rel, row=position, k_pos=k_pos, k_len=k_len, clip=clip, index_row=idx, lecture=lecture)
    return Chart.of(
        figure,
        lambda: columns_csv({"key j": k_pos, "table row": idx, **{f"component {c}": rel[:, c] for c in range(dim)}}),
    )


@functools.lru_cache(maxsize=MEASURED_ENTRIES)
def measurements(*, dim: int, clip: int) -> dict[str, np.ndarray]:
    """Bytes of ``R (L, L, dim)`` and of the ``(L, L)`` logits for ``MEMORY_LENGTHS``, measured once per
    ``(dim, clip)`` (the chart marks the page's length on them): ``"L"``, ``"R"``, ``"logits"`` and
    ``"allocated"`` (bool), each (n,), read-only.

    ``R`` is really built (and measured) up to ``ALLOCATE_UP_TO`` bytes; the longer lengths run
    the same lookup on PyTorch's meta device.
    """
    allocated = np.array([n * n * dim * 4 <= ALLOCATE_UP_TO for n in MEMORY_LENGTHS])
    devices = ["cpu" if small else "meta" for small in allocated]
    pairs = list(zip(MEMORY_LENGTHS, devices, strict=True))
    out = {
        "L": np.array(MEMORY_LENGTHS),
        "R": np.array([shaw_relations_bytes(n, n, dim, clip=clip, device=d) for n, d in pairs]),
        "logits": np.array([logits_bytes(n, n, device=d) for n, d in pairs]),
        "allocated": allocated,
    }
    for a in out.values():
        a.flags.writeable = False
    return out


def memory(*, dim: int, clip: int, current: int, lecture: bool = False) -> Chart:
    """Bytes of ``R (L, L, dim)`` and of the ``(L, L)`` logits for ``MEMORY_LENGTHS``, ``current`` marked."""
    m = measurements(dim=dim, clip=clip)
    lengths, r_bytes, logits, allocated = m["L"], m["R"], m["logits"], m["allocated"]
    figure = bytes_figure(
        lengths,
        {f"R (L, L, {dim})": (r_bytes, allocated), _("logits (L, L)"): (logits, allocated)},
        title=_("Bytes of R = table[index] as L grows: O(L² d)"),
        subtitle=_("float32, q_len = k_len = L, dim = {dim}; R is dim times the logits").format(dim=dim),
        current=current,
        lecture=lecture,
    )
    return Chart.of(
        figure,
        lambda: columns_csv({"L": lengths, "R bytes": r_bytes, "logits bytes": logits, "allocated": allocated}),
    )

"""Figures for the Shaw relative-position explorer."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from posviz.figures.common import (
    DIVERGING,
    Panel,
    as_array,
    compact,
    finish,
    heatmap,
    heatmap_row,
    look,
    number,
    sample_note,
    subtitle_lines,
)
from posviz.figures.layout import on_panel

CLIP_LINE = dict(color="#111", width=2, dash="dash")


def _clip_lines(fig: go.Figure, q_pos, k_pos, clip: int, cols: int, lecture: bool) -> None:
    """Dashed diagonals ``j - i = +-K`` on every panel: beyond them, pairs share an edge row."""
    q, k = as_array(q_pos).astype(np.int64), as_array(k_pos).astype(np.int64)
    lw = look(lecture).line
    for sign in (1, -1):
        x = q + sign * clip
        keep = (x >= k.min()) & (x <= k.max())
        if not keep.any():
            continue
        for c in range(cols):
            fig.add_trace(
                go.Scatter(
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
        Panel(rel, "distance r = j − i", "r", "diverging", -bound, bound, "d"),
        Panel(clipped, "clip(r, −K, K)", "clipped r", "diverging", -max(clip, 1), max(clip, 1), "d"),
        Panel(as_array(index), "index = clip(r, −K, K) + K", "table row", "sequential", 0, max(2 * clip, 1), "d"),
    ]
    fig = heatmap_row(
        panels,
        q_pos=q_pos,
        k_pos=k_pos,
        title=f"Which table row each pair reads (K = {clip}: {2 * clip + 1} rows)",
        subtitle=f"dashed: |j − i| = K = {clip}; every pair beyond reads row 0 (keys far left) "
        f"or row {2 * clip} (far right)",
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
    fig = make_subplots(rows=1, cols=len(names), subplot_titles=names, horizontal_spacing=0.08)
    values = np.concatenate([as_array(t).ravel() for t in tables.values()])
    bound = float(np.abs(values).max()) or 1.0
    # A large K (up to 4096: 8193 rows) is drawn as an even sample of at most MAX_TABLE_ROWS rows, ends included.
    shown = np.unique(np.linspace(0, 2 * clip, min(2 * clip + 1, MAX_TABLE_ROWS)).round().astype(np.int64))
    rows = shown - clip
    for c, name in enumerate(names):
        table = as_array(tables[name]).astype(np.float32)[shown]
        fig.add_trace(
            go.Heatmap(
                z=table,
                x=np.arange(table.shape[1]),
                y=rows,
                customdata=compact(np.repeat((rows + clip)[:, None], table.shape[1], axis=1)),
                coloraxis="coloraxis",
                hovertemplate="r = %{y} (table row %{customdata})<br>component %{x}<br>value = %{z:.3f}<extra></extra>",
            ),
            row=1,
            col=c + 1,
        )
        fig.update_xaxes(title_text="component", row=1, col=c + 1)
    fig.update_layout(
        coloraxis=dict(colorscale=DIVERGING, cmin=-bound, cmax=bound, cmid=0.0, colorbar=dict(title="value"))
    )
    fig.update_yaxes(title_text="relative position r (row r + K)", row=1, col=1)
    fig.update_yaxes(autorange="reversed", showgrid=False, zeroline=False, dtick=1 if clip <= 8 else None)
    fig.update_xaxes(showgrid=False, zeroline=False)
    fig = finish(
        fig,
        title=f"The embedding table{'s' if len(names) > 1 else ''}: {2 * clip + 1} rows × {table.shape[1]} components",
        subtitle=(f"Strided sample: {len(shown)} of {2 * clip + 1} rows. " if len(shown) < 2 * clip + 1 else "")
        + f"Xavier-normal from the seed; top row r = −{clip} serves every key K or more to the left, "
        f"bottom row r = {clip} every key K or more to the right",
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
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=compact(k),
            y=np.arange(dim),
            customdata=custom,
            colorscale=DIVERGING,
            zmid=0.0,
            zmin=-bound,
            zmax=bound,
            colorbar=dict(title=dict(text="value", side="right")),
            hovertemplate="key j = %{x}<br>r = j − i = %{customdata[0]}<br>table row %{customdata[1]}"
            "<br>component %{y}<br>value = %{z:.3f}<extra></extra>",
        )
    )
    lk = look(lecture)
    clips = [(row - clip, "j = i − K"), (row + clip, "j = i + K")]
    for x, label in clips:
        if k.min() <= x <= k.max():
            fig.add_vline(x=x, line={**CLIP_LINE, "width": lk.line}, annotation_text=label, annotation_position="top")
    fig.update_xaxes(title_text="key position j", showgrid=False, zeroline=False)
    fig.update_yaxes(title_text="component of R[i, j]", autorange="reversed", showgrid=False, zeroline=False)
    note = sample_note(np.array([row]), k, 1, k_len)
    return finish(
        fig,
        title=f"R[{row}] = table[index[{row}]]: the vectors query {row} adds, key by key",
        subtitle=subtitle_lines(
            "keys beyond the dashed lines all read the same edge row, so their columns are identical", note
        ),
        lecture=lecture,
    )


def scores_figure(content, relative, *, q_pos, k_pos, q_len: int, k_len: int, lecture: bool = False) -> go.Figure:
    """``Q K^T`` next to ``Q R^T`` on one diverging scale (both before ``/ sqrt(d)``)."""
    content, relative = as_array(content), as_array(relative)
    panels = [
        Panel(content, "content Q Kᵀ", "content score", "diverging"),
        Panel(relative, "relative Q Rᵀ  (q_i · a^K[index_ij])", "relative score", "diverging"),
    ]
    big, small = float(np.abs(content).max()), float(np.abs(relative).max())
    ratio = f"; here the content term is {big / small:.0f} times larger" if small > 0 and big / small >= 2 else ""
    return heatmap_row(
        panels,
        q_pos=q_pos,
        k_pos=k_pos,
        title="Scores: what the keys say, and what the distances add",
        subtitle=f"each on its own colour scale (content up to ±{number(big, 3)}, "
        f"relative up to ±{number(small, 3)}{ratio}); the logits are their sum / √d",
        q_len=q_len,
        k_len=k_len,
        lecture=lecture,
    )


def attention_figure(without, with_rel, *, q_pos, k_pos, q_len: int, k_len: int, lecture: bool = False) -> go.Figure:
    """Toy attention without and with the relative term, one colour scale."""
    panels = [
        Panel(without, "softmax(Q Kᵀ / √d)", "weight", log_scale=True),
        Panel(with_rel, "softmax((Q Kᵀ + Q Rᵀ) / √d)", "weight", log_scale=True),
    ]
    return heatmap_row(
        panels,
        q_pos=q_pos,
        k_pos=k_pos,
        title="Attention on a toy sequence, without and with relative positions",
        subtitle="random queries and keys from the seed; each row sums to 1 over every key; "
        "colour: log scale, one for both (most weights are tiny, a few large)",
        q_len=q_len,
        k_len=k_len,
        lecture=lecture,
        shared_scale=True,
    )


def value_term_figure(term, *, q_pos, q_len: int, shared: bool, lecture: bool = False) -> go.Figure:
    """``sum_j w_ij a^V[index_ij]``: what the value table adds to each query's output ``(q shown, dim)``."""
    z = as_array(term).astype(np.float32)
    fig = heatmap(
        z,
        q_pos=q_pos,
        k_pos=np.arange(z.shape[1]),
        title="What the value table adds to each output: Σⱼ wᵢⱼ a^V[index_ij]",
        value_name="added",
        palette="diverging",
        subtitle="the same table as the keys' (shared)" if shared else "a^V, a table of its own",
        q_len=q_len,
        k_len=z.shape[1],
        lecture=lecture,
    )
    fig.update_xaxes(title_text="output component")
    fig.update_traces(
        customdata=None, hovertemplate="query i = %{y}<br>component %{x}<br>added = %{z:.3f}<extra></extra>"
    )
    return fig

"""The T5 bias at work: one toy attention head without and with it, each figure one function of plain
arguments returning a :class:`Chart`.

``attention`` (every shown query) and ``attention_row`` (the middle one) are what the page (and a notebook)
calls, at lengths capped by :func:`toy_lengths`; both draw :func:`toy_attention`. The table is given as in
:mod:`posviz.figures.t5_bias` (``table=None``: the seeded one).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz.encodings.t5_toy import t5_toy_attention
from posviz.figures.axes import Axes
from posviz.figures.chart import Chart
from posviz.figures.common import as_array, compact, finish, heatmap_grid, look, sample_note, subtitle_lines
from posviz.figures.csv import columns_csv, panels_csv
from posviz.figures.marks import Mark, add_marks
from posviz.figures.t5 import on_axes, shown_axes
from posviz.figures.t5_bias import bias_table, position_tensors
from posviz.i18n import _

PAIR_POINTS = 128  # per axis for the attention pair
TOY_DIM = 32
TOY_MAX_LEN = 2048  # the toy attention runs a full softmax over at most this many keys


def toy_lengths(q_len: int, k_len: int) -> tuple[int, int]:
    """The toy attention's lengths: capped at ``TOY_MAX_LEN``.

    Toy queries and keys are content: the softmax over them needs every key, so
    unlike the position terms its cost grows with the length. Capping both
    lengths keeps the alignment (``q_len <= k_len`` stays true).
    """
    return min(q_len, TOY_MAX_LEN), min(k_len, TOY_MAX_LEN)


def middle_query(ax: Axes) -> tuple[int, int]:
    """Row index and position of the query whose attention row is drawn: the middle shown query."""
    mid = len(ax.q_pos) // 2
    return mid, int(ax.q_pos[mid])


def pair_axes(*, q_len: int, k_len: int, align: str, window: int = 0, q_start: int = 0, k_start: int = 0) -> Axes:
    """The shown positions of the toy attention (:func:`attention`, :func:`attention_row`)."""
    return shown_axes(
        q_len=q_len, k_len=k_len, align=align, window=window, q_start=q_start, k_start=k_start, points=PAIR_POINTS
    )


def toy_attention(
    *,
    q_len: int,
    k_len: int,
    align: str,
    bidirectional: bool,
    num_buckets: int,
    max_distance: int,
    heads: int,
    head: int,
    scale: float = 1.0,
    seed: int = 0,
    table: bytes | None = None,
    window: int = 0,
    q_start: int = 0,
    k_start: int = 0,
) -> tuple[Axes, np.ndarray, np.ndarray]:
    """The shown positions and head ``head``'s toy attention on them, without and with the bias: two
    (rows, cols) float32 (:func:`posviz.encodings.t5_toy.t5_toy_attention`, ``TOY_DIM`` dimensions, toy
    queries and keys from the generator of ``seed + 1``). The lengths are the capped ones
    (:func:`toy_lengths`); the softmax runs over every key."""
    ax = pair_axes(q_len=q_len, k_len=k_len, align=align, window=window, q_start=q_start, k_start=k_start)
    column = bias_table(num_buckets=num_buckets, heads=heads, seed=seed, table=table)[:, head : head + 1]
    q_pos, k_pos = position_tensors(ax)
    without, with_bias = t5_toy_attention(
        column, q_len=q_len, k_len=k_len, align=align, q_pos=q_pos, k_pos=k_pos, dim=TOY_DIM, seed=seed,
        bidirectional=bidirectional, max_distance=max_distance, scale=scale,
    )  # fmt: skip
    return ax, without.numpy(), with_bias.numpy()


def attention(
    *,
    q_len: int,
    k_len: int,
    align: str,
    bidirectional: bool,
    num_buckets: int,
    max_distance: int,
    heads: int,
    head: int,
    scale: float = 1.0,
    seed: int = 0,
    table: bytes | None = None,
    window: int = 0,
    q_start: int = 0,
    k_start: int = 0,
    lecture: bool = False,
) -> Chart:
    """Toy attention of head ``head`` without and with the bias, on every shown query and key."""
    ax, without, with_bias = toy_attention(
        q_len=q_len, k_len=k_len, align=align, bidirectional=bidirectional, num_buckets=num_buckets,
        max_distance=max_distance, heads=heads, head=head, scale=scale, seed=seed, table=table, window=window,
        q_start=q_start, k_start=k_start,
    )  # fmt: skip
    figure = attention_figure(without, with_bias, head=head, **on_axes(ax, q_len, k_len, lecture))
    return Chart.of(figure, lambda: panels_csv({"without bias": without, "with bias": with_bias}, ax.q_pos, ax.k_pos))


def attention_row(
    *,
    q_len: int,
    k_len: int,
    align: str,
    bidirectional: bool,
    num_buckets: int,
    max_distance: int,
    heads: int,
    head: int,
    scale: float = 1.0,
    seed: int = 0,
    table: bytes | None = None,
    window: int = 0,
    q_start: int = 0,
    k_start: int = 0,
    lecture: bool = False,
) -> Chart:
    """The middle shown query's attention over the keys (:func:`middle_query`), without and with the bias."""
    ax, without, with_bias = toy_attention(
        q_len=q_len, k_len=k_len, align=align, bidirectional=bidirectional, num_buckets=num_buckets,
        max_distance=max_distance, heads=heads, head=head, scale=scale, seed=seed, table=table, window=window,
        q_start=q_start, k_start=k_start,
    )  # fmt: skip
    mid, query = middle_query(ax)
    row, row_bias = without[mid], with_bias[mid]
    figure = attention_row_figure(row, row_bias, query=query, k_pos=ax.k_pos, k_len=k_len, lecture=lecture)
    return Chart.of(figure, lambda: columns_csv({"key j": ax.k_pos, "without bias": row, "with bias": row_bias}))


# --- the builders: arrays in, specs out ------------------------------------------------------------


def attention_figure(
    without, with_bias, *, head: int, q_pos, k_pos, q_len: int, k_len: int, lecture: bool = False
) -> go.Figure:
    """Toy attention weights without and with the bias, on one scale."""
    both = np.stack([as_array(without), as_array(with_bias)])
    return heatmap_grid(
        both,
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=q_len,
        k_len=k_len,
        lecture=lecture,
        titles=["softmax(q kᵀ / √d)", f"softmax(q kᵀ / √d + bias[{head}])"],
        title=_("Attention weights of head {head}, without and with the position bias").format(head=head),
        subtitle=_("colour: log scale (most weights are tiny, a few large)"),
        value_name=_("weight"),
        palette="sequential",
        cols=2,
        log_scale=True,
    )


def attention_row_figure(
    without, with_bias, *, query: int, k_pos, k_len: int | None = None, lecture: bool = False
) -> go.Figure:
    """One query's attention over the keys, without and with the bias."""
    lk = look(lecture)
    k = compact(as_array(k_pos))
    rel = compact(as_array(k_pos).astype(np.int64) - query)  # r = j - i for the hover
    traces = []  # plain data: built once, by finish
    for y, name, dash in ((without, _("without bias"), "dot"), (with_bias, _("with bias"), "solid")):
        traces.append(
            dict(
                type="scatter",
                x=k,
                y=as_array(y).astype(np.float32),
                customdata=rel,
                name=name,
                mode="lines",
                line=dict(width=lk.line, dash=dash),
                hovertemplate=_("key j = %{x}<br>r = j − i = %{customdata}<br>weight = %{y:.3g}")
                + f"<extra>{name}</extra>",
            )
        )
    layout = dict(
        xaxis=dict(title=dict(text=_("key position j")), automargin=True),
        yaxis=dict(title=dict(text=_("attention weight")), automargin=True, rangemode="tozero"),
    )
    fig = add_marks(
        dict(data=traces, layout=layout), [Mark(query, f"i = {query}")], line=dict(dash="dot", color="#555")
    )
    return finish(
        fig,
        title=_("Query i = {query}: where its attention goes").format(query=query),
        lecture=lecture,
        subtitle=subtitle_lines(
            _("the same random q and k; only the position bias differs"),
            sample_note([query], k_pos, 1, k_len or len(k)),
        ),
        height=int(lk.height * 0.8),
    )

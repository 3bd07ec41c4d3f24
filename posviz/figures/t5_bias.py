"""The T5 bias tensor: one function of plain arguments per figure, each returning a :class:`Chart`.

``head_bias``, ``bias_grid`` and ``pitfall`` are what the page (and a notebook) calls (the bias's effect
on attention: :mod:`posviz.figures.t5_attention`); the ``*_figure`` builders below them turn arrays into
specs. The bias table is the seeded N(0, 1) one of ``seed`` (``table=None``), or any
``(num_buckets, heads)`` float32 table given as its bytes (``array.astype(np.float32).tobytes()``: an
edited or uploaded table, hashable as a cache key).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import torch

from posviz.encodings.t5 import t5_bias, t5_bias_seed_transpose
from posviz.encodings.t5_toy import t5_bias_block_means, t5_toy_table
from posviz.figures.axes import Axes
from posviz.figures.chart import Chart
from posviz.figures.common import as_array, heatmap, heatmap_grid, subtitle_lines
from posviz.figures.csv import matrix_csv, panels_csv
from posviz.figures.t5 import MAIN_POINTS, on_axes, shown_axes
from posviz.i18n import _

PITFALL_POINTS = 112  # per axis for the three pitfall panels


# --- the table and the positions ------------------------------------------------------------------


def seeded_table(*, num_buckets: int, heads: int, seed: int) -> np.ndarray:
    """(num_buckets, heads) float32: N(0, 1), as ``nn.Embedding`` initialises it."""
    return t5_toy_table(num_buckets, heads, seed=seed).numpy()


def bias_table(*, num_buckets: int, heads: int, seed: int = 0, table: bytes | None = None) -> torch.Tensor:
    """The (num_buckets, heads) float32 table: ``table``'s bytes, or the seeded one when None.

    Raises:
        ValueError: when ``table`` does not hold ``num_buckets * heads`` float32 values.
    """
    if table is None:
        return t5_toy_table(num_buckets, heads, seed=seed)
    if len(table) != num_buckets * heads * 4:
        raise ValueError(
            _("The table holds {got} bytes, not the {wanted} of ({num_buckets}, {heads}) float32 values.").format(
                got=len(table), wanted=num_buckets * heads * 4, num_buckets=num_buckets, heads=heads
            )
        )
    return torch.as_tensor(np.frombuffer(table, dtype=np.float32).reshape(num_buckets, heads).copy())


def grid_points(heads: int) -> int:
    """Points per axis of each small multiple: all heads together hold about one 192 x 192 heatmap."""
    return max(16, min(64, int((MAIN_POINTS**2 / heads) ** 0.5)))


def position_tensors(ax: Axes) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.as_tensor(ax.q_pos), torch.as_tensor(ax.k_pos)


# --- the figures, by plain arguments ---------------------------------------------------------------


def head_bias(
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
    """Head ``head``'s bias at full resolution on the shown cells: ``(q shown, k shown)``."""
    ax = shown_axes(q_len=q_len, k_len=k_len, align=align, window=window, q_start=q_start, k_start=k_start)
    column = bias_table(num_buckets=num_buckets, heads=heads, seed=seed, table=table)[:, head : head + 1]
    bias = t5_bias(column, *position_tensors(ax), bidirectional=bidirectional, max_distance=max_distance, scale=scale)
    z = bias[0].numpy()  # (q shown, k shown)
    figure = bias_figure(z, head=head, **on_axes(ax, q_len, k_len, lecture))
    return Chart.of(figure, lambda: matrix_csv(z, ax.q_pos, ax.k_pos))


def grid_axes(*, q_len: int, k_len: int, align: str, heads: int, window: int = 0, q_start: int = 0, k_start: int = 0):
    """The shown positions of every small multiple of :func:`bias_grid`."""
    return shown_axes(
        q_len=q_len,
        k_len=k_len,
        align=align,
        window=window,
        q_start=q_start,
        k_start=k_start,
        points=grid_points(heads),
    )


def bias_grid(
    *,
    q_len: int,
    k_len: int,
    align: str,
    bidirectional: bool,
    num_buckets: int,
    max_distance: int,
    heads: int,
    scale: float = 1.0,
    seed: int = 0,
    table: bytes | None = None,
    window: int = 0,
    q_start: int = 0,
    k_start: int = 0,
    lecture: bool = False,
) -> Chart:
    """Every head's bias on a coarser grid: (heads, g, g), each cell the mean over the block of positions it
    starts (a strided sample aliases: :func:`posviz.encodings.t5_toy.t5_bias_block_means`)."""
    ax = grid_axes(q_len=q_len, k_len=k_len, align=align, heads=heads, window=window, q_start=q_start, k_start=k_start)
    full = bias_table(num_buckets=num_buckets, heads=heads, seed=seed, table=table)
    means = t5_bias_block_means(
        full, *position_tensors(ax), bidirectional=bidirectional, max_distance=max_distance, scale=scale
    )
    z = means.float().numpy()  # (heads, g, g)
    figure = bias_grid_figure(z, **on_axes(ax, q_len, k_len, lecture))
    return Chart.of(figure, lambda: panels_csv({f"head {h}": m for h, m in enumerate(z)}, ax.q_pos, ax.k_pos))


def pitfall_axes(*, q_len: int, k_len: int, align: str, window: int = 0, q_start: int = 0, k_start: int = 0) -> Axes:
    """The shown positions of :func:`pitfall`: coarser, the figure draws three panels."""
    return shown_axes(
        q_len=q_len, k_len=k_len, align=align, window=window, q_start=q_start, k_start=k_start, points=PITFALL_POINTS
    )


def pitfall(
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
    """Head ``head``'s bias by ``permute(2, 0, 1)`` and by the seeds' ``transpose(0, 2)``, and their difference.

    Raises:
        ValueError: unless ``q_len == k_len`` (otherwise the transposed bias does not fit the scores).
    """
    if q_len != k_len:
        raise ValueError(
            _("The pitfall is drawn for square views only, not q_len = {q_len} and k_len = {k_len}.").format(
                q_len=q_len, k_len=k_len
            )
        )
    ax = pitfall_axes(q_len=q_len, k_len=k_len, align=align, window=window, q_start=q_start, k_start=k_start)
    column = bias_table(num_buckets=num_buckets, heads=heads, seed=seed, table=table)[:, head : head + 1]
    kw = dict(bidirectional=bidirectional, max_distance=max_distance, scale=scale)
    correct = t5_bias(column, *position_tensors(ax), **kw)[0].numpy()
    transposed = t5_bias_seed_transpose(column, *position_tensors(ax), **kw)[0].numpy()
    figure = pitfall_figure(correct, transposed, head=head, **on_axes(ax, q_len, k_len, lecture))
    return Chart.of(
        figure,
        lambda: panels_csv({"permute(2, 0, 1)": correct, "transpose(0, 2)": transposed}, ax.q_pos, ax.k_pos),
    )


# --- the builders: arrays in, specs out ------------------------------------------------------------


def bias_figure(bias_h, *, head: int, q_pos, k_pos, q_len: int, k_len: int, lecture: bool = False) -> go.Figure:
    """One head's additive bias ``bias[0, head]`` on a diverging scale."""
    return heatmap(
        bias_h,
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=q_len,
        k_len=k_len,
        lecture=lecture,
        title=_("Bias added to head {head}'s logits").format(head=head),
        value_name=_("bias"),
        palette="diverging",
        subtitle=_("scale · table[bucket(j − i), head]"),
    )


def bias_grid_figure(bias, *, q_pos, k_pos, q_len: int, k_len: int, lecture: bool = False) -> go.Figure:
    """Every head's bias, small multiples on one shared diverging scale; each cell the mean over the block
    of positions it starts (:mod:`posviz.encodings.pooling`: a strided sample aliases)."""
    heads = bias.shape[0]
    return heatmap_grid(
        bias,
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=q_len,
        k_len=k_len,
        lecture=lecture,
        titles=[_("head {h}").format(h=h) for h in range(heads)],
        value_name=_("bias"),
        title=_("All {heads} heads of the bias tensor (1, {heads}, q_len, k_len)").format(heads=heads),
        cols=4 if heads <= 16 else 8,
        pooled=True,
    )


def pitfall_figure(
    correct,
    transposed,
    *,
    head: int,
    q_pos,
    k_pos,
    q_len: int | None = None,
    k_len: int | None = None,
    lecture: bool = False,
) -> go.Figure:
    """``permute(2, 0, 1)`` against the seeds' ``transpose(0, 2)`` for a square bias."""
    correct, transposed = as_array(correct), as_array(transposed)
    return heatmap_grid(
        np.stack([correct, transposed, transposed - correct]),
        q_pos=q_pos,
        k_pos=k_pos,
        titles=["permute(2, 0, 1)", "transpose(0, 2)", _("difference")],
        title=_("Head {head}: the same tensor, two reshapes").format(head=head),
        subtitle=subtitle_lines(
            _("left: correct; middle: what transpose(0, 2) adds at (i, j); right: middle − left"),
            _("transpose(0, 2) swaps queries and keys: it adds bias(i − j) instead of bias(j − i)"),
        ),
        value_name=_("bias"),
        palette="diverging",
        cols=3,
        q_len=q_len,
        k_len=k_len,
        lecture=lecture,
    )

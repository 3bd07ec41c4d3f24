"""The Shaw page's toy attention: content and relative scores, attention without and with the relative
term, and what the value table adds; one function of plain arguments per figure, each returning a
:class:`Chart`.

``scores``, ``attention`` and ``value_term`` take the toy's lengths (the page caps them); the three
share one toy computation of the shown queries (``_toy``), and only ``value_term`` depends on
``separate`` (the scores read a^K, the first table drawn, either way).
"""

from __future__ import annotations

import functools

import numpy as np
import plotly.graph_objects as go
import torch

from posviz.encodings.shaw import ShawToy, shaw_toy, shaw_toy_value_term
from posviz.figures.axes import Axes, Window, axes
from posviz.figures.chart import Chart
from posviz.figures.common import Panel, as_array, heatmap, heatmap_row, number
from posviz.figures.csv import matrix_csv, panels_csv
from posviz.i18n import _

PAIR_POINTS = 96  # per axis of each panel of the score and attention pairs
TOY_ENTRIES = 8  # toy computations kept, each shared by the three toy figures of one view


def scores_figure(content, relative, *, q_pos, k_pos, q_len: int, k_len: int, lecture: bool = False) -> go.Figure:
    """``Q K^T`` next to ``Q R^T`` on one diverging scale (both before ``/ sqrt(d)``)."""
    content, relative = as_array(content), as_array(relative)
    panels = [
        Panel(content, _("content Q Kᵀ"), _("content score"), "diverging"),
        Panel(relative, _("relative Q Rᵀ  (q_i · a^K[index_ij])"), _("relative score"), "diverging"),
    ]
    big, small = float(np.abs(content).max()), float(np.abs(relative).max())
    ratio = (
        _("; here the content term is {ratio} times larger").format(ratio=f"{big / small:.0f}")
        if small > 0 and big / small >= 2
        else ""
    )
    return heatmap_row(
        panels,
        q_pos=q_pos,
        k_pos=k_pos,
        title=_("Scores: what the keys say, and what the distances add"),
        subtitle=_(
            "each on its own colour scale (content up to ±{big}, relative up to ±{small}{ratio}); "
            "the logits are their sum / √d"
        ).format(big=number(big, 3), small=number(small, 3), ratio=ratio),
        q_len=q_len,
        k_len=k_len,
        lecture=lecture,
    )


def attention_figure(without, with_rel, *, q_pos, k_pos, q_len: int, k_len: int, lecture: bool = False) -> go.Figure:
    """Toy attention without and with the relative term, one colour scale."""
    panels = [
        Panel(without, "softmax(Q Kᵀ / √d)", _("weight"), log_scale=True),
        Panel(with_rel, "softmax((Q Kᵀ + Q Rᵀ) / √d)", _("weight"), log_scale=True),
    ]
    return heatmap_row(
        panels,
        q_pos=q_pos,
        k_pos=k_pos,
        title=_("Attention on a toy sequence, without and with relative positions"),
        subtitle=_(
            "random queries and keys from the seed; each row sums to 1 over every key; "
            "colour: log scale, one for both (most weights are tiny, a few large)"
        ),
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
        title=_("What the value table adds to each output: Σⱼ wᵢⱼ a^V[index_ij]"),
        value_name=_("added"),
        palette="diverging",
        subtitle=_("the same table as the keys' (shared)") if shared else _("a^V, a table of its own"),
        q_len=q_len,
        k_len=z.shape[1],
        lecture=lecture,
    )
    fig.update_xaxes(title_text=_("output component"))
    fig.update_traces(
        customdata=None,
        hovertemplate=_("query i = %{y}<br>component %{x}<br>added = %{z:.3f}") + "<extra></extra>",
    )
    return fig


# --- the figures, by plain arguments ---------------------------------------------------------------


def pair_axes(*, q_len: int, k_len: int, align: str, window: int = 0, q_start: int = 0, k_start: int = 0) -> Axes:
    """The shown queries and keys of the score and attention pairs (toy lengths): at most ``PAIR_POINTS``."""
    return axes(q_len, k_len, align, PAIR_POINTS, window=Window(q_start, k_start, window))


@functools.lru_cache(maxsize=TOY_ENTRIES)
def _toy(*, q_len: int, k_len: int, align: str, clip: int, dim: int, seed: int, q_pos: tuple[int, ...]) -> ShawToy:
    """The toy of the shown queries against every key, shared by the scores, the attention and the value term
    (never mutated)."""
    offset = k_len - q_len if align == "end" else 0
    return shaw_toy(torch.tensor(q_pos), q_len=q_len, k_len=k_len, offset=offset, clip=clip, dim=dim, seed=seed)


def toy_arrays(
    *, q_len: int, k_len: int, align: str, clip: int, dim: int, seed: int, window: int, q_start: int, k_start: int
) -> tuple[Axes, ShawToy]:
    """The shown cells of the toy figures and the toy of their queries (lengths already capped by the page)."""
    ax = pair_axes(q_len=q_len, k_len=k_len, align=align, window=window, q_start=q_start, k_start=k_start)
    return ax, _toy(
        q_len=q_len, k_len=k_len, align=align, clip=clip, dim=dim, seed=seed, q_pos=tuple(ax.q_pos.tolist())
    )


def scores(
    *,
    q_len: int,
    k_len: int,
    align: str,
    clip: int,
    dim: int,
    seed: int,
    window: int = 0,
    q_start: int = 0,
    k_start: int = 0,
    lecture: bool = False,
) -> Chart:
    """Toy content scores ``Q K^T`` beside the relative ones ``Q R^T`` on the shown cells."""
    ax, toy = toy_arrays(
        q_len=q_len, k_len=k_len, align=align, clip=clip, dim=dim, seed=seed, window=window, q_start=q_start,
        k_start=k_start,
    )  # fmt: skip
    content, relative = toy.content[:, ax.k_pos].numpy(), toy.relative[:, ax.k_pos].numpy()
    figure = scores_figure(content, relative, q_pos=ax.q_pos, k_pos=ax.k_pos, q_len=q_len, k_len=k_len, lecture=lecture)
    return Chart.of(figure, lambda: panels_csv({"Q K^T": content, "Q R^T": relative}, ax.q_pos, ax.k_pos))


def attention(
    *,
    q_len: int,
    k_len: int,
    align: str,
    clip: int,
    dim: int,
    seed: int,
    window: int = 0,
    q_start: int = 0,
    k_start: int = 0,
    lecture: bool = False,
) -> Chart:
    """Toy attention without and with the relative term on the shown cells (each row over every key)."""
    ax, toy = toy_arrays(
        q_len=q_len, k_len=k_len, align=align, clip=clip, dim=dim, seed=seed, window=window, q_start=q_start,
        k_start=k_start,
    )  # fmt: skip
    without, with_rel = toy.without[:, ax.k_pos].numpy(), toy.weights[:, ax.k_pos].numpy()
    figure = attention_figure(
        without, with_rel, q_pos=ax.q_pos, k_pos=ax.k_pos, q_len=q_len, k_len=k_len, lecture=lecture
    )
    return Chart.of(figure, lambda: panels_csv({"without": without, "with": with_rel}, ax.q_pos, ax.k_pos))


def value_term(
    *,
    q_len: int,
    k_len: int,
    align: str,
    clip: int,
    dim: int,
    seed: int,
    separate: bool,
    window: int = 0,
    q_start: int = 0,
    k_start: int = 0,
    lecture: bool = False,
) -> Chart:
    """(q shown, dim) what a^V adds to each shown query's output, ``sum_j w_ij a^V[index_ij]`` over every key."""
    ax, toy = toy_arrays(
        q_len=q_len, k_len=k_len, align=align, clip=clip, dim=dim, seed=seed, window=window, q_start=q_start,
        k_start=k_start,
    )  # fmt: skip
    term = shaw_toy_value_term(toy, clip=clip, dim=dim, seed=seed, separate=separate).numpy()
    figure = value_term_figure(term, q_pos=ax.q_pos, q_len=q_len, shared=not separate, lecture=lecture)
    return Chart.of(figure, lambda: matrix_csv(term, ax.q_pos, range(dim)))

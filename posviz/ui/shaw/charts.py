"""The Shaw page's figures, each with its CSV, cached process-wide by exactly the arguments they are built from.

Each takes the narrowest key that determines it plus lecture mode: moving
``row`` rebuilds the ``R[i]`` figure only, ``separate`` the tables and the
value term only (the scores read a^K, the first table drawn, either way).
"""

from __future__ import annotations

import numpy as np

from posviz.figures import shaw as fig
from posviz.figures.axes import figure_args
from posviz.figures.csv import columns_csv, matrix_csv, panels_csv
from posviz.figures.memory import bytes_figure
from posviz.ui.cache import Chart, cached_figure
from posviz.ui.shaw.settings import BytesKey, IndexKey, RowKey, ScoreKey, TableKey, ToyKey
from posviz.ui.shaw.views import (
    index_view,
    main_axes,
    memory_view,
    pair_axes,
    row_view,
    table_view,
    toy_view,
    value_term_view,
)


@cached_figure
def index(k: IndexKey, lecture: bool) -> Chart:
    v = index_view(k)
    figure = fig.index_figure(v.rel, v.index, clip=k.clip, **figure_args(main_axes(k), k, lecture))
    return Chart(figure, lambda: index_csv(k))


def named_tables(k: TableKey) -> dict[str, np.ndarray]:
    """The tables drawn, by their legend name: two, or one when keys and values share it."""
    table_k, table_v = table_view(k)
    return {"a^K (keys)": table_k, "a^V (values)": table_v} if k.separate else {"a^K = a^V (shared)": table_k}


@cached_figure
def table(k: TableKey, lecture: bool) -> Chart:
    figure = fig.table_figure(named_tables(k), clip=k.clip, lecture=lecture)
    return Chart(figure, lambda: table_csv(k))


@cached_figure
def relations_row(k: RowKey, lecture: bool) -> Chart:
    v = row_view(k)
    figure = fig.relations_figure(
        v.relations, row=v.position, k_pos=v.k_pos, k_len=k.k_len, clip=k.clip, index_row=v.index, lecture=lecture
    )
    return Chart(figure, lambda: row_csv(k))


@cached_figure
def scores(k: ScoreKey, lecture: bool) -> Chart:
    """``k`` is the toy key (lengths capped), as for the two below."""
    v = toy_view(k)
    figure = fig.scores_figure(v.content, v.relative, **figure_args(pair_axes(k), k, lecture))
    return Chart(figure, lambda: scores_csv(k))


@cached_figure
def attention(k: ScoreKey, lecture: bool) -> Chart:
    v = toy_view(k)
    figure = fig.attention_figure(v.without, v.with_rel, **figure_args(pair_axes(k), k, lecture))
    return Chart(figure, lambda: attention_csv(k))


@cached_figure
def value_term(k: ToyKey, lecture: bool) -> Chart:
    figure = fig.value_term_figure(
        value_term_view(k), q_pos=pair_axes(k).q_pos, q_len=k.q_len, shared=not k.separate, lecture=lecture
    )
    return Chart(figure, lambda: value_term_csv(k))


@cached_figure
def memory(k: BytesKey, current: int, lecture: bool) -> Chart:
    """``current``: the length marked on the chart, ``max(q_len, k_len)``."""
    v = memory_view(k)
    figure = bytes_figure(
        v.lengths,
        {f"R (L, L, {k.dim})": (v.r_bytes, v.allocated), "logits (L, L)": (v.logits, v.allocated)},
        title="Bytes of R = table[index] as L grows: O(L² d)",
        subtitle=f"float32, q_len = k_len = L, dim = {k.dim}; R is dim times the logits",
        current=current,
        lecture=lecture,
    )
    return Chart(figure, lambda: memory_csv(k))


# The data behind each figure as CSV (built when the download is clicked).
def index_csv(k: IndexKey) -> str:
    v, ax = index_view(k), main_axes(k)
    return panels_csv({"r = j - i": v.rel, "index": v.index}, ax.q_pos, ax.k_pos)


def table_csv(k: TableKey) -> str:
    named = named_tables(k)
    return columns_csv({f"{n} component {c}": t[:, c] for n, t in named.items() for c in range(t.shape[1])})


def row_csv(k: RowKey) -> str:
    v = row_view(k)
    return columns_csv(
        {"key j": v.k_pos, "table row": v.index, **{f"component {c}": v.relations[:, c] for c in range(k.dim)}}
    )


def scores_csv(k: ScoreKey) -> str:
    v, ax = toy_view(k), pair_axes(k)
    return panels_csv({"Q K^T": v.content, "Q R^T": v.relative}, ax.q_pos, ax.k_pos)


def attention_csv(k: ScoreKey) -> str:
    v, ax = toy_view(k), pair_axes(k)
    return panels_csv({"without": v.without, "with": v.with_rel}, ax.q_pos, ax.k_pos)


def value_term_csv(k: ToyKey) -> str:
    return matrix_csv(value_term_view(k), pair_axes(k).q_pos, range(k.dim))


def memory_csv(k: BytesKey) -> str:
    v = memory_view(k)
    return columns_csv({"L": v.lengths, "R bytes": v.r_bytes, "logits bytes": v.logits, "allocated": v.allocated})

"""The Shaw page's settings and its cached backend calls (keyed by scalars)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st
import torch

from posviz.encodings.positions import display_positions, query_positions, relative_positions
from posviz.encodings.shaw import (
    shaw_index,
    shaw_relations,
    shaw_relations_bytes,
    shaw_scores,
    shaw_table,
    shaw_value_term,
)
from posviz.ui.axes import Axes, axes
from posviz.ui.controls import control

MAIN_POINTS = 128  # per axis of each of the three index panels
PAIR_POINTS = 96  # per axis of each panel of the score and attention pairs
ROW_POINTS = 256  # keys in the R[i] slice
TOY_MAX_LEN = 2048  # toy content: the softmax needs every key, so its lengths are capped
MEMORY_LENGTHS = tuple(2**p for p in range(4, 18))  # 16 .. 131072
ALLOCATE_UP_TO = 32 * 2**20  # bytes: below this the memory chart allocates R for real
CACHE = 64


@dataclass(frozen=True)
class ShawSettings:
    """Everything that determines the Shaw page's tensors."""

    q_len: int = 32
    k_len: int = 32
    align: str = "start"
    clip: int = 8
    dim: int = 64
    seed: int = 0
    separate: bool = True
    row: int = 16

    @property
    def offset(self) -> int:
        return self.k_len - self.q_len if self.align == "end" else 0

    @property
    def toy_q_len(self) -> int:
        return min(self.q_len, TOY_MAX_LEN)

    @property
    def toy_k_len(self) -> int:
        return min(self.k_len, TOY_MAX_LEN)


DEFAULTS = ShawSettings()


def shaw_controls() -> ShawSettings:
    """The sidebar controls of the Shaw page, in reading order."""
    st.sidebar.subheader("Sequence")
    q_len = control("q_len", default=DEFAULTS.q_len)
    k_len = control("k_len", default=DEFAULTS.k_len)
    align = control("align")
    st.sidebar.subheader("Relative table")
    clip = control("clip", default=DEFAULTS.clip)
    dim = control("dim", max_value=256, default=DEFAULTS.dim)
    separate = control("separate")
    seed = control("seed")
    row = control("row", max_value=q_len - 1, default=DEFAULTS.row) if q_len > 1 else 0
    return ShawSettings(
        q_len=q_len, k_len=k_len, align=align, clip=clip, dim=dim, seed=seed, separate=separate, row=row
    )


def shaw_problem(s: ShawSettings) -> str | None:
    """The first cross-field rule the settings break, as a message; None if fine."""
    try:
        query_positions(s.q_len, s.k_len, align=s.align)
    except ValueError as err:
        return str(err)
    return None


@dataclass(frozen=True)
class IndexView:
    ax: Axes
    rel: np.ndarray  # (q shown, k shown) int: j - i
    index: np.ndarray  # (q shown, k shown) int: the table row


@st.cache_data(max_entries=CACHE, show_spinner=False)
def index_view(q_len: int, k_len: int, align: str, clip: int) -> IndexView:
    ax = axes(q_len, k_len, align, MAIN_POINTS)
    q, k = torch.from_numpy(ax.q_pos), torch.from_numpy(ax.k_pos)
    return IndexView(ax=ax, rel=relative_positions(q, k).numpy(), index=shaw_index(q, k, clip=clip).numpy())


def tables(clip: int, dim: int, seed: int, separate: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """``(a^K, a^V)``, each (2K + 1, dim): one generator, keys first; the same table twice when shared."""
    g = torch.Generator().manual_seed(seed)
    table_k = shaw_table(clip, dim, generator=g)
    return table_k, (shaw_table(clip, dim, generator=g) if separate else table_k)


@st.cache_data(max_entries=CACHE, show_spinner=False)
def table_view(clip: int, dim: int, seed: int, separate: bool) -> tuple[np.ndarray, np.ndarray]:
    table_k, table_v = tables(clip, dim, seed, separate)
    return table_k.numpy(), table_v.numpy()


@dataclass(frozen=True)
class RowView:
    position: int  # the query's position i
    k_pos: np.ndarray  # (k shown,)
    index: np.ndarray  # (k shown,) table rows
    relations: np.ndarray  # (k shown, dim): R[i] on the shown keys


@st.cache_data(max_entries=CACHE, show_spinner=False)
def row_view(q_len: int, k_len: int, align: str, clip: int, dim: int, seed: int, row: int) -> RowView:
    """``R[i]`` for one query on at most ``ROW_POINTS`` keys: only that row is looked up."""
    position = int(query_positions(q_len, k_len, align=align)[row])
    k = display_positions(k_len, ROW_POINTS)
    table_k, _ = tables(clip, dim, seed, True)
    index = shaw_index(torch.tensor([position]), k, clip=clip)  # (1, k shown)
    return RowView(
        position=position,
        k_pos=k.numpy(),
        index=index[0].numpy(),
        relations=shaw_relations(table_k, index)[0].numpy(),
    )


def toy_qkv(q_len: int, k_len: int, dim: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Standard-normal toy ``q (q_len, dim)``, ``k, v (k_len, dim)`` from their own generator (``seed + 1``)."""
    g = torch.Generator().manual_seed(seed + 1)
    q = torch.randn(q_len, dim, generator=g)
    k = torch.randn(k_len, dim, generator=g)
    v = torch.randn(k_len, dim, generator=g)
    return q, k, v


@dataclass(frozen=True)
class ToyView:
    ax: Axes
    content: np.ndarray  # (rows, cols) q K^T
    relative: np.ndarray  # (rows, cols) q R^T
    without: np.ndarray  # (rows, cols) attention without the relative term
    with_rel: np.ndarray  # (rows, cols) with it
    value_term: np.ndarray  # (rows, dim) sum_j w_ij a^V[index_ij]


@st.cache_data(max_entries=CACHE, show_spinner=False)
def toy_view(q_len: int, k_len: int, align: str, clip: int, dim: int, seed: int, separate: bool) -> ToyView:
    """Toy attention on the shown rows; each row's softmax runs over every key.

    Only the shown query rows are computed, and ``R`` is never built: the
    relative scores gather from ``q a^K^T`` and the value term sums weights
    per table row (:mod:`posviz.encodings.shaw`).
    """
    ax = axes(q_len, k_len, align, PAIR_POINTS)
    q, k, v = toy_qkv(q_len, k_len, dim, seed)
    table_k, table_v = tables(clip, dim, seed, separate)
    rows = display_positions(q_len, PAIR_POINTS)  # query indices shown
    cols = torch.from_numpy(ax.k_pos)  # key indices shown (index = position)
    q_rows = q[rows]  # (rows, dim)
    index = shaw_index(torch.from_numpy(ax.q_pos), torch.arange(k_len), clip=clip)  # (rows, k_len)
    content = q_rows @ k.T  # (rows, k_len)
    relative = shaw_scores(q_rows, table_k, index)  # (rows, k_len)
    scale = dim**-0.5
    without = torch.softmax(content * scale, dim=-1)
    with_rel = torch.softmax((content + relative) * scale, dim=-1)
    return ToyView(
        ax=ax,
        content=content[:, cols].numpy(),
        relative=relative[:, cols].numpy(),
        without=without[:, cols].numpy(),
        with_rel=with_rel[:, cols].numpy(),
        value_term=shaw_value_term(with_rel, table_v, index).numpy(),
    )


@st.cache_data(max_entries=CACHE, show_spinner=False)
def memory_view(dim: int, clip: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Bytes of ``R`` (L, L, dim) and of the (L, L) logits, for ``MEMORY_LENGTHS``.

    Returns:
        ``(lengths, r_bytes, logits_bytes, allocated)``; ``allocated`` marks the
        lengths where ``R`` was really built (up to ``ALLOCATE_UP_TO``), the
        others ran the same lookup on the meta device.
    """
    lengths = np.array(MEMORY_LENGTHS)
    r_bytes, allocated = [], []
    for n in MEMORY_LENGTHS:
        small = n * n * dim * 4 <= ALLOCATE_UP_TO
        r_bytes.append(shaw_relations_bytes(n, n, dim, clip=clip, device="cpu" if small else "meta"))
        allocated.append(small)
    logits = [
        torch.empty(n, n, device="cpu" if small else "meta").untyped_storage().nbytes()
        for n, small in zip(MEMORY_LENGTHS, allocated, strict=True)
    ]
    return lengths, np.array(r_bytes), np.array(logits), np.array(allocated)

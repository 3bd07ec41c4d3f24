"""The Shaw page's cached views: settings (or a narrower key) in, arrays out."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from posviz.encodings.attention import content_scores, logits_bytes, masked_softmax, toy_normal, toy_qk
from posviz.encodings.positions import all_positions, display_positions, query_positions, relative_positions
from posviz.encodings.shaw import (
    shaw_index,
    shaw_relations,
    shaw_relations_bytes,
    shaw_scores,
    shaw_table,
    shaw_value_term,
)
from posviz.figures.axes import Axes, Window, axes
from posviz.ui.cache import cached_view
from posviz.ui.settings import project
from posviz.ui.shaw.settings import (
    ALLOCATE_UP_TO,
    MAIN_POINTS,
    MEMORY_LENGTHS,
    PAIR_POINTS,
    ROW_POINTS,
    BytesKey,
    IndexKey,
    RowKey,
    ScoreKey,
    TableKey,
    ToyKey,
)


def main_axes(k: IndexKey) -> Axes:
    """The shown queries and keys of the three index panels."""
    return axes(k.q_len, k.k_len, k.align, MAIN_POINTS, window=Window(k.q_start, k.k_start, k.window))


def pair_axes(k: IndexKey) -> Axes:
    """The shown queries and keys of the score and attention pairs (``k``: the toy key, lengths capped)."""
    return axes(k.q_len, k.k_len, k.align, PAIR_POINTS, window=Window(k.q_start, k.k_start, k.window))


@dataclass(frozen=True)
class IndexView:
    rel: np.ndarray  # (q shown, k shown) int: j - i
    index: np.ndarray  # (q shown, k shown) int: the table row


@cached_view(max_entries=64)
def index_view(k: IndexKey) -> IndexView:
    ax = main_axes(k)
    q, kp = torch.as_tensor(ax.q_pos), torch.as_tensor(ax.k_pos)
    return IndexView(rel=relative_positions(q, kp).numpy(), index=shaw_index(q, kp, clip=k.clip).numpy())


def tables(k: TableKey) -> tuple[torch.Tensor, torch.Tensor]:
    """``(a^K, a^V)``, each (2K + 1, dim): one generator, keys first; the same table twice when shared."""
    g = torch.Generator().manual_seed(k.seed)
    table_k = shaw_table(k.clip, k.dim, generator=g)
    return table_k, (shaw_table(k.clip, k.dim, generator=g) if k.separate else table_k)


@cached_view(max_entries=64)
def table_view(k: TableKey) -> tuple[np.ndarray, np.ndarray]:
    table_k, table_v = tables(k)
    return table_k.numpy(), table_v.numpy()


@dataclass(frozen=True)
class RowView:
    position: int  # the query's position i
    k_pos: np.ndarray  # (k shown,)
    index: np.ndarray  # (k shown,) table rows
    relations: np.ndarray  # (k shown, dim): R[i] on the shown keys

    @property
    def k_stride(self) -> int:
        return int(self.k_pos[1] - self.k_pos[0]) if len(self.k_pos) > 1 else 1


@cached_view(max_entries=64)
def row_view(k: RowKey) -> RowView:
    """``R[i]`` for one query on at most ``ROW_POINTS`` keys: only that row is looked up."""
    position = int(query_positions(k.q_len, k.k_len, align=k.align)[k.row])
    kp = display_positions(k.k_len, ROW_POINTS)
    table_k, _ = tables(TableKey(clip=k.clip, dim=k.dim, seed=k.seed, separate=False))  # a^K: the first draw
    index = shaw_index(torch.tensor([position]), kp, clip=k.clip)  # (1, k shown)
    return RowView(
        position=position,
        k_pos=kp.numpy(),
        index=index[0].numpy(),
        relations=shaw_relations(table_k, index)[0].numpy(),
    )


def toy_qkv(k: ScoreKey) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Standard-normal toy ``q (q_len, dim)``, ``k, v (k_len, dim)`` from their own generator (``seed + 1``)."""
    g = torch.Generator().manual_seed(k.seed + 1)
    q, keys = toy_qk(k.q_len, k.k_len, k.dim, generator=g)
    return q, keys, toy_normal(k.k_len, k.dim, generator=g)


def _toy_scores(k: ScoreKey) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(content, relative, index)``, each (rows shown, k_len): the shown queries against every key.

    ``R`` is never built: the relative scores gather from ``q a^K^T`` (:mod:`posviz.encodings.shaw`).
    """
    q, keys, _ = toy_qkv(k)
    table_k, _ = tables(TableKey(clip=k.clip, dim=k.dim, seed=k.seed, separate=False))  # a^K
    q_pos = torch.as_tensor(pair_axes(k).q_pos)  # the shown queries (inside the zoom window, if any)
    q_rows = q[q_pos - k.offset]  # (rows, dim): the shown queries only
    index = shaw_index(q_pos, all_positions(k.k_len), clip=k.clip)  # (rows, k_len)
    return content_scores(q_rows, keys), shaw_scores(q_rows, table_k, index), index


def _weights(content: torch.Tensor, relative: torch.Tensor, k: ScoreKey) -> torch.Tensor:
    """(rows, k_len) attention with the relative term: each row's softmax runs over every key."""
    return masked_softmax((content + relative) * k.dim**-0.5)


@dataclass(frozen=True)
class ToyView:
    content: np.ndarray  # (rows, cols) q K^T
    relative: np.ndarray  # (rows, cols) q R^T
    without: np.ndarray  # (rows, cols) attention without the relative term
    with_rel: np.ndarray  # (rows, cols) with it


@cached_view(max_entries=64)
def toy_view(k: ScoreKey) -> ToyView:
    """Toy scores and attention on the shown rows and columns (``k``: the toy key, lengths capped)."""
    content, relative, _ = _toy_scores(k)
    cols = torch.as_tensor(pair_axes(k).k_pos)  # key indices shown (index = position)
    without = masked_softmax(content * k.dim**-0.5)
    return ToyView(
        content=content[:, cols].numpy(),
        relative=relative[:, cols].numpy(),
        without=without[:, cols].numpy(),
        with_rel=_weights(content, relative, k)[:, cols].numpy(),
    )


@cached_view(max_entries=64)
def value_term_view(k: ToyKey) -> np.ndarray:
    """(rows, dim) what a^V adds to each shown query's output, ``sum_j w_ij a^V[index_ij]`` over every key."""
    content, relative, index = _toy_scores(k)
    _, table_v = tables(project(k, TableKey))
    return shaw_value_term(_weights(content, relative, k), table_v, index).numpy()


@dataclass(frozen=True)
class MemoryView:
    lengths: np.ndarray  # (n,) MEMORY_LENGTHS
    r_bytes: np.ndarray  # bytes of R (L, L, dim)
    logits: np.ndarray  # bytes of the (L, L) logits
    allocated: np.ndarray  # bool: really allocated and measured (else the meta device)


@cached_view
def memory_view(k: BytesKey) -> MemoryView:
    """Bytes of ``R`` (L, L, dim) and of the (L, L) logits, for ``MEMORY_LENGTHS``.

    ``allocated`` marks the lengths where ``R`` was really built (up to
    ``ALLOCATE_UP_TO``); the others ran the same lookup on the meta device.
    """
    allocated = np.array([n * n * k.dim * 4 <= ALLOCATE_UP_TO for n in MEMORY_LENGTHS])
    devices = ["cpu" if small else "meta" for small in allocated]
    r_bytes = [
        shaw_relations_bytes(n, n, k.dim, clip=k.clip, device=d) for n, d in zip(MEMORY_LENGTHS, devices, strict=True)
    ]
    logits = [logits_bytes(n, n, device=d) for n, d in zip(MEMORY_LENGTHS, devices, strict=True)]
    return MemoryView(np.array(MEMORY_LENGTHS), np.array(r_bytes), np.array(logits), allocated)

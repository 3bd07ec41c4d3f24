"""Shaw et al. 2018: a learned vector per clipped relative distance.

Canonical code: tensor2tensor ``layers/common_attention.py``,
``_generate_relative_positions_matrix`` and ``_relative_attention_inner``.
Each pair ``(i, j)`` looks up row ``clip(j - i, -K, K) + K`` of a table of
``2K + 1`` vectors; every pair farther apart than ``K`` shares an edge row.
Keys get one table (``a^K``), values another (``a^V``)::

    e_ij = q_i . (k_j + a^K[index_ij]) / sqrt(d)
    z_i  = sum_j softmax(e_i)_j (v_j + a^V[index_ij])

Materialising ``R = a^K[index]`` costs ``(q_len, k_len, d)``: the ``O(L^2 d)``
memory the Music Transformer skew removes. The scores and the value term need
no ``R``: :func:`shaw_scores` gathers from ``q a^K^T`` ``(q_len, 2K + 1)`` and
:func:`shaw_value_term` sums the weights per table row first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from posviz.encodings.attention import content_scores, masked_softmax, toy_normal, toy_qk
from posviz.encodings.positions import all_positions, relative_positions
from posviz.i18n import _


def check_clip(clip: int) -> None:
    if clip < 0:
        raise ValueError(_("clip must be 0 or more (it is {clip}): the table has 2 * clip + 1 rows.").format(clip=clip))


def shaw_index(q_pos: torch.Tensor, k_pos: torch.Tensor, *, clip: int) -> torch.Tensor:
    """Row of the table each pair looks up: ``clamp(k - q, -clip, clip) + clip``.

    Args:
        q_pos: (q_len,) int64 query positions.
        k_pos: (k_len,) int64 key positions.
        clip: ``K``, the largest distance with its own row.

    Returns:
        (q_len, k_len) int64 in ``[0, 2K]``; ``K`` is the diagonal (``j = i``).
    """
    check_clip(clip)
    return relative_positions(q_pos, k_pos).clamp(-clip, clip) + clip


def shaw_table(clip: int, dim: int, *, generator: torch.Generator) -> torch.Tensor:
    """A ``(2K + 1, dim)`` float32 table, Xavier-normal initialised as in the seed notebook."""
    check_clip(clip)
    if dim < 1:
        raise ValueError(_("dim must be at least 1 (it is {dim}).").format(dim=dim))
    table = torch.empty(2 * clip + 1, dim)
    torch.nn.init.xavier_normal_(table, generator=generator)
    return table


def shaw_seeded_tables(clip: int, dim: int, *, seed: int, separate: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """``(a^K, a^V)``, each (2K + 1, dim), from one generator seeded with ``seed``, keys first.

    With ``separate=False`` keys and values share one table: the same tensor twice (and
    ``a^K`` is the same as with separate tables: the first one drawn).
    """
    g = torch.Generator().manual_seed(seed)
    table_k = shaw_table(clip, dim, generator=g)
    return table_k, (shaw_table(clip, dim, generator=g) if separate else table_k)


def shaw_relations(table: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """``R = table[index]``: one vector per pair, ``(q_len, k_len, dim)`` (the costly tensor)."""
    return table[index]


def shaw_scores(q: torch.Tensor, table: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """Relative scores ``q_i . a^K[index_ij]`` without building ``R``.

    Args:
        q: (q_len, d) queries.
        table: (2K + 1, d) key table ``a^K``.
        index: (q_len, k_len) from :func:`shaw_index`.

    Returns:
        (q_len, k_len): the same numbers as ``(R @ q[:, :, None])[..., 0]``,
        in ``O(q_len (2K + 1) d + q_len k_len)`` memory.
    """
    per_row = q @ table.T  # (q_len, 2K + 1): each query against every table row
    return per_row.gather(1, index)


def shaw_logits(q: torch.Tensor, k: torch.Tensor, table_k: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """``(q K^T + Q R^T) / sqrt(d)``, ``(q_len, k_len)``."""
    return (q @ k.T + shaw_scores(q, table_k, index)) / math.sqrt(q.shape[-1])


def shaw_value_term(weights: torch.Tensor, table_v: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """``sum_j w_ij a^V[index_ij]`` per query, without building ``R``.

    Args:
        weights: (q_len, k_len) attention weights.
        table_v: (2K + 1, d) value table ``a^V``.
        index: (q_len, k_len).

    Returns:
        (q_len, d): the weights summed per table row, times the table.
    """
    per_row = torch.zeros(weights.shape[0], table_v.shape[0], dtype=weights.dtype)  # (q_len, 2K + 1)
    per_row.scatter_add_(1, index, weights)
    return per_row @ table_v


def shaw_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    table_k: torch.Tensor,
    table_v: torch.Tensor,
    index: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Shaw self-attention of one head (no mask).

    Args:
        q: (q_len, d); k, v: (k_len, d).
        table_k, table_v: (2K + 1, d); pass the same table twice for a shared one.
        index: (q_len, k_len) from :func:`shaw_index`.

    Returns:
        ``(weights, out)``: (q_len, k_len) and (q_len, d).
    """
    weights = torch.softmax(shaw_logits(q, k, table_k, index), dim=-1)
    return weights, weights @ v + shaw_value_term(weights, table_v, index)


def shaw_relations_bytes(q_len: int, k_len: int, dim: int, *, clip: int, device: str = "meta") -> int:
    """Bytes of the ``R`` that :func:`shaw_relations` returns for these sizes.

    Runs the real lookup: on the ``meta`` device PyTorch works out the result's
    storage without allocating it, so huge lengths cost nothing; on ``cpu`` the
    tensor is really allocated (and freed).
    """
    table = torch.zeros(2 * clip + 1, dim, device=device)
    q_pos, k_pos = torch.arange(q_len, device=device), torch.arange(k_len, device=device)
    rel = shaw_relations(table, shaw_index(q_pos, k_pos, clip=clip))
    return rel.untyped_storage().nbytes()


def shaw_toy_qkv(q_len: int, k_len: int, dim: int, *, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Standard-normal toy ``q (q_len, dim)``, ``k, v (k_len, dim)`` from their own generator (``seed + 1``),
    independent of the tables (drawn from ``seed``)."""
    g = torch.Generator().manual_seed(seed + 1)
    q, keys = toy_qk(q_len, k_len, dim, generator=g)
    return q, keys, toy_normal(k_len, dim, generator=g)


@dataclass(frozen=True)
class ShawToy:
    """Toy scores and attention of some queries against every key (rows: the queries chosen)."""

    content: torch.Tensor  # (rows, k_len) q K^T, unscaled
    relative: torch.Tensor  # (rows, k_len) q R^T, unscaled (R never built)
    index: torch.Tensor  # (rows, k_len) int64 table rows
    without: torch.Tensor  # (rows, k_len) softmax(q K^T / sqrt d)
    weights: torch.Tensor  # (rows, k_len) softmax((q K^T + q R^T) / sqrt d)


def shaw_toy(q_pos: torch.Tensor, *, q_len: int, k_len: int, offset: int, clip: int, dim: int, seed: int) -> ShawToy:
    """Toy Shaw attention (a^K from :func:`shaw_seeded_tables`, q, k from :func:`shaw_toy_qkv`) of the
    queries at ``q_pos`` against every key; each row's softmax runs over all ``k_len`` keys.

    Args:
        q_pos: (rows,) int64 query positions, ``offset .. offset + q_len - 1``
            (``offset = k_len - q_len`` for queries at the end of the keys).
    """
    q, keys, _values = shaw_toy_qkv(q_len, k_len, dim, seed=seed)
    table_k, _table_v = shaw_seeded_tables(clip, dim, seed=seed, separate=False)  # a^K: the first table drawn
    q_rows = q[q_pos - offset]  # (rows, dim): the chosen queries only
    index = shaw_index(q_pos, all_positions(k_len), clip=clip)  # (rows, k_len)
    content, relative = content_scores(q_rows, keys), shaw_scores(q_rows, table_k, index)
    return ShawToy(
        content=content,
        relative=relative,
        index=index,
        without=masked_softmax(content * dim**-0.5),
        weights=masked_softmax((content + relative) * dim**-0.5),
    )


def shaw_toy_value_term(toy: ShawToy, *, clip: int, dim: int, seed: int, separate: bool) -> torch.Tensor:
    """(rows, dim) what a^V adds to each of the toy's queries: ``sum_j w_ij a^V[index_ij]`` over every key."""
    _table_k, table_v = shaw_seeded_tables(clip, dim, seed=seed, separate=separate)
    return shaw_value_term(toy.weights, table_v, toy.index)


def shaw_relations_row(
    position: int, k_pos: torch.Tensor, *, clip: int, dim: int, seed: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """One query's lookup ``R[i]`` on some keys, with a^K from :func:`shaw_seeded_tables`.

    Args:
        position: the query's position ``i``; k_pos: (n,) int64 key positions.

    Returns:
        ``(index, relations)``: (n,) int64 table rows and (n, dim) ``a^K[index]``.
    """
    table_k, _table_v = shaw_seeded_tables(clip, dim, seed=seed, separate=False)
    index = shaw_index(torch.tensor([position]), k_pos, clip=clip)  # (1, n)
    return index[0], shaw_relations(table_k, index)[0]

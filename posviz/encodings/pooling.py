"""Block means of a relative matrix: a coarse view of ``f(j - i)`` that cannot alias.

A view of a long sequence draws at most a few hundred positions per axis. Sampling
every ``s``-th position shows ``f`` only at multiples of ``s``: a pattern of period
``s`` (or near it) then looks constant, or like slow stripes that are not there. A
view drawn from block means instead shows, in the cell of a shown query ``i`` and key
``j``, the mean of ``f(j' - i')`` over every query ``i'`` and key ``j'`` that cell
stands for, so every pair counts, each once. Since the matrix depends on ``j - i``
only, those means cost ``O(R)`` for the ``R`` distances involved, not ``O(L^2)``.

Notation: ``i`` query, ``j`` key, ``r = j - i``; ``..`` any leading dimensions (heads).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

CHUNK = 16384  # distances per call of ``f``: its intermediates stay a few MB


def block_edges(pos: torch.Tensor) -> torch.Tensor:
    """Edges of the blocks that shown positions stand for: ``pos[a]`` stands for ``[pos[a], pos[a + 1])``.

    Args:
        pos: (n,) int64, strictly increasing, consecutive in the underlying sequence's
            positions (as :func:`posviz.encodings.positions.display_positions` gives).

    Returns:
        (n + 1,) int64: ``pos`` and one past its last (the last position stands for itself).
    """
    return torch.cat([pos.to(torch.long), pos[-1:].to(torch.long) + 1])


def relative_block_means(
    f: Callable[[torch.Tensor], torch.Tensor], q_edges: torch.Tensor, k_edges: torch.Tensor
) -> torch.Tensor:
    """Mean of ``f(j - i)`` over each block of queries ``[q_edges[a], q_edges[a+1])`` and keys ``[k_edges[b], ...)``.

    Args:
        f: distances ``r`` (R,) int64 -> values (.., R); called on chunks of the distances
            the blocks reach, in order.
        q_edges, k_edges: (n + 1,) and (m + 1,) int64 block edges (:func:`block_edges`).

    Returns:
        (.., n, m) float64; a block of one query and one key is ``f`` itself.
    """
    q_edges, k_edges = q_edges.to(torch.long), k_edges.to(torch.long)
    r_min = int(k_edges[0] - (q_edges[-1] - 1))
    r_max = int(k_edges[-1] - 1 - q_edges[0])
    r = torch.arange(r_min, r_max + 1)  # (R,)
    v = torch.cat([f(part).to(torch.float64) for part in r.split(CHUNK)], dim=-1)  # (.., R)
    lead = v.shape[:-1]
    zero = torch.zeros(*lead, 1, dtype=torch.float64)
    big_f = torch.cat([zero, v.cumsum(-1)], dim=-1)  # (.., R + 1): F[t] = sum of f over r < r_min + t
    big_h = torch.cat([zero, big_f.cumsum(-1)], dim=-1)  # (.., R + 2): H[u] = F[0] + ... + F[u - 1]
    a0, a1 = q_edges[:-1, None], q_edges[1:, None]  # (n, 1)
    b0, b1 = k_edges[None, :-1], k_edges[None, 1:]  # (1, m)

    def pairs(b: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
        # sum over queries i in [a, a1) ... of F[b - i - r_min], one sum of H per block
        return big_h[..., (b - r_min - a + 1)]  # (.., n, m)

    # sum_{i in [a0, a1)} sum_{j in [b0, b1)} f(j - i) = sum_i F[b1 - i - r_min] - F[b0 - i - r_min]
    total = (pairs(b1, a0) - pairs(b1, a1)) - (pairs(b0, a0) - pairs(b0, a1))  # (.., n, m)
    return total / ((a1 - a0) * (b1 - b0)).to(torch.float64)

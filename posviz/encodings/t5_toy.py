"""The T5 bias at work on the T5 page: a toy table as ``nn.Embedding`` starts it, every head's bias
pooled over blocks of positions, and one toy attention head without and with its bias.

The bias itself is :func:`posviz.encodings.t5.t5_bias`.
"""

from __future__ import annotations

import torch

from posviz.encodings.attention import attention_weights_sampled, toy_normal, toy_qk
from posviz.encodings.pooling import block_edges, relative_block_means
from posviz.encodings.positions import all_positions
from posviz.encodings.t5 import t5_bias


def t5_toy_table(num_buckets: int, heads: int, *, seed: int) -> torch.Tensor:
    """A bias table as ``nn.Embedding(num_buckets, heads)`` starts: N(0, 1), from the generator of ``seed``.

    Returns:
        (num_buckets, heads) float32.
    """
    return toy_normal(num_buckets, heads, generator=torch.Generator().manual_seed(seed))


def t5_bias_block_means(
    table: torch.Tensor,
    q_pos: torch.Tensor,
    k_pos: torch.Tensor,
    *,
    bidirectional: bool = True,
    max_distance: int = 128,
    scale: float = 1.0,
) -> torch.Tensor:
    """Every head's bias on a coarse grid, each cell the mean over the block of positions it starts.

    A strided sample of a bias that changes with every distance aliases (:mod:`posviz.encodings.pooling`);
    the block mean does not.

    Args:
        table: (num_buckets, heads) float.
        q_pos: (n,) int64 shown query positions, strictly increasing; ``q_pos[a]`` stands for
            ``[q_pos[a], q_pos[a + 1])``, the last for itself.
        k_pos: (m,) int64 shown key positions, likewise.

    Returns:
        (heads, n, m) float64.
    """
    q0 = torch.tensor([0])

    def bias_of(r: torch.Tensor) -> torch.Tensor:  # (R,) distances -> (heads, R)
        return t5_bias(table, q0, r, bidirectional=bidirectional, max_distance=max_distance, scale=scale)[:, 0]

    return relative_block_means(bias_of, block_edges(q_pos), block_edges(k_pos))


def t5_toy_attention(
    table: torch.Tensor,
    *,
    q_len: int,
    k_len: int,
    align: str,
    q_pos: torch.Tensor,
    k_pos: torch.Tensor,
    dim: int,
    seed: int,
    bidirectional: bool = True,
    max_distance: int = 128,
    scale: float = 1.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One head's attention over toy queries and keys, without and with its T5 bias.

    The toy queries and keys are N(0, 1), ``(q_len, dim)`` then ``(k_len, dim)`` from the generator of
    ``seed + 1`` (their own: they stay put when the table changes). The softmax runs over every key
    (future keys masked when not ``bidirectional``); only the shown rows and columns are kept.

    Args:
        table: (num_buckets, 1) float, the head's column of the bias table.
        align: where the queries sit among the keys (``"start"`` or ``"end"``).
        q_pos: (rows,) int64 positions of the shown queries.
        k_pos: (cols,) int64 positions of the shown keys (a key's index is its position).

    Returns:
        ``(without, with_bias)``, each (rows, cols) float32.
    """
    q, k = toy_qk(q_len, k_len, dim, generator=torch.Generator().manual_seed(seed + 1))
    offset = k_len - q_len if align == "end" else 0  # position of the first query
    rows = q_pos - offset  # (rows,) the shown queries' indices

    def bias_fn(qp: torch.Tensor, kp: torch.Tensor) -> torch.Tensor:
        return t5_bias(table, qp, kp, bidirectional=bidirectional, max_distance=max_distance, scale=scale)[0]

    kw = dict(q_pos=q_pos, k_pos=all_positions(k_len), cols=k_pos, causal=not bidirectional)
    return attention_weights_sampled(q[rows], k, **kw), attention_weights_sampled(q[rows], k, bias_fn=bias_fn, **kw)

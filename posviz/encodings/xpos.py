"""xPos (Sun et al. 2022, "A Length-Extrapolatable Transformer"): RoPE times a per-pair decay.

Semantics follow ``microsoft/torchscale``, ``torchscale/component/xpos_relative_position.py``
(``XPOS``): the pairs are rotated as RoPE's interleaved layout, ``theta_k = 10000 ** (-2k / dim)``,
and each pair is also scaled, the query at position ``n`` by ``zeta_k ** (n / scale_base)`` and the
key at position ``m`` by ``zeta_k ** (-m / scale_base)``, with

    zeta_k = (2k + gamma dim) / ((1 + gamma) dim),   gamma = 0.4,   k = 0 .. dim/2 - 1.

So pair ``k`` of the score ``q_n . k_m`` is RoPE's, times ``zeta_k ** ((n - m) / scale_base)``: a decay
with distance (``zeta_k < 1``), fastest for the fast pairs, that RoPE alone lacks. It is meant for causal
attention (``m <= n``); for a key after the query the factor grows instead.

Implementations centre the positions of the scale differently (torchscale: ``-(L // 2) ..``;
x-transformers: ``t - L // 2``): each vector differs, the scores agree, since only ``n - m`` is left.
Compare scores, never rotated vectors.

Notation: ``n`` query position, ``m`` key position, ``k`` pair; scores are ``(q_len, k_len)``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch

from posviz.encodings.rope import apply_rope, check_rope_dim, rope_inv_freq

if TYPE_CHECKING:
    from posviz.encodings.compare import Toy

GAMMA = 0.4  # torchscale's constant in zeta
SCALE_BASE = 512  # torchscale's xpos_scale_base
BASE = 10000.0  # the rotation's base: torchscale fixes it


def _check_scale_base(scale_base: float) -> None:
    if not scale_base > 0:
        raise ValueError(f"scale_base must be a positive number of tokens (512 in the paper), got {scale_base}.")


def xpos_zeta(dim: int, *, gamma: float = GAMMA) -> torch.Tensor:
    """Each pair's decay per ``scale_base`` tokens, ``zeta_k = (2k + gamma dim) / ((1 + gamma) dim)``.

    Returns:
        (dim/2,) float64, rising from ``gamma / (1 + gamma)`` (0.286, the fastest decay) towards 1.
    """
    check_rope_dim(dim)
    k = torch.arange(0, dim // 2, dtype=torch.float64)
    return (2 * k + gamma * dim) / ((1 + gamma) * dim)


def xpos_decay(distances: torch.Tensor, dim: int, *, scale_base: float = SCALE_BASE) -> torch.Tensor:
    """The factor each pair of a score takes at query-minus-key distance ``n - m``.

    Args:
        distances: (r,) distances ``n - m`` (tokens).

    Returns:
        (r, dim/2) float64, ``zeta_k ** (distance / scale_base)``: 1 at distance 0.
    """
    _check_scale_base(scale_base)
    return xpos_zeta(dim)[None, :] ** (distances.to(torch.float64)[:, None] / scale_base)


def apply_xpos(
    x: torch.Tensor, positions: torch.Tensor, *, scale_base: float = SCALE_BASE, key: bool = False
) -> torch.Tensor:
    """Rotate and scale every vector: RoPE (interleaved) times ``zeta ** (+-position / scale_base)``.

    Args:
        x: (..., seq, dim) queries (``key=False``: scaled up by ``zeta ** (n / B)``) or keys (``key=True``:
            scaled by ``zeta ** (-m / B)``).
        positions: (seq,) positions of the rows; the scale uses them as given (no centring).

    Returns:
        (..., seq, dim) float64.
    """
    dim = x.shape[-1]
    rotated = apply_rope(x.to(torch.float64), positions, base=BASE, layout="interleaved")
    sign = -1.0 if key else 1.0
    scale = xpos_decay(sign * positions.to(torch.float64), dim, scale_base=scale_base)  # (seq, dim/2)
    return rotated * scale.repeat_interleave(2, dim=-1)


def xpos_scores(
    q: torch.Tensor, k: torch.Tensor, q_pos: torch.Tensor, k_pos: torch.Tensor, *, scale_base: float = SCALE_BASE
) -> torch.Tensor:
    """``q_n . k_m`` after xPos, for every query row and key row.

    Args:
        q: (q_len, dim) queries at ``q_pos``; k: (k_len, dim) keys at ``k_pos``.

    Returns:
        (q_len, k_len) float64.
    """
    return apply_xpos(q, q_pos, scale_base=scale_base) @ apply_xpos(k, k_pos, scale_base=scale_base, key=True).T


def xpos_score_by_distance(
    q: torch.Tensor, k: torch.Tensor, distances: torch.Tensor, *, scale_base: float = SCALE_BASE
) -> tuple[torch.Tensor, torch.Tensor]:
    """One query against one key at each distance ``r = n - m``, with RoPE only and with xPos.

    Per pair ``k``: ``cos(r theta_k) (q1 k1 + q2 k2) + sin(r theta_k) (q1 k2 - q2 k1)``, times
    ``zeta_k ** (r / scale_base)`` for xPos.

    Args:
        q, k: (dim,) one query and one key.
        distances: (r,) query minus key positions.

    Returns:
        ``(rope, xpos)``, each (r,) float64.
    """
    dim = q.shape[-1]
    check_rope_dim(dim)
    qd, kd = q.to(torch.float64), k.to(torch.float64)
    q1, q2, k1, k2 = qd[0::2], qd[1::2], kd[0::2], kd[1::2]  # (dim/2,) each
    # (R_n q) . (R_m k) = Re(q conj(k) e^(i r theta)) per pair, with q = q1 + i q2 and r = n - m.
    angles = distances.to(torch.float64)[:, None] * rope_inv_freq(dim, base=BASE)[None, :]  # (r, dim/2)
    per_pair = torch.cos(angles) * (q1 * k1 + q2 * k2) + torch.sin(angles) * (q1 * k2 - q2 * k1)  # (r, dim/2)
    return per_pair.sum(-1), (per_pair * xpos_decay(distances, dim, scale_base=scale_base)).sum(-1)


def compare_run(t: Toy) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """The compare page's run: its toy ``q`` and ``k`` through :func:`apply_xpos` (base 10000 and scale_base 512,
    torchscale's, whatever the page's base), scored and scaled by ``1 / sqrt(d)``.

    Returns:
        logits (L, L) float64, and the vectors built, ``[q', k']`` (L, d) float64 each.
    """
    q, k = apply_xpos(t.q, t.pos), apply_xpos(t.k, t.pos, key=True)
    return q @ k.T / math.sqrt(t.s.dim), [q, k]


def xpos_fade_distance(dim: int, *, scale_base: float = SCALE_BASE) -> float:
    """The distance at which the fastest pair's factor ``zeta_0 ** (r / scale_base)`` falls to ``1/e``."""
    _check_scale_base(scale_base)
    return scale_base / -math.log(float(xpos_zeta(dim)[0]))

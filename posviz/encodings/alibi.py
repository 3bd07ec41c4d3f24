"""Attention with linear biases, ALiBi (Press et al. 2022, "Train Short, Test
Long: Attention with Linear Biases Enables Input Length Extrapolation").

No position embedding at all: head ``h`` adds ``-m_h (i - j)`` to the logit of
query ``i`` and key ``j``, a penalty growing linearly with distance. The
slopes ``m_h`` are fixed, a geometric sequence per head.

Semantics follow ``ofirpress/attention_with_linear_biases``, ``get_slopes``:
for a power of two ``n`` heads, ``m_h = 2 ** (-8 h / n)``, ``h = 1 .. n``;
otherwise, with ``p = 2 ** floor(log2 n)``, the ``p`` slopes of ``p`` heads
followed by every other slope of ``2p`` heads, ``slopes(2p)[0::2][:n - p]``.
The official code adds ``m_h j`` instead of ``-m_h (i - j)``: per query row
they differ by the constant ``m_h i``, which softmax ignores. Bidirectional use
is not in the paper; ``-m_h |i - j|`` is the common choice.

Notation: ``h`` head, ``i`` query, ``j`` key; biases are ``(heads, q_len, k_len)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from posviz.i18n import _

MAX_HEADS = 4096


def _check_heads(heads: int) -> None:
    if isinstance(heads, bool) or not isinstance(heads, int) or not 1 <= heads <= MAX_HEADS:
        raise ValueError(
            _("heads must be a whole number from 1 to {max_heads}, got {heads!r}.").format(
                max_heads=MAX_HEADS, heads=heads
            )
        )


def _power_of_two_slopes(n: int) -> list[float]:
    """The paper's slopes for ``n`` a power of two: start ``2 ** (-8 / n)``, ratio the same."""
    start = 2 ** (-(2 ** -(math.log2(n) - 3)))  # = 2 ** (-8 / n), written as get_slopes_power_of_2
    return [start * start**i for i in range(n)]


@dataclass(frozen=True)
class AlibiSlopeSources:
    """Where each slope comes from when ``heads`` is not a power of two.

    Attributes:
        closest: ``p = 2 ** floor(log2 heads)``.
        base: (p,) the slopes of ``p`` heads, the first ``p`` slopes.
        doubled: (2p,) the slopes of ``2p`` heads.
        extra: (heads - p,) ``doubled[0::2][:heads - p]``, appended after ``base``.
    """

    closest: int
    base: torch.Tensor
    doubled: torch.Tensor
    extra: torch.Tensor


def alibi_slope_sources(heads: int) -> AlibiSlopeSources:
    """The pieces :func:`alibi_slopes` assembles (``extra`` is empty for a power of two)."""
    _check_heads(heads)
    p = 2 ** math.floor(math.log2(heads))
    base = torch.tensor(_power_of_two_slopes(p), dtype=torch.float64)
    doubled = torch.tensor(_power_of_two_slopes(2 * p), dtype=torch.float64)
    return AlibiSlopeSources(closest=p, base=base, doubled=doubled, extra=doubled[0::2][: heads - p])


def alibi_slopes(heads: int) -> torch.Tensor:
    """The official ALiBi slope of each head (``get_slopes``), for any number of heads.

    Returns:
        (heads,) float64 in ``(0, 1)``; for 8 heads ``1/2, 1/4, ..., 1/256``.
    """
    src = alibi_slope_sources(heads)
    return torch.cat([src.base, src.extra]) if heads != src.closest else src.base


def alibi_bias(q_pos: torch.Tensor, k_pos: torch.Tensor, heads: int, *, causal: bool = True) -> torch.Tensor:
    """The bias each head adds to the attention logits.

    Args:
        q_pos: (q_len,) int64 query positions ``i``.
        k_pos: (k_len,) int64 key positions ``j``.
        causal: ``-m (i - j)`` as in the paper (future keys, ``j > i``, are
            masked by the caller and their entries are positive); otherwise the
            symmetric ``-m |i - j|``.

    Returns:
        (heads, q_len, k_len) float32, ``<= 0`` wherever ``j <= i``.
    """
    slopes = alibi_slopes(heads)  # (heads,)
    dist = (q_pos[:, None] - k_pos[None, :]).to(torch.float64)  # (q_len, k_len): i - j
    if not causal:
        dist = dist.abs()
    return (-slopes[:, None, None] * dist[None]).to(torch.float32)  # (heads, q_len, k_len)


def alibi_distance_weights(slopes: torch.Tensor, distances: torch.Tensor, seq_len: int) -> torch.Tensor:
    """Attention of a query with no content preference (equal logits) over the keys at each distance.

    The last query of a causal sequence of ``seq_len`` tokens sees distances
    ``d = 0 .. seq_len - 1`` with logits ``-m d``; softmax gives the geometric
    weights ``e^(-m d) (1 - e^(-m)) / (1 - e^(-m L))``.

    Args:
        slopes: (heads,) slopes.
        distances: (r,) int64 distances in ``[0, seq_len)``.

    Returns:
        (heads, r) float64; each head's weights over all ``seq_len`` distances sum to 1.
    """
    if seq_len < 1:
        raise ValueError(_("seq_len must be at least 1, got {seq_len}.").format(seq_len=seq_len))
    m = slopes.to(torch.float64)[:, None]  # (heads, 1)
    d = distances.to(torch.float64)[None, :]  # (1, r)
    norm = -torch.expm1(-m) / -torch.expm1(-m * seq_len)  # (1 - e^-m) / (1 - e^-mL)
    return torch.exp(-m * d) * norm  # (heads, r)


def alibi_reach(slopes: torch.Tensor, seq_len: int, *, mass: float = 0.9) -> torch.Tensor:
    """The receptive field: the smallest distance ``D`` whose keys ``0 .. D`` hold ``mass`` of the attention.

    Returns:
        (heads,) int64 in ``[0, seq_len - 1]``; about ``ln(10) / m`` for ``mass = 0.9`` and long sequences.
    """
    if not 0 < mass < 1:
        raise ValueError(_("mass must lie strictly between 0 and 1, got {mass}.").format(mass=mass))
    m = slopes.to(torch.float64)
    total = -torch.expm1(-m * seq_len)  # 1 - e^(-mL)
    # cumulative weight up to D is (1 - e^(-m (D + 1))) / (1 - e^(-m L))
    reach = torch.ceil(-torch.log1p(-mass * total) / m - 1 - 1e-9)
    return reach.clamp(0, seq_len - 1).long()

"""Stick-breaking attention (Tan et al. 2024, "Scaling Stick-Breaking Attention"): position from the breaks.

No position encoding and no softmax. Each key ``j`` before query ``i`` breaks off a share
``beta_ij = sigmoid(q_i . k_j / sqrt(d))`` of what is left of a unit stick, the nearest key first:

    A_ij = beta_ij * prod_{j < k < i} (1 - beta_ik),       rem_i = 1 - sum_j A_ij

so a key far back gets only what every nearer key left over: recency comes from the order of the
breaks, and content decides how far is far (as in CoPE). Semantics follow
``shawntan/stickbreaking-attention``, ``stickbreaking_attention/sb_ref.py`` (``stickbreaking``): computed
in log space, ``log A_ij = logsigmoid(z_ij) + sum_{j < k < i} logsigmoid(-z_ik)``, keys ``j < i`` only
(``attend_current=False``). The reference's tests give the leftover ``rem_i`` to the query's own value.

Notation: ``i`` query, ``j`` key, both ``0 .. L - 1`` of one causal sequence; matrices ``(L, L)``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F  # noqa: N812

from posviz.i18n import _

if TYPE_CHECKING:
    from posviz.encodings.compare import Toy


def stickbreaking_log_weights(q: torch.Tensor, k: torch.Tensor, *, attend_current: bool = False) -> torch.Tensor:
    """``log A_ij``, in log space as the reference computes it.

    Args:
        q, k: (L, d) queries and keys of one sequence, in order.
        attend_current: whether a query may take a share of its own key (``j <= i``); default ``j < i``.

    Returns:
        (L, L) float64; ``-inf`` where the key may not be attended.
    """
    if q.shape != k.shape or q.dim() != 2:
        raise ValueError(
            _("q and k must both be (L, d) of one sequence, got {q_shape} and {k_shape}.").format(
                q_shape=tuple(q.shape), k_shape=tuple(k.shape)
            )
        )
    z = (q.to(torch.float64) @ k.to(torch.float64).T) / math.sqrt(q.shape[-1])  # (L, L)
    return stickbreaking_log_from_logits(z, attend_current=attend_current)


def stickbreaking_log_from_logits(z: torch.Tensor, *, attend_current: bool = False) -> torch.Tensor:
    """``log A_ij`` from the scaled scores ``z_ij`` directly: (L, L) -> (L, L) float64, ``-inf`` where masked."""
    length = z.shape[-1]
    z = z.to(torch.float64)
    allowed = torch.ones(length, length, dtype=torch.bool).tril(0 if attend_current else -1)
    log_beta = F.logsigmoid(z)  # the share key j breaks off
    log_left = torch.where(allowed, F.logsigmoid(-z), 0.0)  # log(1 - beta): what it leaves
    # sum over the keys k strictly between j and i: a reversed cumulative sum along the keys, minus key j itself
    between = torch.flip(torch.cumsum(torch.flip(log_left, [1]), 1), [1]) - log_left  # (L, L)
    return torch.where(allowed, log_beta + between, -math.inf)


def equal_score_weights(length: int, score: float) -> torch.Tensor:
    """The last query's weights when every scaled score is ``score``: ``beta (1 - beta)^(r - 1)`` at distance ``r``.

    Returns:
        (length,) float64, entry ``r`` for the key ``r`` positions back (entry 0, the query itself: 0).
    """
    z = torch.full((length, length), float(score), dtype=torch.float64)
    return torch.flip(stickbreaking_log_from_logits(z)[-1].exp(), [0])


def stickbreaking_weights(q: torch.Tensor, k: torch.Tensor, *, attend_current: bool = False) -> torch.Tensor:
    """``A_ij = beta_ij prod_{j < k < i} (1 - beta_ik)``: (L, d), (L, d) -> (L, L) float64, rows sum to <= 1."""
    return stickbreaking_log_weights(q, k, attend_current=attend_current).exp()


def stickbreaking_remainder(weights: torch.Tensor) -> torch.Tensor:
    """The stick no key took, ``1 - sum_j A_ij``: (L, L) -> (L,)."""
    return 1 - weights.sum(-1)


def softmax_causal_weights(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """Causal softmax attention of the same scores, ``j <= i``, beside stick-breaking: (L, d) x2 -> (L, L)."""
    z = (q.to(torch.float64) @ k.to(torch.float64).T) / math.sqrt(q.shape[-1])
    future = torch.ones_like(z, dtype=torch.bool).triu(1)
    return torch.softmax(z.masked_fill(future, -math.inf), -1)


def compare_run(t: Toy) -> tuple[torch.Tensor, list[torch.Tensor], torch.Tensor]:
    """The compare page's run: the toy's ``q`` and ``k`` (the stick-breaking page's toy at the same seed, length and
    dim) through :func:`stickbreaking_log_weights`. Its logits are ``log A_ij``, so its position term
    ``log A_ij - z_ij = -softplus(z_ij) - sum_{j < k < i} softplus(z_ik)`` is what the breaks take away.

    Returns:
        logits ``log A`` (L, L) float64 (``-inf`` on and after the diagonal), no tensor built, and the weights
        ``A`` (L, L) float64, whose rows sum to at most 1.
    """
    log_weights = stickbreaking_log_weights(t.q, t.k)
    return log_weights, [], log_weights.exp()

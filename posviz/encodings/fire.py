"""FIRE (Li et al. 2023, "Functional Interpolation for Relative Positions Improves Long Context
Transformers"): a learned function of a normalised distance.

Semantics follow the ``FIRE`` module of ``mcleish7/arithmetic``
(``cramming/architectures/embeddings.py``), at evaluation (positions ``0 .. T - 1``):

    psi(x)     = log(|c x| + 1)
    u[i, j]    = psi(i - j) / (psi(max(i, L)) + eps)        (progressive interpolation)
    b_h[i, j]  = MLP(u[i, j])_h,   MLP = Linear(1, 32) -> ReLU -> Linear(32, heads)

with ``c`` (init 0.1) and ``L = |L_multiplier * 512|`` learned. For a key before the query ``u`` lies
in [0, 1], whatever the length: one distance means less as the query moves on (its normaliser grows),
and below ``L`` the normaliser is fixed at ``psi(L)`` (thresholding). The bias is added to the scaled
logits ``q . k / sqrt(d)``.

Notation: ``h`` head, ``i`` query, ``j`` key; biases are ``(heads, q_len, k_len)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from posviz.i18n import _

if TYPE_CHECKING:
    from posviz.encodings.compare import Toy

INIT_C = 0.1
INIT_L = 512.0
EPS = 1e-6
MLP_WIDTH = 32
COMPARE_HEADS, COMPARE_HEAD = 8, 0  # the compare page's: the first of 8 heads


def fire_psi(x: torch.Tensor, *, c: float = INIT_C) -> torch.Tensor:
    """``log(|c x| + 1)``, elementwise, float64."""
    return torch.log1p(torch.abs(c * x.to(torch.float64)))


def fire_normalized_distance(
    q_pos: torch.Tensor, k_pos: torch.Tensor, *, c: float = INIT_C, threshold: float = INIT_L, eps: float = EPS
) -> torch.Tensor:
    """``psi(i - j) / (psi(max(i, L)) + eps)``: what the MLP sees.

    Args:
        q_pos, k_pos: (q_len,), (k_len,) positions ``i`` and ``j``.
        c: the learned scale inside ``psi``; threshold: ``L``, below which the normaliser stays ``psi(L)``.

    Returns:
        (q_len, k_len) float64; in [0, 1] for ``j <= i`` (symmetric in ``|i - j|``, as the code's ``abs``).
    """
    if not c > 0 or not threshold >= 0:
        raise ValueError(_("FIRE needs c > 0 and L >= 0, got c = {c} and L = {L}.").format(c=c, L=threshold))
    q, k = q_pos.to(torch.float64), k_pos.to(torch.float64)
    normaliser = fire_psi(torch.clamp(q, min=abs(threshold)), c=c)[:, None]  # (q_len, 1)
    return fire_psi(q[:, None] - k[None, :], c=c) / (normaliser + eps)


@dataclass(frozen=True)
class FireMLP:
    """The MLP's weights: ``Linear(1, width) -> ReLU -> Linear(width, heads)``, float64."""

    w1: torch.Tensor  # (width, 1)
    b1: torch.Tensor  # (width,)
    w2: torch.Tensor  # (heads, width)
    b2: torch.Tensor  # (heads,)


def fire_mlp(heads: int, *, generator: torch.Generator, width: int = MLP_WIDTH) -> FireMLP:
    """Illustrative weights, drawn as ``torch.nn.Linear`` initialises them (uniform in +-1/sqrt(fan_in))."""
    if isinstance(heads, bool) or not isinstance(heads, int) or heads < 1:
        raise ValueError(_("heads must be a whole number of at least 1, got {heads!r}.").format(heads=heads))

    def uniform(*shape: int, fan_in: int) -> torch.Tensor:
        return (2 * torch.rand(*shape, generator=generator, dtype=torch.float64) - 1) / fan_in**0.5

    return FireMLP(
        w1=uniform(width, 1, fan_in=1),
        b1=uniform(width, fan_in=1),
        w2=uniform(heads, width, fan_in=width),
        b2=uniform(heads, fan_in=width),
    )


def fire_bias(normalized: torch.Tensor, mlp: FireMLP) -> torch.Tensor:
    """The MLP applied to every normalised distance.

    Args:
        normalized: (q_len, k_len) from :func:`fire_normalized_distance`.

    Returns:
        (heads, q_len, k_len) float64.
    """
    hidden = torch.relu(normalized[..., None] * mlp.w1[:, 0] + mlp.b1)  # (q_len, k_len, width)
    return (hidden @ mlp.w2.T + mlp.b2).permute(2, 0, 1)


def fire_parameter_count(heads: int, *, width: int = MLP_WIDTH) -> int:
    """The learned numbers: the MLP ``Linear(1, width) -> Linear(width, heads)`` and ``c`` and ``L``."""
    return (width + width) + (width * heads + heads) + 2


def compare_run(t: Toy) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """The compare page's run: head ``COMPARE_HEAD`` of an MLP of ``COMPARE_HEADS`` heads drawn by :func:`fire_mlp`
    from the toy's seed (as the FIRE page draws it with that seed and 8 heads), at the initial ``c`` and ``L``,
    added to the scaled content scores.

    Returns:
        logits (L, L) float64, and what it built: the MLP's weights, the normalised distances (L, L) and the
        bias (heads, L, L).
    """
    mlp = fire_mlp(COMPARE_HEADS, generator=torch.Generator().manual_seed(t.s.seed))
    normalized = fire_normalized_distance(t.pos, t.pos)  # (L, L)
    bias = fire_bias(normalized, mlp)  # (heads, L, L)
    return t.content + bias[COMPARE_HEAD], [mlp.w1, mlp.b1, mlp.w2, mlp.b2, normalized, bias]

"""DroPE (Gelberg et al. 2025, "Extending the Context of Pretrained LLMs by Dropping their Positional
Embeddings"): remove RoPE from every layer of a pretrained model, then recalibrate briefly at the
original context length.

The reference (``SakanaAI/DroPE``, ``custom_models/attention.py``) keeps the model's code and hands every
attention layer ``cos = 1`` and ``sin = 0``: the rotation becomes the identity, and the scores are the
plain ``q . k / sqrt(d)`` under the causal mask, a NoPE model. What changes is how attention spreads
over distance: RoPE's rotations tilt it towards near keys; without them only content and the mask's
count of predecessors remain.

Notation: ``i`` query, ``j`` key, ``r = i - j`` distance; matrices ``(L, L)``.
"""

from __future__ import annotations

import torch

from posviz.encodings.attention import attention_weights
from posviz.encodings.rope import apply_rope


def dropped_rotation(cos: torch.Tensor, sin: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """What DroPE passes in place of RoPE's ``(cos, sin)``: ``(ones_like(cos), zeros_like(sin))``."""
    return torch.ones_like(cos), torch.zeros_like(sin)


def rope_and_drope_attention(
    q: torch.Tensor, k: torch.Tensor, *, inv_freq: torch.Tensor, layout: str = "half"
) -> tuple[torch.Tensor, torch.Tensor]:
    """Causal attention of the same queries and keys with RoPE and with RoPE dropped.

    Args:
        q, k: (L, d) one sequence's queries and keys, before rotation.
        inv_freq: (d/2,) RoPE's frequencies.

    Returns:
        ``(with_rope, dropped)``, (L, L) float64 each, rows summing to 1 over the past.
    """
    pos = torch.arange(q.shape[0])
    qd, kd = q.to(torch.float64), k.to(torch.float64)
    rotated = attention_weights(
        apply_rope(qd, pos, inv_freq=inv_freq, layout=layout),
        apply_rope(kd, pos, inv_freq=inv_freq, layout=layout),
        causal=True,
    )
    return rotated, attention_weights(qd, kd, causal=True)


def attention_by_distance(weights: torch.Tensor) -> torch.Tensor:
    """The mean weight a query gives the key ``r`` positions back, over the queries that have one.

    Args:
        weights: (L, L) causal attention.

    Returns:
        (L,) float64, entry ``r`` for distances ``0 .. L - 1``.
    """
    length = weights.shape[-1]
    return torch.stack([torch.diagonal(weights, offset=-r).to(torch.float64).mean() for r in range(length)])


def similar_tokens(length: int, dim: int, *, noise: float, generator: torch.Generator) -> torch.Tensor:
    """One token repeated at every position with a little noise of its own: ``t + noise * e_i``.

    Content is nearly alike, so what attention does across distance is the position term's doing.

    Returns:
        (length, dim) float64.
    """
    token = torch.randn(dim, generator=generator, dtype=torch.float64)
    return token[None, :] + noise * torch.randn(length, dim, generator=generator, dtype=torch.float64)

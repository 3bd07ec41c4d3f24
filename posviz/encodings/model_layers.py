"""Which tokens each layer of a real model attends to (its kind comes from transformers, see model_hf).

Three attention kinds (Hugging Face ``masking_utils``), for a query at position ``i`` and a key at ``j <= i``:
    full      every earlier key.
    sliding   the last ``window`` keys: ``j > i - window`` (the query itself included).
    chunked   keys in the query's own chunk: ``j // window == i // window`` (Llama 4).

``reach_start`` composes the layers: after ``n`` layers, position ``i`` holds information from
positions ``[reach_start(...), i]`` only, because every mask is a contiguous range ending at ``i``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

KINDS = ("full", "sliding", "chunked")
# Every other layer kind reaches keys like one of these (or only itself): the mask a query sees.
# indexed / sparse / compressed: any earlier key may be picked (by content); a recurrence carries all;
# a convolution reaches its kernel; an MLP layer mixes no tokens.
REACHES_LIKE = {
    "full": "full", "sliding": "sliding", "chunked": "chunked", "indexed": "full", "minimax_m3_sparse": "full",
    "compressed_sparse": "full", "heavily_compressed": "full", "hybrid": "full", "hybrid_sliding": "sliding",
    "reference_sliding": "sliding", "window": "chunked", "linear": "full", "conv": "sliding", "mlp": "self",
    "moe": "self",
}  # fmt: skip


@dataclass(frozen=True)
class Layer:
    """One layer's position facts."""

    attention: str  # "full" | "sliding" | "chunked" | any kind of model_hf.KINDS (REACHES_LIKE says how it reaches)
    window: int | None  # tokens in the sliding window or the chunk; None for full
    rope: bool  # False: a NoPE layer, no position signal at all
    causal: bool = True  # False in an encoder (BERT, the T5 and Marian encoders)
    stack: str = "decoder"  # "encoder" | "decoder"


# ---------------------------------------------------------------- masks and reach


def attention_mask(attention: str, window: int | None, q_pos: torch.Tensor, k_pos: torch.Tensor) -> torch.Tensor:
    """Which keys each query attends to, causal, as Hugging Face ``masking_utils`` builds it.

    Args:
        q_pos: (q_len,) int64 query positions; k_pos: (k_len,) int64 key positions (a strided sample is fine).

    Returns:
        (q_len, k_len) bool, True where query ``i`` sees key ``j``.
    """
    if attention not in REACHES_LIKE:
        raise ValueError(f"attention must be one of {tuple(REACHES_LIKE)}, got {attention!r}.")
    attention = REACHES_LIKE[attention]
    if attention in ("sliding", "chunked") and (window is None or window < 1):
        raise ValueError(f"{attention} attention needs a positive window, got {window}.")
    i, j = q_pos[:, None], k_pos[None, :]  # (q, 1), (1, k)
    mask = j <= i
    if attention == "self":
        return j == i
    if attention == "sliding":
        mask &= j > i - window
    elif attention == "chunked":
        mask &= torch.div(j, window, rounding_mode="floor") == torch.div(i, window, rounding_mode="floor")
    return mask


def kind_masks(kinds: Sequence[tuple[str, int | None, Any]], position: int, k_pos: torch.Tensor) -> torch.Tensor:
    """What the token at ``position`` sees in each layer kind: ``attention_mask`` of one query, stacked.

    Args:
        kinds: (attention, window, ...) per layer kind (``mask_kinds``).
        k_pos: (k_len,) int64 key positions.

    Returns:
        (kinds, k_len) bool.
    """
    q = torch.tensor([position])
    return torch.stack([attention_mask(kind[0], kind[1], q, k_pos)[0] for kind in kinds])


def window_start(layer: Layer, position: int) -> int:
    """The first key position ``position`` attends to in this layer."""
    like = REACHES_LIKE.get(layer.attention, "full")
    if like == "sliding":
        return max(0, position - layer.window + 1)
    if like == "chunked":
        return position - position % layer.window
    if like == "self":
        return position
    return 0


def reach_start(layers: tuple[Layer, ...] | list[Layer], position: int) -> int:
    """Earliest position whose information can be at ``position`` after ``layers`` (first to last).

    Information moves one mask per layer: ``start_n(i) = start_{n-1}(first key of layer n at i)``,
    so the last layer is applied first. A full layer reaches 0; chunked layers never leave the chunk.
    """
    start = position
    for layer in reversed(layers):
        start = window_start(layer, start)
        if start == 0:
            break
    return start


def reach_curve(layers: tuple[Layer, ...], position: int, *, only: tuple[str, ...] | None = None) -> list[int]:
    """``position - reach_start(layers[:n], position)`` for ``n = 0 .. len(layers)``: tokens back reached.

    Args:
        only: count only layers of these kinds (the others pass information on unchanged), e.g.
            ``("sliding",)`` for how far the sliding layers alone carry it.
    """
    kept = [x if only is None or x.attention in only else None for x in layers]
    return [position - reach_start([x for x in kept[:n] if x is not None], position) for n in range(len(layers) + 1)]

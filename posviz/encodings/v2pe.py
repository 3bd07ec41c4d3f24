"""V2PE (Ge et al. 2024, "V2PE: Improving Multimodal Long-Context Capability of Vision-Language Models with
Variable Visual Position Encoding"): image tokens advance the position by a fraction.

A text token advances the position by 1; each of an image's visual tokens by ``delta = stride / 256``
(256 tokens per 448 x 448 tile); the text after the image resumes at ``ceil(last visual position) + 1``.
RoPE is then evaluated at these fractional positions. Semantics follow ``OpenGVLab/V2PE``,
``internvl/train/internvl_chat_finetune.py``, ``get_rope_pos_id`` (``v2pe_fix``). With ``stride = 256``
(``delta = 1``) the ids are the ordinary ones.

Notation: a sequence is runs of text and image tokens, ``(kind, count)``; ids are float64 ``(L,)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from posviz.i18n import _

TOKENS_PER_TILE = 256  # InternVL's num_image_token
STRIDES = (1, 2, 4, 8, 16, 32, 64, 128, 256)  # the strides V2PE trains with (v2pe_rnd); delta = stride / 256


def v2pe_delta(stride: float, *, tokens_per_tile: int = TOKENS_PER_TILE) -> float:
    """The step of one visual token, ``stride / tokens_per_tile``."""
    if not 0 < stride <= tokens_per_tile:
        raise ValueError(
            _("stride must be in (0, {tiles}] (delta = stride / {tiles}), got {stride}.").format(
                tiles=tokens_per_tile, stride=stride
            )
        )
    return stride / tokens_per_tile


def v2pe_position_ids(runs: Sequence[tuple[str, int]], *, delta: float) -> torch.Tensor:
    """Every token's position: text +1, visual +``delta``, text after an image at ``ceil(last) + 1``.

    Args:
        runs: ``("text", n)`` and ``("image", n)`` runs in order; the first token has position 0.
        delta: a visual token's step (:func:`v2pe_delta`); 1 gives the ordinary ids.

    Returns:
        (L,) float64.
    """
    if not 0 < delta <= 1:
        raise ValueError(_("delta must be in (0, 1], got {delta}.").format(delta=delta))
    ids: list[float] = []
    last = -1.0  # the position before the first token
    for kind, count in runs:
        if kind not in ("text", "image") or count < 0:
            raise ValueError(_("each run is ('text' or 'image', count >= 0), got {run!r}.").format(run=(kind, count)))
        if kind == "text":
            start = math.ceil(last) + 1
            ids.extend(float(start + n) for n in range(count))
            last = float(start + count - 1) if count else last
        else:
            ids.extend(last + delta * (n + 1) for n in range(count))
            last = ids[-1] if count else last
    return torch.tensor(ids, dtype=torch.float64)


def v2pe_context_used(image_tokens: int, *, delta: float) -> int:
    """Positions an image of ``image_tokens`` tokens takes from the context: ``ceil(image_tokens * delta)``."""
    return math.ceil(image_tokens * delta - 1e-9)

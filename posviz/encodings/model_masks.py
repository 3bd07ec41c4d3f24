"""What one token of a real model attends to, layer kind by layer kind, and how far back information reaches.

A model's layers come in a few distinct kinds ``(attention, window, causal)``; :func:`key_masks` gives
each kind's mask row for the token at ``position``: over a strided sample of the keys ``0 .. position``,
and, for a model with windows, over the keys just before it. :func:`reach_curves` gives the tokens
back reachable after each of the first layers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from posviz.encodings.model_hf import KINDS, NO_POSITION
from posviz.encodings.model_layers import REACHES_LIKE, Layer, kind_masks, reach_curve
from posviz.encodings.positions import display_positions, window_positions
from posviz.i18n import _

STRIDED_KEYS = 400  # keys drawn in the strided mask view of 0 .. L
NEAR_KEYS = 512  # keys drawn in the window view near L


def mask_kinds(layers: tuple[Layer, ...]) -> list[tuple[str, int | None, bool]]:
    """The distinct ``(attention, window, causal)`` of a model's layers, full first."""
    found = {(x.attention, x.window, x.causal) for x in layers}
    return sorted(found, key=lambda a: (KINDS.index(a[0]), a[1] or 0, not a[2]))


def mask_label(attention: str, window: int | None, causal: bool) -> str:
    """A layer kind's name for a legend: ``"sliding (4,096-token window)"``, ``"full, both ways"`` ..."""
    name = attention.replace("_", " ")
    if attention == "conv":
        return _("convolution ({window:,}-token kernel)").format(window=window)
    like = REACHES_LIKE.get(attention)
    if like == "sliding":
        return _("{name} ({window:,}-token window)").format(name=name, window=window)
    if like == "chunked":
        return _("{name} ({window:,}-token chunks)").format(name=name, window=window)
    if attention in NO_POSITION:
        return (
            _("MLP: itself only")
            if like == "self"
            else _("{name} (a recurrence over every earlier token)").format(name=name)
        )
    if attention != "full":
        return (
            _("{name} (any earlier key, picked by content)").format(name=name)
            if attention != "hybrid"
            else _("hybrid (full + state space)")
        )
    return "full" if causal else _("full, both ways")


@dataclass(frozen=True)
class KeyMasks:
    """Which keys the token at a position attends to in each layer kind."""

    labels: tuple[str, ...]  # (kinds,)
    k_pos: np.ndarray  # (k,) int64, a strided sample of 0 .. position
    masks: np.ndarray  # (kinds, k) bool
    near_k: np.ndarray | None = None  # (n,) int64, a window of keys just before position (windowed models)
    near_masks: np.ndarray | None = None  # (kinds, n) bool


def key_masks(layers: tuple[Layer, ...], position: int) -> KeyMasks:
    """The masks of each distinct layer kind for the token at ``position``: strided over 0 .. position, and near it.

    The near view covers the last ``min(position + 1, 2 × the widest window)`` keys, when the model has
    windows and the strided sample skips keys.
    """
    kinds = mask_kinds(layers)
    labels = tuple(mask_label(*a) for a in kinds)
    k_pos = display_positions(position + 1, STRIDED_KEYS)
    masks = kind_masks(kinds, position, k_pos).numpy()
    windows = [w for _, w, _ in kinds if w]
    if not windows or len(k_pos) == position + 1:
        return KeyMasks(labels, k_pos.numpy(), masks)
    span = min(position + 1, 2 * max(windows))
    near = window_positions(position + 1, NEAR_KEYS, start=position + 1 - span, size=span)
    return KeyMasks(labels, k_pos.numpy(), masks, near.numpy(), kind_masks(kinds, position, near).numpy())


def has_near_view(layers: tuple[Layer, ...], position: int) -> bool:
    """Whether :func:`key_masks` has a near view for ``position`` (a windowed model whose sample skips keys)."""
    windows = [w for _, w, _ in mask_kinds(layers) if w]
    return bool(windows) and len(display_positions(position + 1, STRIDED_KEYS)) != position + 1


@dataclass(frozen=True)
class Reach:
    """How far back information reaches a position after each of the first layers."""

    layers: tuple[Layer, ...]  # the first n layers
    reach: np.ndarray  # (n + 1,) int64: tokens back reachable after 0 .. n layers
    windowed: np.ndarray | None  # (n + 1,) int64: the same through the sliding and chunked layers alone


def reach_curves(layers: tuple[Layer, ...], position: int) -> Reach:
    """Tokens back reachable from ``position`` after 0 .. len(layers) layers, and through the windowed ones alone."""
    windowed = None
    if any(x.attention != "full" for x in layers):
        local = tuple(kind for kind, like in REACHES_LIKE.items() if like in ("sliding", "chunked", "self"))
        windowed = np.asarray(reach_curve(layers, position, only=local), dtype=np.int64)
    return Reach(layers, np.asarray(reach_curve(layers, position), dtype=np.int64), windowed)

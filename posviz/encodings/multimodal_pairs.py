"""Which frequency pairs turn with which axis, and how fast: M-RoPE's text pairs (t, h, w), the vision
encoders' 2-D pairs (row, column), and the 2-D relative property by offset.

For the published models of :mod:`posviz.encodings.model_vision` (``PRESETS``, ``ENCODERS``); every
rotation comes from :mod:`posviz.encodings.multimodal` and :mod:`posviz.encodings.rope`.

Notation: ``n`` frequency pairs; ``h, w`` a grid in patches.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from posviz.encodings.attention import toy_normal
from posviz.encodings.model_vision import ENCODERS, PRESETS
from posviz.encodings.multimodal import (
    mrope_axes,
    vision_offset_scores,
    vision_pair_dims,
    vision_rope_angles,
    vision_rope_frequencies,
)
from posviz.encodings.rope import rope_inv_freq

BLOCKS, INTERLEAVED = PRESETS["qwen2_vl"], PRESETS["qwen3_vl"]  # each layout as its model ships it


def pair_wavelengths(inv_freq: torch.Tensor) -> torch.Tensor:
    """Positions per full turn of each pair, ``2 pi / inv_freq``: (n,) -> (n,) float64.

    Divided element by element (correctly rounded); ``2 * math.pi / tensor`` would multiply by the
    reciprocal instead, one rounding more.
    """
    inv = inv_freq.double()
    return torch.full_like(inv, 2 * math.pi) / inv


@dataclass(frozen=True)
class MRopePairs:
    """A model's text pairs and the two ways of sharing them between t, h and w."""

    wavelength: torch.Tensor  # (n,) float64 tokens per turn, the model's own rope_theta
    blocks: torch.Tensor  # (n,) int64 axis per pair (0 t, 1 h, 2 w), Qwen2-VL's blocks [16, 24, 24]
    interleaved: torch.Tensor  # (n,) int64 axis per pair, Qwen3-VL's interleaving [24, 20, 20]


def mrope_pairs(vl_model: str) -> MRopePairs:
    """The wavelengths of ``vl_model``'s text head, with the blocks and the interleaved layout."""
    p = PRESETS[vl_model]
    return MRopePairs(
        pair_wavelengths(rope_inv_freq(p.head_dim, base=p.rope_theta)),
        mrope_axes(BLOCKS.head_dim, BLOCKS.mrope_section),
        mrope_axes(INTERLEAVED.head_dim, INTERLEAVED.mrope_section, interleaved=True),
    )


def axis_wavelengths(wavelength: torch.Tensor, axes: torch.Tensor) -> list[tuple[int, float, float] | None]:
    """Per axis ``0, 1, 2``: how many pairs it turns, its shortest and its longest wavelength (None: no pair)."""
    out: list[tuple[int, float, float] | None] = []
    for a in range(3):
        waves = wavelength[axes == a]
        out.append((len(waves), float(waves.min()), float(waves.max())) if len(waves) else None)
    return out


@dataclass(frozen=True)
class EncoderSplit:
    """How one vision encoder splits a head, pairs in the model's own order."""

    name: str
    axis: torch.Tensor  # (n,) int64: 0 row, 1 column
    wavelength: torch.Tensor  # (n,) float64 patches per turn
    channels: torch.Tensor  # (n, 2) int64: the head channels each pair turns


def encoder_splits() -> tuple[EncoderSplit, ...]:
    """Every encoder of ``ENCODERS``, in order."""
    out = []
    for key, (name, cfg) in ENCODERS.items():
        axis, inv = vision_rope_frequencies(key, cfg)
        out.append(EncoderSplit(name, axis, pair_wavelengths(inv), vision_pair_dims(key, int(cfg["head_dim"]))))
    return tuple(out)


def other_patch(height: int, width: int, row: int, col: int) -> tuple[int, int]:
    """A second query patch: the mirror of ``(row, col)`` on the grid, or the corner when that is the same."""
    mirror = (height - 1 - row, width - 1 - col)
    return mirror if mirror != (row, col) else (0, 0)


@dataclass(frozen=True)
class OffsetMaps:
    """One vector's score against itself by offset, for the query at two patches."""

    chosen: torch.Tensor  # (2h-1, 2w-1) float64, NaN where the key is off the grid
    other: torch.Tensor  # the same for the second query patch
    other_patch: tuple[int, int]
    gap: float  # the largest |chosen - other| where both are defined: rounding only


def offset_maps(encoder: str, *, height: int, width: int, row: int, col: int, seed: int) -> OffsetMaps:
    """``encoder``'s 2-D RoPE score of a seeded random vector (query and key alike) over every offset (dh, dw),
    with the query at ``(row, col)`` and at :func:`other_patch`."""
    cfg = ENCODERS[encoder][1]
    dim = int(cfg["head_dim"])
    q = toy_normal(dim, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    angles = vision_rope_angles(encoder, cfg, height, width)  # (h*w, dim/2)
    pairs = vision_pair_dims(encoder, dim)
    second = other_patch(height, width, row, col)
    chosen, other = (
        vision_offset_scores(q, q, angles, pairs, height=height, width=width, row=r, col=c)
        for r, c in ((row, col), second)
    )
    both = ~(chosen.isnan() | other.isnan())
    gap = float((chosen - other)[both].abs().max()) if bool(both.any()) else 0.0
    return OffsetMaps(chosen, other, second, gap)

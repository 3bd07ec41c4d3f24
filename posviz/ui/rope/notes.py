"""Sentences the RoPE page writes from its views: measured numbers in words."""

from __future__ import annotations

import math

from posviz.figures.layout import number
from posviz.ui.rope.settings import MatrixKey, RelativeKey, ScalingKey
from posviz.ui.rope.views import matrix_view, relative_view, scaling_view


def wavelength_sentence(k: ScalingKey) -> str:
    """The range of wavelengths and how many pairs never complete a turn within ``seq_len``."""
    wave = 2 * math.pi / scaling_view(k).inv_freq
    slow = int((wave > k.seq_len).sum())
    return (
        f"With d = {k.dim} and base = {number(k.base)}, wavelengths run from {number(wave[0])} to "
        f"{number(wave[-1])} tokens: "
        f"{slow} of {len(wave)} pairs never complete a turn within seq_len = {k.seq_len}."
    )


def layout_gap_note(k: MatrixKey) -> str:
    return f"Measured: max |R_half − P R_interleaved Pᵀ| = {number(matrix_view(k).layout_gap, 2)} at m = {k.m}."


def relative_metrics(k: RelativeKey) -> list[tuple[str, str, str]]:
    """``(label, value, help)`` of the four numbers above the relative-property figures (two rows of two)."""
    v = relative_view(k)
    t = int(v.shifts[-1])
    entry = f"the largest entry of |R_mᵀR_n − R_(n−m)| at m = {k.m}, n = {k.n}"
    return [
        (f"(R_m q)·(R_n k), m = {k.m}, n = {k.n}", f"{v.score_mn:.6f}", "the score of q at m and k at n"),
        (f"at (m + t, n + t), t = {t}", f"{float(v.shifted[-1]):.6f}", f"the same q and k at m + {t} and n + {t}"),
        ("max |R_mᵀR_n − R_(n−m)|, float32", number(v.gap32, 2), f"{entry}, rotation matrices in float32"),
        ("the same in float64", number(v.gap64, 2), f"{entry}, rotation matrices in float64"),
    ]


def scaling_note(k: ScalingKey) -> str:
    """One sentence on what the chosen method did to the slowest and the fastest pair."""
    if k.method == "default":
        return "No scaling: every pair keeps θ_k = base^(−2k/d)."
    v = scaling_view(k)
    ratio = v.inv_freq / v.default_inv_freq
    return (
        f"{k.method}: the fastest pair turns at {number(ratio[0])} × its default speed, the slowest at "
        f"{number(ratio[-1])} ×; attention factor {number(v.attention_factor)}."
        + (
            " Within the original context dynamic NTK changes nothing."
            if k.method == "dynamic" and k.seq_len <= k.original_max_position
            else ""
        )
    )

"""Sentences the RoPE page writes from measured numbers (``posviz.figures.rope_scaling.FrequencyNotes``,
``posviz.figures.rope_scores.RelativeNumbers``): numbers in words, no arithmetic."""

from __future__ import annotations

from posviz.figures.layout import number
from posviz.figures.rope_scaling import FrequencyNotes
from posviz.figures.rope_scores import RelativeNumbers


def wavelength_sentence(f: FrequencyNotes, *, dim: int, base: float, seq_len: int) -> str:
    """The range of wavelengths and how many pairs never complete a turn within ``seq_len``."""
    return (
        f"With d = {dim} and base = {number(base)}, wavelengths run from {number(f.fastest_wavelength)} to "
        f"{number(f.slowest_wavelength)} tokens: "
        f"{f.never_turning} of {f.pairs} pairs never complete a turn within seq_len = {seq_len}."
    )


def layout_gap_note(gap: float, *, m: int) -> str:
    return f"Measured: max |R_half − P R_interleaved Pᵀ| = {number(gap, 2)} at m = {m}."


def relative_metrics(r: RelativeNumbers, *, m: int, n: int) -> list[tuple[str, str, str]]:
    """``(label, value, help)`` of the four numbers above the relative-property figures (two rows of two)."""
    t = r.last_shift
    entry = f"the largest entry of |R_mᵀR_n − R_(n−m)| at m = {m}, n = {n}"
    return [
        (f"(R_m q)·(R_n k), m = {m}, n = {n}", f"{r.score:.6f}", "the score of q at m and k at n"),
        (f"at (m + t, n + t), t = {t}", f"{r.shifted:.6f}", f"the same q and k at m + {t} and n + {t}"),
        ("max |R_mᵀR_n − R_(n−m)|, float32", number(r.gap32, 2), f"{entry}, rotation matrices in float32"),
        ("the same in float64", number(r.gap64, 2), f"{entry}, rotation matrices in float64"),
    ]


def scaling_note(f: FrequencyNotes, *, method: str, seq_len: int, original_max_position: int) -> str:
    """One sentence on what the chosen method did to the slowest and the fastest pair."""
    if method == "default":
        return "No scaling: every pair keeps θ_k = base^(−2k/d)."
    return (
        f"{method}: the fastest pair turns at {number(f.fastest_ratio)} × its default speed, the slowest at "
        f"{number(f.slowest_ratio)} ×; attention factor {number(f.attention_factor)}."
        + (
            " Within the original context dynamic NTK changes nothing."
            if method == "dynamic" and seq_len <= original_max_position
            else ""
        )
    )

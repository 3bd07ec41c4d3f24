"""Sentences the RoPE page writes from measured numbers (``posviz.figures.rope_scaling.FrequencyNotes``,
``posviz.figures.rope_scores.RelativeNumbers``): numbers in words, no arithmetic."""

from __future__ import annotations

from posviz.figures.layout import number
from posviz.figures.rope_scaling import FrequencyNotes
from posviz.figures.rope_scores import RelativeNumbers
from posviz.i18n import _


def wavelength_sentence(f: FrequencyNotes, *, dim: int, base: float, seq_len: int) -> str:
    """The range of wavelengths and how many pairs never complete a turn within ``seq_len``."""
    return _(
        "With d = {dim} and base = {base}, wavelengths run from {fastest} to {slowest} tokens: "
        "{never} of {pairs} pairs never complete a turn within seq_len = {seq_len}."
    ).format(
        dim=dim,
        base=number(base),
        fastest=number(f.fastest_wavelength),
        slowest=number(f.slowest_wavelength),
        never=f.never_turning,
        pairs=f.pairs,
        seq_len=seq_len,
    )


def layout_gap_note(gap: float, *, m: int) -> str:
    return _("Measured: max |R_half − P R_interleaved Pᵀ| = {gap} at m = {m}.").format(gap=number(gap, 2), m=m)


def relative_metrics(r: RelativeNumbers, *, m: int, n: int) -> list[tuple[str, str, str]]:
    """``(label, value, help)`` of the four numbers above the relative-property figures (two rows of two)."""
    t = r.last_shift
    return [
        (f"(R_m q)·(R_n k), m = {m}, n = {n}", f"{r.score:.6f}", _("the score of q at m and k at n")),
        (
            _("at (m + t, n + t), t = {t}").format(t=t),
            f"{r.shifted:.6f}",
            _("the same q and k at m + {t} and n + {t}").format(t=t),
        ),
        (
            "max |R_mᵀR_n − R_(n−m)|, float32",
            number(r.gap32, 2),
            _("the largest entry of |R_mᵀR_n − R_(n−m)| at m = {m}, n = {n}, rotation matrices in float32").format(
                m=m, n=n
            ),
        ),
        (
            _("the same in float64"),
            number(r.gap64, 2),
            _("the largest entry of |R_mᵀR_n − R_(n−m)| at m = {m}, n = {n}, rotation matrices in float64").format(
                m=m, n=n
            ),
        ),
    ]


def scaling_note(f: FrequencyNotes, *, method: str, seq_len: int, original_max_position: int) -> str:
    """One sentence on what the chosen method did to the slowest and the fastest pair."""
    if method == "default":
        return _("No scaling: every pair keeps θ_k = base^(−2k/d).")
    return _(
        "{method}: the fastest pair turns at {fastest} × its default speed, the slowest at {slowest} ×; "
        "attention factor {factor}."
    ).format(
        method=method,
        fastest=number(f.fastest_ratio),
        slowest=number(f.slowest_ratio),
        factor=number(f.attention_factor),
    ) + (
        _(" Within the original context dynamic NTK changes nothing.")
        if method == "dynamic" and seq_len <= original_max_position
        else ""
    )

"""The FIRE page's settings: its URL parameters (defaults written once)."""

from __future__ import annotations

from dataclasses import dataclass

from posviz.encodings.fire import COMPARE_HEADS
from posviz.i18n import N_
from posviz.ui.params import MAX_LEN, PARAMS, Param
from posviz.ui.settings import setting

C = Param(
    "c",
    N_("Scale c inside ψ"),
    "float",
    0.1,
    "number",
    min=0.001,
    max=100.0,
    help=N_("ψ(x) = log(|c·x| + 1); learned, initialised at 0.1. Larger c: ψ closer to a plain log."),
)
THRESHOLD = Param(
    "threshold",
    N_("Threshold L"),
    "float",
    512.0,
    "number",
    min=0.0,
    max=float(MAX_LEN),
    help=N_("Below query position L the normaliser stays ψ(L) (thresholding); learned, initialised at 512."),
)
PAGE_MAX_HEADS = 16


@dataclass(frozen=True)
class FireSettings:
    """Everything that determines the FIRE page's tensors, in sidebar order."""

    c: float = setting(C, section=N_("The normalised distance"))
    threshold: float = setting(THRESHOLD)
    seq_len: int = setting(PARAMS["seq_len"], default=8192, bounds=(2, MAX_LEN))
    heads: int = setting(PARAMS["heads"], default=4, section=N_("The MLP"), bounds=(None, PAGE_MAX_HEADS))
    seed: int = setting(PARAMS["seed"])


def compare_link(*, seq_len: int, dim: int, base: float, seed: int, causal: bool) -> dict[str, str]:
    """The compare page's link here: the 8 heads and seed it draws the MLP with (its term is head 1's)."""
    return {"heads": str(COMPARE_HEADS), "seq_len": str(max(seq_len, 2)), "seed": str(seed)}

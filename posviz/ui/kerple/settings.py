"""The KERPLE page's settings: its URL parameters (defaults written once)."""

from __future__ import annotations

from dataclasses import dataclass

from posviz.encodings.kerple import COMPARE_HEADS
from posviz.i18n import N_
from posviz.ui.params import MAX_CURVE_LEN, PARAMS
from posviz.ui.settings import setting

PAGE_MAX_HEADS = 16  # lines per panel that stay readable


@dataclass(frozen=True)
class KerpleSettings:
    """Everything that determines the KERPLE page's tensors, in sidebar order."""

    heads: int = setting(PARAMS["heads"], default=4, section=N_("Heads and distances"), bounds=(None, PAGE_MAX_HEADS))
    seq_len: int = setting(PARAMS["seq_len"], default=4096, bounds=(2, MAX_CURVE_LEN))
    seed: int = setting(PARAMS["seed"])


def compare_link(*, seq_len: int, dim: int, base: float, seed: int, causal: bool) -> dict[str, str]:
    """The compare page's link here: the 8 heads and seed it draws p and a with (its curve is head 1's)."""
    return {"heads": str(COMPARE_HEADS), "seq_len": str(max(seq_len, 2)), "seed": str(seed)}

"""The NoPE page's settings: its URL parameters (defaults written once)."""

from __future__ import annotations

from dataclasses import dataclass

from posviz.i18n import N_
from posviz.ui.params import PARAMS
from posviz.ui.settings import setting

MAX_TOKENS = 512  # the marker figure is an L x L heatmap
DROPE_LEN = 256  # tokens of the DroPE figure's toy sequence (its curves need distances to spread over)


@dataclass(frozen=True)
class NopeSettings:
    """Everything that determines the NoPE page's tensors, in sidebar order."""

    seq_len: int = setting(PARAMS["seq_len"], default=16, section=N_("Toy sequence"), bounds=(2, MAX_TOKENS))
    dim: int = setting(PARAMS["dim"])
    base: float = setting(PARAMS["base"], section=N_("RoPE, before it is dropped"))
    seed: int = setting(PARAMS["seed"])


def compare_link(*, seq_len: int, dim: int, base: float, seed: int, causal: bool) -> dict[str, str]:
    """The compare page's link here: its toy sequence's length, dim, base and seed."""
    return {"seq_len": str(max(seq_len, 2)), "dim": str(dim), "base": f"{base:g}", "seed": str(seed)}

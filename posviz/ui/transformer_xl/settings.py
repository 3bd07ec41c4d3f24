"""The Transformer-XL page's settings: its URL parameters (defaults written once)."""

from __future__ import annotations

from dataclasses import dataclass

from posviz.i18n import N_
from posviz.ui.params import PARAMS, Param
from posviz.ui.settings import setting

MAX_TOKENS = 64  # segment and memory: the heatmaps are drawn cell by cell

MEM_LEN = Param(  # the same key as the skew page's Transformer-XL walk-through
    "mem_len",
    N_("Memory length mem_len"),
    "int",
    4,
    "number",
    min=0,
    max=MAX_TOKENS,
    step=1,
    help=N_("Cached positions of the previous segment before the first query (k_len = seq_len + mem_len)."),
)


@dataclass(frozen=True)
class TransformerXlSettings:
    """Everything that determines the Transformer-XL page's tensors, in sidebar order."""

    seq_len: int = setting(PARAMS["seq_len"], default=8, section=N_("Segment and memory"), bounds=(1, MAX_TOKENS))
    mem_len: int = setting(MEM_LEN)
    dim: int = setting(PARAMS["dim"], default=8, section=N_("Head"))
    seed: int = setting(PARAMS["seed"])


def compare_link(*, seq_len: int, dim: int, base: float, seed: int, causal: bool) -> dict[str, str]:
    """The compare page's link here: the same head (length, dim, seed) with no memory."""
    return {"seq_len": str(seq_len), "mem_len": "0", "dim": str(dim), "seed": str(seed)}

"""The xPos page's settings: its URL parameters (defaults written once) and rules."""

from __future__ import annotations

from dataclasses import dataclass

from posviz.i18n import N_
from posviz.ui.params import MAX_CURVE_LEN, PARAMS, Param
from posviz.ui.settings import setting

SCALE_BASE = Param(
    "scale_base",
    N_("Decay scale scale_base"),
    "float",
    512.0,
    "number",
    min=1.0,
    max=1_000_000.0,
    help=N_("Tokens over which pair k's factor falls by zeta_k (512 in torchscale; larger: slower decay)."),
)


@dataclass(frozen=True)
class XposSettings:
    """Everything that determines the xPos page's tensors, in sidebar order."""

    dim: int = setting(PARAMS["dim"], section=N_("Vectors"))
    scale_base: float = setting(SCALE_BASE)
    seq_len: int = setting(PARAMS["seq_len"], default=8192, bounds=(2, MAX_CURVE_LEN))
    seed: int = setting(PARAMS["seed"])


def compare_link(*, seq_len: int, dim: int, base: float, seed: int, causal: bool) -> dict[str, str]:
    """The compare page's link here: its toy's dim and seed, curves as long as its sequence."""
    return {"dim": str(dim), "seq_len": str(max(seq_len, 2)), "seed": str(seed)}

"""The stick-breaking page's settings: its URL parameters (defaults written once)."""

from __future__ import annotations

from dataclasses import dataclass

from posviz.i18n import N_
from posviz.ui.params import PARAMS, Param
from posviz.ui.settings import setting

MAX_TOKENS = 128  # the weights are dense (L x L) and drawn cell by cell

QUERY = Param(  # the same key as CoPE's: the query a page inspects
    "query",
    N_("Query token i"),
    "int",
    20,
    "slider",
    min=1,
    max=MAX_TOKENS - 1,
    step=1,
    help=N_("The query whose stick is broken into shares in figure 2 (its keys are 0 .. i - 1)."),
)


@dataclass(frozen=True)
class StickbreakingSettings:
    """Everything that determines the stick-breaking page's tensors, in sidebar order."""

    seq_len: int = setting(PARAMS["seq_len"], default=24, section=N_("Toy sequence"), bounds=(2, MAX_TOKENS))
    dim: int = setting(PARAMS["dim"], default=16)
    seed: int = setting(PARAMS["seed"])
    # a slider needs two values to choose from: with 2 tokens the only query with a key before it is 1
    query: int = setting(QUERY, bounds=lambda v: (1, v["seq_len"] - 1), when=lambda v: v["seq_len"] > 2)


def compare_link(*, seq_len: int, dim: int, base: float, seed: int, causal: bool) -> dict[str, str]:
    """The compare page's link here: the same toy (length, dim, seed), its last query inspected."""
    link = {"seq_len": str(max(seq_len, 2)), "dim": str(dim), "seed": str(seed)}
    return link | ({"query": str(seq_len - 1)} if seq_len > 2 else {})

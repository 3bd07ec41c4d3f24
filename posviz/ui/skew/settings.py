"""The skew page's settings: its URL parameters, defaults (written once), and constants."""

from __future__ import annotations

from dataclasses import dataclass

from posviz.encodings.skew import VARIANTS
from posviz.figures.skew import COLOUR_BY
from posviz.i18n import N_
from posviz.ui.params import PARAMS, Param
from posviz.ui.settings import setting

VARIANT = Param(
    "variant",
    N_("Variant"),
    "choice",
    "masked",
    "radio",
    options=VARIANTS,
    option_labels={
        "masked": N_("Music Transformer: L relative columns, causal"),
        "unmasked": N_("2L − 1 relative columns, every pair"),
        "rel_shift": N_("Transformer-XL _rel_shift, with memory"),
    },
    help=N_("Which relative-to-absolute trick to walk through."),
)
MEM_LEN = Param(
    "mem_len",
    N_("Memory length mem_len"),
    "int",
    3,
    "number",
    min=0,
    max=256,
    step=1,
    help=N_("Transformer-XL: cached keys before the first query (k_len = seq_len + mem_len)."),
)
COLOUR = Param(
    "colour",
    N_("Colour cells by"),
    "choice",
    "distance",
    "radio",
    options=tuple(COLOUR_BY),
    option_labels={"distance": N_("the relative position they hold"), "row": N_("the query row they came from")},
    help=N_("Either way a value keeps its colour through every step, so the eye can follow it."),
)

MAX_SEQ_LEN = 512  # every cell of every step is drawn: 512 x 513 cells per figure
MAX_DIM = 256


@dataclass(frozen=True)
class SkewSettings:
    """Everything that determines the skew page."""

    seq_len: int = setting(PARAMS["seq_len"], default=8, bounds=(None, MAX_SEQ_LEN), section=N_("Sequence"))
    dim: int = setting(PARAMS["dim"], bounds=(None, MAX_DIM))
    seed: int = setting(PARAMS["seed"])
    variant: str = setting(VARIANT, section=N_("Skew"))
    mem_len: int = setting(MEM_LEN, when=lambda v: v["variant"] == "rel_shift")
    colour: str = setting(COLOUR)

    @property
    def memory(self) -> int:
        """Memory keys in front of the queries: only Transformer-XL has them."""
        return self.mem_len if self.variant == "rel_shift" else 0

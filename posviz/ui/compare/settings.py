"""The compare page's settings: the shared toy sequence (defaults written once) and its rules."""

from __future__ import annotations

from dataclasses import dataclass

from posviz.encodings.checks import check_base, check_even_dim
from posviz.i18n import N_
from posviz.schemes import COMPARE_SETS
from posviz.ui.params import PARAMS, Param
from posviz.ui.settings import setting

MAX_SEQ_LEN = 64  # every cell of every panel is drawn, twice: about 300 KB per grid of eight at 64
SCHEMES = Param(
    "schemes",
    N_("Schemes compared"),
    "choice",
    "core",
    "radio",
    options=tuple(COMPARE_SETS),
    option_labels=dict(COMPARE_SETS),
    help=N_(
        "Which schemes the figures and the table show; each scheme's entry in the registry says which "
        "selections it is in. Every selection sees the same toy sequence."
    ),
)
MAX_DIM = 128


@dataclass(frozen=True)
class CompareSettings:
    """The toy sequence every scheme sees, in sidebar order."""

    seq_len: int = setting(
        PARAMS["seq_len"], default=32, section=N_("The shared toy sequence"), bounds=(None, MAX_SEQ_LEN)
    )
    dim: int = setting(PARAMS["dim"], bounds=(None, MAX_DIM))
    base: float = setting(PARAMS["base"])
    seed: int = setting(PARAMS["seed"])
    causal: bool = setting(PARAMS["causal"])
    schemes: str = setting(SCHEMES, section=N_("Schemes"))


def problem(s: CompareSettings) -> str | None:
    """The rule the settings break (naming the fix); None if fine."""
    try:
        check_even_dim(s.dim, why="sin/cos and rotation pairs")
        check_base(s.base)
    except ValueError as err:
        return str(err)
    return None

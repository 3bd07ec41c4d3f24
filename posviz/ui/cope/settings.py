"""The CoPE page's settings: its URL parameters (defaults written once), and rules."""

from __future__ import annotations

from dataclasses import dataclass, replace

from posviz.encodings.cope_toy import MODES
from posviz.encodings.tokens import tokenize
from posviz.figures.cope import COPE_MAX_TOKENS
from posviz.i18n import N_, _
from posviz.ui.params import PARAMS, Param
from posviz.ui.settings import setting

COPE_MAX_CHARS = 20000
COPE_TEXT = (
    "The cat sat on the mat. It was warm there! Then the dog came in, and it sat down too. "
    "Both slept. Who woke up first?"
)

TEXT = Param(
    "text",
    N_("Text"),
    "text",
    COPE_TEXT,
    "text_area",
    max=COPE_MAX_CHARS,
    # the numbers written out, so that the text is one catalogue entry (tests/app/test_cope.py checks them)
    help=N_("Words and punctuation marks become tokens; at most 20000 characters and 4096 tokens are read."),
)
MODE = Param(
    "mode",
    N_("Gates come from"),
    "choice",
    "random",  # fractional gates: the default pair's position lies between two integers, so it interpolates
    "radio",
    options=MODES,
    option_labels={
        "count-tokens": N_("every gate 1: a relative position"),
        "count-sentences": N_("1 on . ! ? only: counts sentences"),
        "random": N_("sigmoid(q · k / temperature), toy q, k"),
        "custom": N_("a gate per token, from the table"),
    },
    help=N_("Where the gates g_ij come from; a trained model computes sigmoid(q_i · k_j)."),
)
NPOS_MAX = Param(
    "npos_max",
    N_("Positions npos_max"),
    "int",
    16,
    "number",
    min=1,
    max=COPE_MAX_TOKENS + 1,
    step=1,
    help=N_("Number of position embeddings e[0] .. e[npos_max - 1]; positions are clamped to npos_max - 1."),
)
TEMPERATURE = Param(
    "temperature",
    N_("Temperature"),
    "float",
    8.0,
    "slider",
    min=0.5,
    max=32.0,
    step=0.5,
    help=N_("Random mode: gates sigmoid(q · k / temperature). The paper divides by √dim (8 for dim = 64)."),
)
QUERY = Param(
    "query",
    N_("Query token i"),
    "int",
    0,
    "slider",
    min=0,
    max=COPE_MAX_TOKENS - 1,
    step=1,
    help=N_("The query whose positions, interpolation and counting are inspected."),
)
# The key slider is the query slider, with its own key, label and help.
KEY = replace(
    QUERY, key="key", label=N_("Key token j"), help=N_("The key (j <= i) whose position p_ij is interpolated.")
)
MASK_AFTER = Param(
    "mask_after",
    N_("Apply the mask after the gates (wrong)"),
    "bool",
    False,
    "toggle",
    help=N_("The pitfall: gates of future keys are summed into every position before the mask."),
)


@dataclass(frozen=True)
class SidebarSettings:
    """The sidebar settings that do not depend on the text, in sidebar order (``read_settings`` draws them)."""

    mode: str = setting(MODE, section=N_("Gates"))
    temperature: float = setting(TEMPERATURE)
    npos_max: int = setting(NPOS_MAX, section=N_("Positions"))
    dim: int = setting(PARAMS["dim"], section=N_("Toy queries, keys, embeddings"))
    seed: int = setting(PARAMS["seed"])


@dataclass(frozen=True)
class CopeSettings(SidebarSettings):
    """Everything that determines the CoPE page. The text box sits in the page, and the inspected
    pair's bounds and default follow the text's tokens (:mod:`posviz.ui.cope.inputs` draws them)."""

    text: str = setting(TEXT)
    query: int = setting(QUERY)
    key: int = setting(KEY)
    mask_after: bool = setting(MASK_AFTER)


def gate_temperature(s: CopeSettings) -> float:
    """The temperature the gates use: the setting in random mode, else the default (the gates ignore it, so
    moving it in another mode rebuilds nothing)."""
    return s.temperature if s.mode == "random" else TEMPERATURE.default


def problem(s: CopeSettings) -> str | None:
    """The rule the settings break, as a message naming the fix; None if fine."""
    if not tokenize(s.text, limit=1):
        return _("The text has no tokens: type or paste at least one word or punctuation mark.")
    return None

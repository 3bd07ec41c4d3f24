"""The ALiBi page's settings: its URL parameters (defaults written once), and rules."""

from __future__ import annotations

from dataclasses import dataclass

from posviz.encodings.alibi import alibi_slopes
from posviz.i18n import N_
from posviz.ui.params import MAX_LEN, PARAMS
from posviz.ui.settings import setting

PAGE_MAX_HEADS = 128  # the slider's top (the encoding takes up to 4096)


@dataclass(frozen=True)
class AlibiSettings:
    """Everything that determines the ALiBi page's tensors, in sidebar order."""

    heads: int = setting(PARAMS["heads"], section=N_("Heads and sequence"), bounds=(None, PAGE_MAX_HEADS))
    seq_len: int = setting(PARAMS["seq_len"], bounds=(None, MAX_LEN))
    causal: bool = setting(PARAMS["causal"])
    window: int = setting(PARAMS["window"], section=N_("Zoom"), bounds=(None, MAX_LEN))
    q_start: int = setting(PARAMS["q_start"], when=lambda v: v["window"] > 0)
    k_start: int = setting(PARAMS["k_start"], when=lambda v: v["window"] > 0)


def problem(s: AlibiSettings) -> str | None:
    """The rule the settings break (the encoding's own message, naming the fix); None if fine."""
    try:
        alibi_slopes(s.heads)
    except ValueError as err:
        return str(err)
    return None

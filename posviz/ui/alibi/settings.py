"""The ALiBi page's settings: its URL parameters (defaults written once), cache keys and rules."""

from __future__ import annotations

from dataclasses import dataclass

from posviz.encodings.alibi import alibi_slopes
from posviz.ui.params import MAX_LEN, PARAMS
from posviz.ui.settings import setting

PAGE_MAX_HEADS = 128  # the slider's top (the encoding takes up to 4096)
GRID_HEADS = 16  # panels of the bias grid
GRID_POINTS = 40  # per axis of each panel: a zoom window of 40 positions or fewer is drawn cell by cell
CURVE_HEADS = 12  # lines of the receptive-field figure
CURVE_POINTS = 400  # log-spaced distances of the receptive field past the dense ones


@dataclass(frozen=True)
class AlibiSettings:
    """Everything that determines the ALiBi page's tensors, in sidebar order."""

    heads: int = setting(PARAMS["heads"], section="Heads and sequence", bounds=(None, PAGE_MAX_HEADS))
    seq_len: int = setting(PARAMS["seq_len"], bounds=(None, MAX_LEN))
    causal: bool = setting(PARAMS["causal"])
    window: int = setting(PARAMS["window"], section="Zoom", bounds=(None, MAX_LEN))
    q_start: int = setting(PARAMS["q_start"], when=lambda v: v["window"] > 0)
    k_start: int = setting(PARAMS["k_start"], when=lambda v: v["window"] > 0)


@dataclass(frozen=True)
class SlopesKey:
    """The slopes depend on the number of heads only."""

    heads: int


@dataclass(frozen=True)
class ReceptiveKey:
    """Each head's reach: the slopes and the longest distance (the last query sees every key)."""

    heads: int
    seq_len: int


def problem(s: AlibiSettings) -> str | None:
    """The rule the settings break (the encoding's own message, naming the fix); None if fine."""
    try:
        alibi_slopes(s.heads)
    except ValueError as err:
        return str(err)
    return None

"""The sinusoidal page's settings: its URL parameters (defaults written once), cache keys and rules."""

from __future__ import annotations

from dataclasses import dataclass

from posviz.encodings.sinusoidal import LAYOUTS, sinusoidal_inv_freq
from posviz.ui.params import MAX_LEN, PARAMS
from posviz.ui.settings import setting

TABLE_POINTS = 192  # rows of the table heatmap
SIM_POINTS = 128  # per axis of the similarity heatmaps
WAVE_POINTS = 1000
LAYOUT_POSITIONS = 48  # rows of the side-by-side layouts
PROFILE_POINTS = 400  # log-spaced distances of the profile past the dense ones
LEARNED_MAX = 4096  # rows of the learned table drawn (BERT has 512, GPT-2 1024)


@dataclass(frozen=True)
class SinusoidalSettings:
    """Everything that determines the sinusoidal page's tensors, in sidebar order."""

    seq_len: int = setting(PARAMS["seq_len"], section="Table", bounds=(None, MAX_LEN))
    dim: int = setting(PARAMS["dim"])
    base: float = setting(PARAMS["base"])
    layout: str = setting(PARAMS["layout"], options=LAYOUTS)
    seed: int = setting(PARAMS["seed"])

    @property
    def learned_len(self) -> int:
        """Rows of the learned table drawn: a learned table has a size, the sinusoidal one has not."""
        return min(self.seq_len, LEARNED_MAX)


@dataclass(frozen=True)
class TableKey:
    """What the table, its waves and the similarity depend on (not the seed)."""

    seq_len: int
    dim: int
    base: float
    layout: str


@dataclass(frozen=True)
class LayoutsKey:
    """The side-by-side layouts draw both: they do not depend on the chosen one."""

    seq_len: int
    dim: int
    base: float


@dataclass(frozen=True)
class LearnedKey:
    """The learned table against the sinusoidal one: its own length and the seed."""

    learned_len: int
    dim: int
    base: float
    seed: int


def problem(s: SinusoidalSettings) -> str | None:
    """The rule the settings break (the encoding's own message, naming the fix); None if fine."""
    try:
        sinusoidal_inv_freq(s.dim, base=s.base)
    except ValueError as err:
        return str(err)
    return None

"""The sinusoidal page's settings: its URL parameters (defaults written once) and rules."""

from __future__ import annotations

from dataclasses import dataclass

from posviz.encodings.sinusoidal import LAYOUTS, sinusoidal_inv_freq
from posviz.i18n import N_
from posviz.ui.params import MAX_LEN, PARAMS
from posviz.ui.settings import setting

LEARNED_MAX = 4096  # rows of the learned table drawn (BERT has 512, GPT-2 1024)


@dataclass(frozen=True)
class SinusoidalSettings:
    """Everything that determines the sinusoidal page's tensors, in sidebar order."""

    seq_len: int = setting(PARAMS["seq_len"], section=N_("Table"), bounds=(None, MAX_LEN))
    dim: int = setting(PARAMS["dim"])
    base: float = setting(PARAMS["base"])
    layout: str = setting(PARAMS["layout"], options=LAYOUTS)
    seed: int = setting(PARAMS["seed"])

    @property
    def learned_len(self) -> int:
        """Rows of the learned table drawn: a learned table has a size, the sinusoidal one has not."""
        return min(self.seq_len, LEARNED_MAX)


def problem(s: SinusoidalSettings) -> str | None:
    """The rule the settings break (the encoding's own message, naming the fix); None if fine."""
    try:
        sinusoidal_inv_freq(s.dim, base=s.base)
    except ValueError as err:
        return str(err)
    return None

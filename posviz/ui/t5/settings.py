"""The T5 page's settings: its URL parameters, defaults (written once) and rules."""

from __future__ import annotations

from dataclasses import dataclass

from posviz.encodings.positions import query_positions
from posviz.encodings.t5 import check_t5_config
from posviz.i18n import N_
from posviz.ui.params import PARAMS, Param, length
from posviz.ui.settings import setting

NUM_BUCKETS = Param(
    "num_buckets",
    N_("Buckets num_buckets"),
    "int",
    32,
    "slider",
    min=1,
    max=256,
    step=1,
    help=N_("Total number of buckets (T5 uses 32); halved per direction when bidirectional."),
)
MAX_DISTANCE = length(
    "max_distance",
    N_("Max distance max_distance"),
    default=128,
    help=N_("Distances from here on share the last bucket (T5 uses 128)."),
)
BIDIRECTIONAL = Param(
    "bidirectional",
    N_("Bidirectional (encoder)"),
    "bool",
    True,
    "toggle",
    help=N_("On: encoder, past and future keys get separate buckets. Off: decoder, every future key shares bucket 0."),
)
SCALE = Param(
    "scale",
    N_("Bias scale"),
    "float",
    1.0,
    "slider",
    min=-4.0,
    max=4.0,
    step=0.05,
    help=N_("Multiplies the bias (1 in T5; the seed notebooks call it rp_scale)."),
)


@dataclass(frozen=True)
class T5Settings:
    """Everything that determines the T5 page, read in field order."""

    q_len: int = setting(PARAMS["q_len"], section=N_("Sequence"))
    k_len: int = setting(PARAMS["k_len"])
    align: str = setting(PARAMS["align"])
    bidirectional: bool = setting(BIDIRECTIONAL, section=N_("Buckets"))
    num_buckets: int = setting(NUM_BUCKETS)
    max_distance: int = setting(MAX_DISTANCE)
    window: int = setting(PARAMS["window"], section=N_("Zoom"))
    q_start: int = setting(PARAMS["q_start"], when=lambda v: v["window"] > 0)
    k_start: int = setting(PARAMS["k_start"], when=lambda v: v["window"] > 0)
    heads: int = setting(PARAMS["heads"], section=N_("Bias table"))
    scale: float = setting(SCALE)
    head: int = setting(PARAMS["head"], bounds=lambda v: (None, v["heads"] - 1), when=lambda v: v["heads"] > 1)
    seed: int = setting(PARAMS["seed"])

    @property
    def offset(self) -> int:
        """Position of the first query: queries at the end of the keys start at ``k_len - q_len``."""
        return self.k_len - self.q_len if self.align == "end" else 0


def problem(s: T5Settings) -> str | None:
    """The first cross-field rule the settings break, as a message naming the fix; None if fine."""
    try:
        check_t5_config(bidirectional=s.bidirectional, num_buckets=s.num_buckets, max_distance=s.max_distance)
        query_positions(s.q_len, s.k_len, align=s.align)
    except ValueError as err:
        return str(err)
    return None

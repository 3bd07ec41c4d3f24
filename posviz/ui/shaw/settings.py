"""The Shaw page's settings: its URL parameters, defaults (written once), and rules."""

from __future__ import annotations

from dataclasses import dataclass

from posviz.encodings.positions import query_positions
from posviz.i18n import N_
from posviz.ui.params import MAX_LEN, PARAMS, Param
from posviz.ui.settings import setting

CLIP = Param(
    "clip",
    N_("Clip distance K"),
    "int",
    8,
    "number",
    min=0,
    max=4096,
    step=1,
    help=N_(
        "Largest distance with its own table row; the table has 2K + 1 rows (tensor2tensor's max_relative_position)."
    ),
)
SEPARATE = Param(
    "separate",
    N_("Separate value table a^V"),
    "bool",
    True,
    "toggle",
    help=N_("On: keys and values get their own tables (a^K, a^V), as in the paper. Off: one shared table."),
)
ROW = Param(
    "row",
    N_("Query row shown"),
    "int",
    16,
    "slider",
    min=0,
    max=MAX_LEN - 1,
    step=1,
    help=N_("Which query's lookup R[i] to draw (0 is the first query)."),
)

MAX_DIM = 256
TOY_MAX_LEN = 2048  # toy content: the softmax needs every key, so its lengths are capped


@dataclass(frozen=True)
class ShawSettings:
    """Everything that determines the Shaw page, in the sidebar's order."""

    q_len: int = setting(PARAMS["q_len"], default=32, section=N_("Sequence"))
    k_len: int = setting(PARAMS["k_len"], default=32)
    align: str = setting(PARAMS["align"])
    clip: int = setting(CLIP, section=N_("Relative table"))
    window: int = setting(PARAMS["window"], section=N_("Zoom"))
    q_start: int = setting(PARAMS["q_start"], when=lambda v: v["window"] > 0)
    k_start: int = setting(PARAMS["k_start"], when=lambda v: v["window"] > 0)
    dim: int = setting(PARAMS["dim"], bounds=(None, MAX_DIM))
    separate: bool = setting(SEPARATE)
    seed: int = setting(PARAMS["seed"])
    row: int = setting(ROW, bounds=lambda v: (None, v["q_len"] - 1), when=lambda v: v["q_len"] > 1)

    @property
    def offset(self) -> int:
        """Position of the first query: queries at the end of the keys start at ``k_len - q_len``."""
        return self.k_len - self.q_len if self.align == "end" else 0

    @property
    def shown_row(self) -> int:
        """The query whose ``R[i]`` is drawn: the chosen row, the only one when ``q_len`` is 1."""
        return min(self.row, self.q_len - 1)

    @property
    def toy_q_len(self) -> int:
        """The toy attention's lengths: capped at ``TOY_MAX_LEN`` (both, so ``q_len <= k_len`` stays true)."""
        return min(self.q_len, TOY_MAX_LEN)

    @property
    def toy_k_len(self) -> int:
        return min(self.k_len, TOY_MAX_LEN)


def problem(s: ShawSettings) -> str | None:
    """The first cross-field rule the settings break, as a message naming the fix; None if fine."""
    try:
        query_positions(s.q_len, s.k_len, align=s.align)
    except ValueError as err:
        return str(err)
    return None

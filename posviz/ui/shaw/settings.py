"""The Shaw page's settings: its URL parameters, defaults (written once), cache keys and rules."""

from __future__ import annotations

from dataclasses import dataclass

from posviz.encodings.positions import query_positions
from posviz.ui.params import MAX_LEN, PARAMS, Param
from posviz.ui.settings import project, setting

CLIP = Param(
    "clip",
    "Clip distance K",
    "int",
    8,
    "number",
    min=0,
    max=4096,
    step=1,
    help="Largest distance with its own table row; the table has 2K + 1 rows (tensor2tensor's max_relative_position).",
)
SEPARATE = Param(
    "separate",
    "Separate value table a^V",
    "bool",
    True,
    "toggle",
    help="On: keys and values get their own tables (a^K, a^V), as in the paper. Off: one shared table.",
)
ROW = Param(
    "row",
    "Query row shown",
    "int",
    16,
    "slider",
    min=0,
    max=MAX_LEN - 1,
    step=1,
    help="Which query's lookup R[i] to draw (0 is the first query).",
)

MAX_DIM = 256
MAIN_POINTS = 128  # per axis of each of the three index panels
PAIR_POINTS = 96  # per axis of each panel of the score and attention pairs
ROW_POINTS = 256  # keys in the R[i] slice
TOY_MAX_LEN = 2048  # toy content: the softmax needs every key, so its lengths are capped
MEMORY_LENGTHS = tuple(2**p for p in range(4, 18))  # 16 .. 131072
ALLOCATE_UP_TO = 32 * 2**20  # bytes: below this the memory chart allocates R for real


@dataclass(frozen=True)
class IndexKey:
    """What the index matrices depend on: the positions and the clip."""

    q_len: int
    k_len: int
    align: str
    clip: int
    window: int  # the zoom: positions per axis (0: the whole view), from q_start and k_start
    q_start: int
    k_start: int

    @property
    def offset(self) -> int:
        """Position of the first query: queries at the end of the keys start at ``k_len - q_len``."""
        return self.k_len - self.q_len if self.align == "end" else 0


@dataclass(frozen=True)
class ScoreKey(IndexKey):
    """The toy scores and attention: also the width and the seed (they read a^K only, so not ``separate``).
    Lengths capped by :func:`toy_key`."""

    dim: int
    seed: int


@dataclass(frozen=True)
class ToyKey(ScoreKey):
    """The toy value term: also whether a^V is a table of its own."""

    separate: bool


@dataclass(frozen=True)
class ShawSettings(IndexKey):
    """Everything that determines the Shaw page, in the sidebar's order (a dataclass keeps a field
    redeclared from :class:`IndexKey` in its first place)."""

    q_len: int = setting(PARAMS["q_len"], default=32, section="Sequence")
    k_len: int = setting(PARAMS["k_len"], default=32)
    align: str = setting(PARAMS["align"])
    clip: int = setting(CLIP, section="Relative table")
    window: int = setting(PARAMS["window"], section="Zoom")
    q_start: int = setting(PARAMS["q_start"], when=lambda v: v["window"] > 0)
    k_start: int = setting(PARAMS["k_start"], when=lambda v: v["window"] > 0)
    dim: int = setting(PARAMS["dim"], bounds=(None, MAX_DIM))
    separate: bool = setting(SEPARATE)
    seed: int = setting(PARAMS["seed"])
    row: int = setting(ROW, bounds=lambda v: (None, v["q_len"] - 1), when=lambda v: v["q_len"] > 1)

    @property
    def shown_row(self) -> int:
        """The query whose ``R[i]`` is drawn: the chosen row, the only one when ``q_len`` is 1."""
        return min(self.row, self.q_len - 1)

    @property
    def toy_q_len(self) -> int:
        return min(self.q_len, TOY_MAX_LEN)

    @property
    def toy_k_len(self) -> int:
        return min(self.k_len, TOY_MAX_LEN)


@dataclass(frozen=True)
class TableKey:
    """The embedding tables a^K and a^V."""

    clip: int
    dim: int
    seed: int
    separate: bool


@dataclass(frozen=True)
class RowKey:
    """One query's lookup ``R[i]``: it reads a^K only, so it does not depend on ``separate``."""

    q_len: int
    k_len: int
    align: str
    clip: int
    dim: int
    seed: int
    row: int


@dataclass(frozen=True)
class BytesKey:
    """The memory chart's measurements: ``R`` for every length in ``MEMORY_LENGTHS``."""

    dim: int
    clip: int


def row_key(s: ShawSettings) -> RowKey:
    return project(s, RowKey, row=s.shown_row)


def toy_key(s: ShawSettings) -> ToyKey:
    """The toy attention's key: lengths capped at ``TOY_MAX_LEN`` (both, so ``q_len <= k_len`` stays true)."""
    return project(s, ToyKey, q_len=s.toy_q_len, k_len=s.toy_k_len)


def problem(s: IndexKey) -> str | None:
    """The first cross-field rule the settings break, as a message naming the fix; None if fine."""
    try:
        query_positions(s.q_len, s.k_len, align=s.align)
    except ValueError as err:
        return str(err)
    return None

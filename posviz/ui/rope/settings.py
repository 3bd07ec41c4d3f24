"""The RoPE page's settings (defaults written once, in the parameters), cache keys and rules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from posviz.encodings.rope import LAYOUTS, METHOD_OPTIONS, rope_scaling
from posviz.ui.params import PARAMS
from posviz.ui.rope.params import (
    ATTENTION_FACTOR,
    BETA_FAST,
    BETA_SLOW,
    FACTOR,
    HIGH_FREQ_FACTOR,
    LOW_FREQ_FACTOR,
    METHOD,
    METHOD_CONTROLS,
    MSCALE,
    MSCALE_ALL_DIM,
    ORIGINAL_MAX_POSITION,
    TRUNCATE,
    M,
    N,
)
from posviz.ui.settings import Values, project, setting

DECAY_SAMPLES = 256  # random vectors averaged in the decay curves
CIRCLE_PAIRS = 16  # pairs drawn on circles
CIS_POSITIONS, CIS_PAIRS = 8, 8  # the freqs_cis table
SCORE_LEN = 32  # positions of the (R_i q) . (R_j k) heatmap
SHIFT_POINTS = 40
DECAY_DENSE, DECAY_POINTS = 128, 480  # every distance up to 128, then log-spaced
ANGLE_POINTS = 400
TOY_LEN = 32


def _shown(key: str) -> Callable[[Values], bool]:
    """``when`` of a scaling option: drawn only for the methods that use it (otherwise it keeps its default)."""

    def when(v: Values) -> bool:
        return key in METHOD_CONTROLS[v["method"]]

    return when


class HfOptions:
    """The scaling options under their Hugging Face names, for a settings object or a key that holds them."""

    def options(self, method: str | None = None) -> dict:
        """The method's own options (``None``: unset, the page's 0); dynamic reads ``seq_len``."""
        method = method or self.method  # type: ignore[attr-defined]
        out = {}
        for key, reference in METHOD_OPTIONS[method].items():
            value = getattr(self, key)
            out[key] = None if reference is None and not value else value
        return out


@dataclass(frozen=True)
class RopeSettings(HfOptions):
    """Everything that determines the RoPE page's tensors, in sidebar order; hidden options keep their defaults."""

    dim: int = setting(PARAMS["dim"], section="Vectors and positions")
    base: float = setting(PARAMS["base"])
    layout: str = setting(PARAMS["layout"], options=LAYOUTS)
    m: int = setting(M)
    n: int = setting(N)
    seq_len: int = setting(PARAMS["seq_len"], default=16384)
    seed: int = setting(PARAMS["seed"])
    method: str = setting(METHOD, section="Context extension")
    factor: float = setting(FACTOR, when=_shown("factor"))
    original_max_position: int = setting(ORIGINAL_MAX_POSITION, when=_shown("original_max_position"))
    beta_fast: float = setting(BETA_FAST, when=_shown("beta_fast"))
    beta_slow: float = setting(BETA_SLOW, when=_shown("beta_slow"))
    mscale: float = setting(MSCALE, when=_shown("mscale"))
    mscale_all_dim: float = setting(MSCALE_ALL_DIM, when=_shown("mscale_all_dim"))
    attention_factor: float = setting(ATTENTION_FACTOR, when=_shown("attention_factor"))
    truncate: bool = setting(TRUNCATE, when=_shown("truncate"))
    low_freq_factor: float = setting(LOW_FREQ_FACTOR, when=_shown("low_freq_factor"))
    high_freq_factor: float = setting(HIGH_FREQ_FACTOR, when=_shown("high_freq_factor"))


@dataclass(frozen=True)
class ScalingKey(HfOptions):
    """What every method's frequencies depend on (dynamic reads ``seq_len``), and the curves up to ``seq_len``."""

    dim: int
    base: float
    method: str
    factor: float
    original_max_position: int
    beta_fast: float
    beta_slow: float
    mscale: float
    mscale_all_dim: float
    attention_factor: float
    truncate: bool
    low_freq_factor: float
    high_freq_factor: float
    seq_len: int


@dataclass(frozen=True)
class FreqKey(ScalingKey):
    """What the chosen method's frequencies depend on: ``seq_len`` is None unless the method is dynamic, so a
    change of ``seq_len`` does not rebuild the views that read it only through dynamic NTK."""

    seq_len: int | None


@dataclass(frozen=True)
class PermutationKey:
    """The permutation between the layouts depends on ``dim`` only."""

    dim: int


@dataclass(frozen=True)
class MatrixKey:
    """``R_m`` in the chosen layout (and the gap between the layouts at ``m``)."""

    freq: FreqKey
    layout: str
    m: int


@dataclass(frozen=True)
class VectorsKey:
    """One random ``q`` and ``k`` (from the seed) rotated in the chosen layout: the score heatmap."""

    freq: FreqKey
    layout: str
    seed: int


@dataclass(frozen=True)
class PairsKey(VectorsKey):
    """The vector at positions 0, ``m`` and ``n``: the circles."""

    m: int
    n: int


@dataclass(frozen=True)
class RelativeKey(PairsKey):
    """The relative property: also the shifts, up to ``seq_len``."""

    seq_len: int


@dataclass(frozen=True)
class DecayKey(VectorsKey):
    """The decay curves: random samples (the seed), distances up to ``seq_len - 1``."""

    seq_len: int


@dataclass(frozen=True)
class AttentionKey(VectorsKey):
    """The toy attention: ``length`` positions, ``min(TOY_LEN, seq_len)``."""

    length: int


@dataclass(frozen=True)
class Keys:
    """Every key of the page, each the narrowest its figures need."""

    scaling: ScalingKey
    freq: FreqKey
    permutation: PermutationKey
    matrix: MatrixKey
    vectors: VectorsKey
    pairs: PairsKey
    relative: RelativeKey
    decay: DecayKey
    attention: AttentionKey


def keys(s: RopeSettings) -> Keys:
    """The page's keys from its settings."""
    freq = project(s, FreqKey, seq_len=s.seq_len if s.method == "dynamic" else None)
    return Keys(
        scaling=project(s, ScalingKey),
        freq=freq,
        permutation=project(s, PermutationKey),
        matrix=project(s, MatrixKey, freq=freq),
        vectors=project(s, VectorsKey, freq=freq),
        pairs=project(s, PairsKey, freq=freq),
        relative=project(s, RelativeKey, freq=freq),
        decay=project(s, DecayKey, freq=freq),
        attention=project(s, AttentionKey, freq=freq, length=min(TOY_LEN, s.seq_len)),
    )


def problem(s: RopeSettings) -> str | None:
    """The first rule the settings break, as a message naming the fix; None if fine."""
    try:
        rope_scaling(
            s.method, s.dim, base=s.base, factor=s.factor, original_max_position=s.original_max_position, **s.options()
        )
    except ValueError as err:
        return f"{err} Change the {s.method} settings in the sidebar."
    return None

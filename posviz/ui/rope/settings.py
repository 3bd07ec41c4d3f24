"""The RoPE page's settings (defaults written once, in the parameters), cache keys and rules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, make_dataclass
from typing import Any

import torch

from posviz.encodings.rope import LAYOUTS
from posviz.encodings.rope_scaling import rope_scaling
from posviz.ui.params import PARAMS
from posviz.ui.rope.params import (
    FACTOR,
    METHOD,
    METHOD_CONTROLS,
    OPTION_PARAMS,
    ORIGINAL_MAX_POSITION,
    M,
    N,
    method_options,
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


class _Scaling:
    """``rope_scaling``'s arguments, for the page's settings and the keys that hold them."""

    # Declared, not fields (this base is no dataclass): the settings and keys below hold them.
    dim: int
    base: float
    method: str
    factor: float
    original_max_position: int
    seq_len: int | None

    def option_values_dict(self) -> dict[str, Any]:
        """Every method's own options on the page, by URL key (the page's 0 for an unset one)."""
        return {key: getattr(self, key) for key in OPTION_PARAMS}

    def options(self, method: str | None = None) -> dict[str, Any]:
        """``method``'s own options (default: the chosen method's) under their Hugging Face names."""
        return method_options(method or self.method, self.option_values_dict(), self.seq_len)

    def scaling(self, method: str | None = None) -> tuple[torch.Tensor, float]:
        """``rope_scaling`` of ``method`` (default: the chosen one): ``(inv_freq (dim/2,) float64, factor)``."""
        method = method or self.method
        return rope_scaling(
            method,
            self.dim,
            base=self.base,
            factor=self.factor,
            original_max_position=self.original_max_position,
            **self.options(method),
        )


_TYPES = {"int": int, "float": float, "bool": bool}

# Everything that determines the RoPE page's tensors, in sidebar order; hidden options keep their defaults.
# The scaling methods' own options are fields too, one per option in the registry (ROPE_SCALING).
RopeSettings = make_dataclass(
    "RopeSettings",
    [
        ("dim", int, setting(PARAMS["dim"], section="Vectors and positions")),
        ("base", float, setting(PARAMS["base"])),
        ("layout", str, setting(PARAMS["layout"], options=LAYOUTS)),
        ("m", int, setting(M)),
        ("n", int, setting(N)),
        ("seq_len", int, setting(PARAMS["seq_len"], default=16384)),
        ("seed", int, setting(PARAMS["seed"])),
        ("method", str, setting(METHOD, section="Context extension")),
        ("factor", float, setting(FACTOR, when=_shown("factor"))),
        ("original_max_position", int, setting(ORIGINAL_MAX_POSITION, when=_shown("original_max_position"))),
        *((key, _TYPES[p.kind], setting(p, when=_shown(key))) for key, p in OPTION_PARAMS.items()),
    ],
    bases=(_Scaling,),
    frozen=True,
    namespace={"__module__": __name__, "__doc__": "The RoPE page's settings, in sidebar order."},
)


@dataclass(frozen=True)
class ScalingKey(_Scaling):
    """What every method's frequencies depend on (dynamic reads ``seq_len``), and the curves up to ``seq_len``."""

    dim: int
    base: float
    method: str
    factor: float
    original_max_position: int
    option_values: tuple[tuple[str, Any], ...]  # every method's own options on the page, by URL key
    seq_len: int

    def option_values_dict(self) -> dict[str, Any]:
        return dict(self.option_values)


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


def keys(s: Any) -> Keys:
    """The page's keys from its settings (a ``RopeSettings``)."""
    values = tuple(s.option_values_dict().items())
    freq = project(s, FreqKey, option_values=values, seq_len=s.seq_len if s.method == "dynamic" else None)
    return Keys(
        scaling=project(s, ScalingKey, option_values=values),
        freq=freq,
        permutation=project(s, PermutationKey),
        matrix=project(s, MatrixKey, freq=freq),
        vectors=project(s, VectorsKey, freq=freq),
        pairs=project(s, PairsKey, freq=freq),
        relative=project(s, RelativeKey, freq=freq),
        decay=project(s, DecayKey, freq=freq),
        attention=project(s, AttentionKey, freq=freq, length=min(TOY_LEN, s.seq_len)),
    )


def problem(s: Any) -> str | None:
    """The first rule the settings (a ``RopeSettings``) break, as a message naming the fix; None if fine."""
    try:
        s.scaling()
    except ValueError as err:
        return f"{err} Change the {s.method} settings in the sidebar."
    return None

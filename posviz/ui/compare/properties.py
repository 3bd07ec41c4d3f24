"""The properties table: one row per compared scheme, computed from the settings, keyed by registry key."""

from __future__ import annotations

import math

import pandas as pd

from posviz.encodings.alibi import alibi_slopes
from posviz.encodings.compare import (
    ALIBI_HEAD,
    ALIBI_HEADS,
    COPE_NPOS,
    SHAW_CLIP,
    T5_BUCKETS,
    T5_HEADS,
    T5_MAX_DISTANCE,
)
from posviz.encodings.rope import rope_inv_freq
from posviz.encodings.sinusoidal import sinusoidal_wavelengths
from posviz.encodings.t5 import t5_saturation
from posviz.schemes import COMPARED
from posviz.ui.compare.settings import CompareSettings

Row = tuple[str, str, int, str]  # kind, learned or fixed, parameters, where it stops distinguishing distances


def _t5_saturation(causal: bool) -> int:
    """The smallest distance from which every farther key (in the past) shares one T5 bucket."""
    return t5_saturation(bidirectional=not causal, num_buckets=T5_BUCKETS, max_distance=T5_MAX_DISTANCE)


def property_rows(s: CompareSettings) -> dict[str, Row]:
    """Scheme key -> its row, from the settings."""
    d, n = s.dim, s.seq_len
    slowest = float(sinusoidal_wavelengths(d, base=s.base)[-1])
    rope_slowest = float(2 * math.pi / rope_inv_freq(d, base=s.base)[-1])
    m = float(alibi_slopes(ALIBI_HEADS)[ALIBI_HEAD])
    return {
        "none": ("—", "fixed", 0, "never sees distance: attention is a function of the set of tokens"),
        "sinusoidal": ("absolute, added to the input", "fixed", 0, f"no limit; slowest period {slowest:,.0f} tokens"),
        "learned": (
            "absolute, added to the input",
            "learned",
            n * d,
            f"no row past position {n - 1}: longer inputs are impossible",
        ),
        "shaw": (
            "relative, vector in q·k",
            "learned",
            2 * (2 * SHAW_CLIP + 1) * d,
            f"distance {SHAW_CLIP} (K): every farther key reads the edge row",
        ),
        "t5": (
            "relative, bias on the logits",
            "learned",
            T5_BUCKETS * T5_HEADS,
            f"distance {_t5_saturation(s.causal)}: every farther key shares the last bucket",
        ),
        "rope": ("relative, rotation of q and k", "fixed", 0, f"no limit; slowest period {rope_slowest:,.0f} tokens"),
        "alibi": (
            "relative, bias on the logits",
            "fixed",
            0,
            f"never (linear); this head loses 1/e per {1 / m:.0f} tokens",
        ),
        "cope": (
            "contextual, counts gated keys",
            "learned",
            COPE_NPOS * d,
            f"contextual position {COPE_NPOS - 1}: positions are clamped",
        ),
    }


def properties(s: CompareSettings, nbytes: list[int]) -> pd.DataFrame:
    """The properties table in the registry's order; the bytes as measured, one per compared scheme.

    No time column: at these lengths a run is tens of microseconds of PyTorch's per-call overhead, and
    on a shared server the same measurement varied up to a thousandfold between page opens.
    """
    rows = property_rows(s)
    kinds, learned, params, stops = zip(*(rows[c.key] for c in COMPARED), strict=True)
    return pd.DataFrame(
        {
            "scheme": [c.short for c in COMPARED],
            "kind": kinds,
            "learned or fixed": learned,
            "parameters": params,
            "stops distinguishing distances at": stops,
            "position tensors (bytes)": nbytes,
        }
    )

"""The compare page's properties table: one row per compared scheme, computed from the settings.

Each scheme's row is a function the registry names (``compared.row``); ``row_<key>`` here for the
first schemes posviz shipped with, the later ones' as ``compare_row`` in their own figures module. A row
is ``(kind, learned or fixed, parameters, where it stops distinguishing distances)``, its texts in this run's
language (a reader reads each cell; no code compares them).
"""

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
from posviz.figures.compare import comparison
from posviz.i18n import _
from posviz.schemes import compared_in, load

Row = tuple[str, str, int, str]  # kind, learned or fixed, parameters, where it stops distinguishing distances


def row_none(*, seq_len: int, dim: int, base: float, causal: bool) -> Row:
    return ("—", _("fixed"), 0, _("never sees distance: attention is a function of the set of tokens"))


def row_sinusoidal(*, seq_len: int, dim: int, base: float, causal: bool) -> Row:
    slowest = float(sinusoidal_wavelengths(dim, base=base)[-1])
    stops = _("no limit; slowest period {period} tokens").format(period=f"{slowest:,.0f}")
    return (_("absolute, added to the input"), _("fixed"), 0, stops)


def row_learned(*, seq_len: int, dim: int, base: float, causal: bool) -> Row:
    stops = _("no row past position {last}: longer inputs are impossible").format(last=seq_len - 1)
    return (_("absolute, added to the input"), _("learned"), seq_len * dim, stops)


def row_shaw(*, seq_len: int, dim: int, base: float, causal: bool) -> Row:
    stops = _("distance {clip} (K): every farther key reads the edge row").format(clip=SHAW_CLIP)
    return (_("relative, vector in q·k"), _("learned"), 2 * (2 * SHAW_CLIP + 1) * dim, stops)


def row_t5(*, seq_len: int, dim: int, base: float, causal: bool) -> Row:
    # the smallest distance from which every farther key (in the past) shares one bucket
    saturation = t5_saturation(bidirectional=not causal, num_buckets=T5_BUCKETS, max_distance=T5_MAX_DISTANCE)
    stops = _("distance {saturation}: every farther key shares the last bucket").format(saturation=saturation)
    return (_("relative, bias on the logits"), _("learned"), T5_BUCKETS * T5_HEADS, stops)


def row_rope(*, seq_len: int, dim: int, base: float, causal: bool) -> Row:
    slowest = float(2 * math.pi / rope_inv_freq(dim, base=base)[-1])
    stops = _("no limit; slowest period {period} tokens").format(period=f"{slowest:,.0f}")
    return (_("relative, rotation of q and k"), _("fixed"), 0, stops)


def row_alibi(*, seq_len: int, dim: int, base: float, causal: bool) -> Row:
    m = float(alibi_slopes(ALIBI_HEADS)[ALIBI_HEAD])
    stops = _("never (linear); this head loses 1/e per {tokens} tokens").format(tokens=f"{1 / m:.0f}")
    return (_("relative, bias on the logits"), _("fixed"), 0, stops)


def row_cope(*, seq_len: int, dim: int, base: float, causal: bool) -> Row:
    stops = _("contextual position {last}: positions are clamped").format(last=COPE_NPOS - 1)
    return (_("contextual, counts gated keys"), _("learned"), COPE_NPOS * dim, stops)


def property_rows(*, seq_len: int, dim: int, base: float, causal: bool, schemes: str = "core") -> dict[str, Row]:
    """Scheme key -> its row, from the settings, for the selection ``schemes``, in the registry's order."""
    return {
        c.key: load(c.compared.row)(seq_len=seq_len, dim=dim, base=base, causal=causal)
        for c in compared_in(schemes)
        if c.compared
    }


def properties(*, seq_len: int, dim: int, base: float, causal: bool, seed: int, schemes: str = "core") -> pd.DataFrame:
    """The properties table of the selection ``schemes`` in the registry's order, with the bytes of the position
    tensors each scheme built on this sequence (measured). Its headers and cells are in this run's language (the
    page's cache keys by it); English by default.

    No time column: at these lengths a run is tens of microseconds of PyTorch's per-call overhead, and
    on a shared server the same measurement varied up to a thousandfold between page opens.
    """
    rows = property_rows(seq_len=seq_len, dim=dim, base=base, causal=causal, schemes=schemes)
    kinds, learned, params, stops = zip(*rows.values(), strict=True)
    return pd.DataFrame(
        {
            _("scheme"): [_(c.short) for c in compared_in(schemes)],
            _("kind"): kinds,
            _("learned or fixed"): learned,
            _("parameters"): params,
            _("stops distinguishing distances at"): stops,
            _("position tensors (bytes)"): list(comparison(seq_len, dim, base, causal, seed, schemes).nbytes),
        }
    )

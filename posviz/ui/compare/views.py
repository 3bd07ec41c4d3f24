"""The compare page's cached view: the settings in, every compared scheme's terms out (figures: ``charts``).

A scheme's *position term* is what it changes in the logits: ``logits - q k^T / sqrt(d)``.
The bytes of the position tensors are measured here, on this sequence; time is not
(see ``texts.TABLE``). The schemes, their names and colours come from the registry
(``posviz.schemes.COMPARED``), in its order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from posviz.encodings.compare import ToySettings, compare_schemes
from posviz.schemes import COMPARED
from posviz.ui.cache import cached_view
from posviz.ui.compare.properties import properties
from posviz.ui.compare.settings import CompareSettings
from posviz.ui.settings import project


@dataclass(frozen=True)
class CompareView:
    names: tuple[str, ...]  # the registry's short names
    colours: tuple[str, ...]
    positions: np.ndarray  # (L,)
    terms: np.ndarray  # (schemes, L, L) float32, logits - content; NaN where masked
    weights: np.ndarray  # (schemes, L, L) float32
    mask: np.ndarray  # (L, L) bool, True where masked
    table: pd.DataFrame
    term_scale: float  # max |term| over every scheme, the shared colour bound


@cached_view(max_entries=64)
def compare_view(s: CompareSettings) -> CompareView:
    run = compare_schemes(tuple(scheme.key for scheme in COMPARED), project(s, ToySettings))
    return CompareView(
        names=tuple(c.short for c in COMPARED),
        colours=tuple(c.colour for c in COMPARED),
        positions=run.positions.numpy(),
        terms=run.terms.numpy(),
        weights=run.weights.numpy(),
        mask=run.mask.numpy(),
        table=properties(s, run.nbytes),
        term_scale=run.term_scale,
    )

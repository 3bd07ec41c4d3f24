"""The compare page's cached view and figures: the settings in, every compared scheme's terms out.

A scheme's *position term* is what it changes in the logits: ``logits - q k^T / sqrt(d)``.
The bytes of the position tensors are measured here, on this sequence; time is not
(see ``texts.TABLE``). The schemes, their names and colours come from the registry
(``posviz.schemes.COMPARED``), in its order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import torch

from posviz.encodings.attention import causal_mask
from posviz.figures import compare as fig
from posviz.schemes import COMPARED
from posviz.ui.cache import cached_figure, cached_view
from posviz.ui.compare.properties import properties
from posviz.ui.compare.runners import ALWAYS_CAUSAL, RUNNERS, toy
from posviz.ui.compare.settings import CompareSettings


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
    t = toy(s)
    masked = ~causal_mask(t.pos, t.pos) if s.causal else torch.zeros(s.seq_len, s.seq_len, dtype=torch.bool)
    causal_only = ~causal_mask(t.pos, t.pos)
    terms, weights, nbytes = [], [], []
    for scheme in COMPARED:
        mask = causal_only if scheme.key in ALWAYS_CAUSAL else masked
        logits, built = RUNNERS[scheme.key](t)  # (L, L) and the position tensors the scheme built
        nbytes.append(sum(x.untyped_storage().nbytes() for x in built))
        terms.append((logits - t.content).masked_fill(mask, float("nan")))
        weights.append(torch.softmax(logits.masked_fill(mask, float("-inf")), dim=-1))
    terms_t = torch.stack(terms).float()
    finite = terms_t[torch.isfinite(terms_t)]
    return CompareView(
        names=tuple(c.short for c in COMPARED),
        colours=tuple(c.colour for c in COMPARED),
        positions=t.pos.numpy(),
        terms=terms_t.numpy(),
        weights=torch.stack(weights).float().numpy(),
        mask=masked.numpy(),
        table=properties(s, nbytes),
        term_scale=float(finite.abs().max()) if finite.numel() else 1.0,
    )


@cached_figure
def term_profile(s: CompareSettings, lecture: bool) -> go.Figure:
    v = compare_view(s)
    return fig.term_profile_figure(
        v.terms, names=v.names, positions=v.positions, causal=s.causal, colours=v.colours, lecture=lecture
    )


@cached_figure
def term_grid(s: CompareSettings, lecture: bool) -> go.Figure:
    v = compare_view(s)
    return fig.term_grid_figure(v.terms, names=v.names, positions=v.positions, causal=s.causal, lecture=lecture)


@cached_figure
def attention_grid(s: CompareSettings, lecture: bool) -> go.Figure:
    v = compare_view(s)
    return fig.attention_grid_figure(v.weights, names=v.names, positions=v.positions, causal=s.causal, lecture=lecture)


@cached_figure
def attention_row(s: CompareSettings, lecture: bool) -> go.Figure:
    v = compare_view(s)
    return fig.attention_row_figure(v.weights, names=v.names, positions=v.positions, colours=v.colours, lecture=lecture)

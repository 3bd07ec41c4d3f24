"""The ALiBi page's settings and its cached backend calls (keyed by scalars)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st
import torch

from posviz.encodings.alibi import (
    alibi_bias,
    alibi_distance_weights,
    alibi_reach,
    alibi_slope_sources,
    alibi_slopes,
)
from posviz.encodings.positions import display_positions, display_stride
from posviz.ui.alibi_snippets import AlibiSettings
from posviz.ui.controls import control

MAX_HEADS = 128
MAX_SEQ_LEN = 131072
GRID_HEADS = 16  # panels of the bias grid
GRID_POINTS = 40  # per axis of each panel
CURVE_HEADS = 12  # lines of the receptive-field figure
DENSE, CURVE_POINTS = 128, 400
CACHE = 32

DEFAULTS = AlibiSettings()


def alibi_controls() -> AlibiSettings:
    """The sidebar controls of the ALiBi page, in reading order."""
    st.sidebar.subheader("Heads and sequence")
    return AlibiSettings(
        heads=control("heads", default=DEFAULTS.heads, max_value=MAX_HEADS),
        seq_len=control("seq_len", default=DEFAULTS.seq_len, max_value=MAX_SEQ_LEN),
        causal=control("causal"),
    )


def shown_heads(heads: int, count: int) -> np.ndarray:
    """At most ``count`` heads, evenly spread, always the steepest (0) and the flattest."""
    return display_positions(heads, count).numpy()


def curve_distances(seq_len: int) -> np.ndarray:
    """Every distance up to 128, then log-spaced up to ``seq_len - 1`` (just 0 for one token)."""
    last = seq_len - 1
    dense = np.arange(0, min(DENSE, last) + 1)
    far = np.unique(np.round(np.geomspace(1, max(last, 1), CURVE_POINTS)).astype(np.int64))
    return np.union1d(dense, far[far <= last]).astype(np.int64)


@dataclass(frozen=True)
class SlopesView:
    slopes: np.ndarray  # (heads,) float64
    closest: int
    base: np.ndarray  # (p,)
    doubled: np.ndarray  # (2p,)
    extra: np.ndarray  # (heads - p,)


@st.cache_data(max_entries=CACHE, show_spinner=False)
def slopes_view(heads: int) -> SlopesView:
    src = alibi_slope_sources(heads)
    return SlopesView(
        slopes=alibi_slopes(heads).numpy(),
        closest=src.closest,
        base=src.base.numpy(),
        doubled=src.doubled.numpy(),
        extra=src.extra.numpy(),
    )


@dataclass(frozen=True)
class BiasView:
    heads_shown: np.ndarray  # (h,)
    positions: np.ndarray  # (n,)
    bias: np.ndarray  # (h, n, n) float32
    stride: int


@st.cache_data(max_entries=CACHE, show_spinner=False)
def bias_view(heads: int, seq_len: int, causal: bool) -> BiasView:
    """The bias of the shown heads on the shown positions only: (h, n, n), never (heads, L, L)."""
    pos = display_positions(seq_len, GRID_POINTS)
    hs = shown_heads(heads, GRID_HEADS)
    return BiasView(
        heads_shown=hs,
        positions=pos.numpy(),
        bias=alibi_bias(pos, pos, heads, causal=causal)[hs].numpy(),
        stride=display_stride(seq_len, GRID_POINTS),
    )


@dataclass(frozen=True)
class ReceptiveView:
    heads_shown: np.ndarray  # (h,)
    distances: np.ndarray  # (r,)
    weights: np.ndarray  # (h, r)
    reach: np.ndarray  # (h,)
    table: pd.DataFrame  # every head: slope, 1/m, reach


@st.cache_data(max_entries=CACHE, show_spinner=False)
def receptive_view(heads: int, seq_len: int) -> ReceptiveView:
    slopes = alibi_slopes(heads)
    hs = shown_heads(heads, CURVE_HEADS)
    d = torch.from_numpy(curve_distances(seq_len))
    reach = alibi_reach(slopes, seq_len)
    table = pd.DataFrame(
        {
            "head": np.arange(1, heads + 1),
            "slope m": slopes.numpy(),
            "log2 m": np.log2(slopes.numpy()),
            "1/m (tokens per 1/e)": (1 / slopes).numpy(),
            "90% of attention within": reach.numpy(),
        }
    )
    return ReceptiveView(
        heads_shown=hs,
        distances=d.numpy(),
        weights=alibi_distance_weights(slopes[hs], d, seq_len).numpy(),
        reach=reach[hs].numpy(),
        table=table,
    )

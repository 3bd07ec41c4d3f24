"""The ALiBi page's cached views: a settings projection in, the arrays drawn out.

No view builds the whole ``(heads, seq_len, seq_len)`` bias: only the heads and positions drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from posviz.encodings.alibi import (
    alibi_bias,
    alibi_distance_weights,
    alibi_reach,
    alibi_slope_sources,
    alibi_slopes,
)
from posviz.encodings.positions import curve_positions, display_positions
from posviz.figures.layout import number
from posviz.ui.alibi.settings import (
    CURVE_HEADS,
    CURVE_POINTS,
    GRID_HEADS,
    GRID_POINTS,
    AlibiSettings,
    ReceptiveKey,
    SlopesKey,
)
from posviz.ui.axes import Axes, Window, axes
from posviz.ui.cache import cached_view


def shown_heads(heads: int, count: int) -> np.ndarray:
    """At most ``count`` heads, evenly spread, always the steepest (0) and the flattest."""
    return display_positions(heads, count).numpy()


@dataclass(frozen=True)
class SlopesView:
    slopes: np.ndarray  # (heads,) float64
    closest: int
    base: np.ndarray  # (p,)
    doubled: np.ndarray  # (2p,)
    extra: np.ndarray  # (heads - p,)


@cached_view(max_entries=32)
def slopes_view(k: SlopesKey) -> SlopesView:
    src = alibi_slope_sources(k.heads)
    return SlopesView(
        slopes=alibi_slopes(k.heads).numpy(),
        closest=src.closest,
        base=src.base.numpy(),
        doubled=src.doubled.numpy(),
        extra=src.extra.numpy(),
    )


def bias_axes(s: AlibiSettings) -> Axes:
    """The queries and keys of the bias grid: at most ``GRID_POINTS`` per axis, inside the zoom window if any."""
    return axes(s.seq_len, s.seq_len, "start", GRID_POINTS, window=Window(s.q_start, s.k_start, s.window))


@dataclass(frozen=True)
class BiasView:
    heads_shown: np.ndarray  # (h,)
    slopes: np.ndarray  # (h,) float64, m of each head shown
    q_pos: np.ndarray  # (n_q,) query positions i shown
    k_pos: np.ndarray  # (n_k,) key positions j shown
    bias: np.ndarray  # (h, n_q, n_k) float32


@cached_view(max_entries=32)
def bias_view(s: AlibiSettings) -> BiasView:
    """The bias of the shown heads on the shown positions only: (h, n_q, n_k), never (heads, L, L)."""
    ax = bias_axes(s)
    hs = shown_heads(s.heads, GRID_HEADS)
    q, k = torch.as_tensor(ax.q_pos), torch.as_tensor(ax.k_pos)
    return BiasView(
        heads_shown=hs,
        slopes=alibi_slopes(s.heads)[hs].numpy(),
        q_pos=ax.q_pos,
        k_pos=ax.k_pos,
        bias=alibi_bias(q, k, s.heads, causal=s.causal)[hs].numpy(),
    )


@dataclass(frozen=True)
class ReceptiveView:
    heads_shown: np.ndarray  # (h,)
    slopes: np.ndarray  # (h,) float64, m of each head shown
    distances: np.ndarray  # (r,)
    weights: np.ndarray  # (h, r)
    reach: np.ndarray  # (h,)
    table: pd.DataFrame  # every head: slope, 1/m, reach


@cached_view(max_entries=32)
def receptive_view(k: ReceptiveKey) -> ReceptiveView:
    slopes = alibi_slopes(k.heads)
    hs = shown_heads(k.heads, CURVE_HEADS)
    d = curve_positions(k.seq_len - 1, points=CURVE_POINTS)  # (r,) distances the last query sees
    reach = alibi_reach(slopes, k.seq_len)
    table = pd.DataFrame(
        {
            "head": np.arange(1, k.heads + 1),
            "slope m": [number(m, 3) for m in slopes.tolist()],  # as the legend writes it: 0.0312, not 0.0313
            "log2 m": np.log2(slopes.numpy()),
            "1/m (tokens per 1/e)": (1 / slopes).numpy(),
            "90% of attention within": reach.numpy(),
        }
    )
    return ReceptiveView(
        heads_shown=hs,
        slopes=slopes[hs].numpy(),
        distances=d.numpy(),
        weights=alibi_distance_weights(slopes[hs], d, k.seq_len).numpy(),
        reach=reach[hs].numpy(),
        table=table,
    )

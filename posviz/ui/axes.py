"""The positions a matrix view draws: at most ``points`` per axis, strided, at their true values."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from posviz.encodings.positions import display_positions, display_stride, query_positions


@dataclass(frozen=True)
class Axes:
    """Shown positions of one view: (n,) int64 arrays and the strides behind them."""

    q_pos: np.ndarray
    k_pos: np.ndarray
    q_stride: int
    k_stride: int


def axes(q_len: int, k_len: int, align: str, points: int) -> Axes:
    """At most ``points`` strided queries and keys, at their true positions."""
    q = query_positions(q_len, k_len, align=align)[display_positions(q_len, points)]
    return Axes(
        q_pos=q.numpy(),
        k_pos=display_positions(k_len, points).numpy(),
        q_stride=display_stride(q_len, points),
        k_stride=display_stride(k_len, points),
    )

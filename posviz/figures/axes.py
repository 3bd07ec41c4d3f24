"""The positions a matrix view draws: at most ``points`` per axis, strided, at their true values."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from posviz.encodings.positions import display_stride, query_positions, window_positions


@dataclass(frozen=True)
class Window:
    """A zoom into a matrix view: the first query position ``i``, the first key position ``j``, and the
    number of positions on each axis (0: the whole view)."""

    q_start: int = 0
    k_start: int = 0
    size: int = 0


@dataclass(frozen=True)
class Axes:
    """Shown positions of one view: (n,) int64 arrays and the strides behind them."""

    q_pos: np.ndarray
    k_pos: np.ndarray
    q_stride: int
    k_stride: int
    q_from: int = 0  # first shown query index (0 .. q_len - 1) and how many the window spans
    q_count: int | None = None
    k_from: int = 0
    k_count: int | None = None


class Lengths(Protocol):
    """Settings with a query and a key length."""

    @property
    def q_len(self) -> int: ...

    @property
    def k_len(self) -> int: ...


def figure_args(ax: Axes, k: Lengths, lecture: bool) -> dict[str, Any]:
    """The keyword arguments of a matrix figure drawn on ``ax``: the shown positions, the lengths, lecture mode."""
    return dict(q_pos=ax.q_pos, k_pos=ax.k_pos, q_len=k.q_len, k_len=k.k_len, lecture=lecture)


def axes(q_len: int, k_len: int, align: str, points: int, *, window: Window | None = None) -> Axes:
    """At most ``points`` strided queries and keys, at their true positions.

    With a ``window`` (a zoom), only the queries and keys inside it are drawn,
    at full resolution when the window holds at most ``points`` positions.
    """
    w = window or Window()
    offset = k_len - q_len if align == "end" else 0
    q_size, k_size = min(w.size or q_len, q_len), min(w.size or k_len, k_len)
    rows = window_positions(q_len, points, start=w.q_start - offset, size=w.size)  # query indices
    cols = window_positions(k_len, points, start=w.k_start, size=w.size)
    return Axes(
        q_pos=query_positions(q_len, k_len, align=align)[rows].numpy(),
        k_pos=cols.numpy(),
        q_stride=display_stride(q_size, points),
        k_stride=display_stride(k_size, points),
        q_from=int(rows[0]),
        q_count=q_size if q_size < q_len else None,
        k_from=int(cols[0]),
        k_count=k_size if k_size < k_len else None,
    )


def window_from_box(x: Sequence[float], y: Sequence[float], *, min_size: int = 2) -> Window | None:
    """The zoom window a box drawn on a matrix figure selects (Plotly's box select).

    Keys ``j`` run along ``x`` and queries ``i`` along ``y``; cells are centred on
    their positions, so the box takes the positions whose centres it covers. The
    window is square (one ``window`` size for both axes): the longer side.

    Returns:
        the window, or None when the box covers no position.
    """
    k0, k1 = math.ceil(min(x)), math.floor(max(x))  # key positions inside the box
    q0, q1 = math.ceil(min(y)), math.floor(max(y))  # query positions inside the box
    if k1 < max(k0, 0) or q1 < max(q0, 0):
        return None
    k0, q0 = max(k0, 0), max(q0, 0)
    return Window(q_start=q0, k_start=k0, size=max(k1 - k0 + 1, q1 - q0 + 1, min_size))

"""Zoom by box select: a box drawn on a matrix figure becomes the window, and the window draws that box."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import streamlit as st

from posviz.figures.axes import Window, axes, window_from_box

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # no runtime: Streamlit warns that session state lives in memory
    from posviz.ui.zoom import box_zoom


def test_a_box_around_position_100000_is_the_64_cell_window():
    # cells are centred on their positions: the box edges fall between cells
    w = window_from_box([99967.6, 100031.4], [99999.5, 100063.2])
    assert w == Window(q_start=100000, k_start=99968, size=64)


@pytest.mark.parametrize(
    ("x", "y", "expected"),
    [
        ([10.5, 40.5], [20.5, 30.5], Window(21, 11, 30)),  # not square: the longer side, 30 keys
        ([40.5, 10.5], [30.5, 20.5], Window(21, 11, 30)),  # drawn from the other corner
        ([-3.0, 4.2], [-0.5, 1.4], Window(0, 0, 5)),  # past the top left edge: clamped at position 0
        ([7.2, 7.9], [7.2, 9.0], None),  # no key centre inside: nothing selected
        ([5.5, 6.4], [5.5, 6.4], Window(6, 6, 2)),  # one cell: at least two positions
    ],
)
def test_box_edges(x, y, expected):
    assert window_from_box(x, y) == expected


def test_the_window_draws_exactly_the_cells_the_box_covered():
    """Two computations: the positions inside the box, and what axes() draws for its window."""
    x, y = [310.4, 371.6], [300.5, 359.5]
    ax = axes(1000, 1000, "start", 192, window=window_from_box(x, y))
    keys = np.arange(1000)[(np.arange(1000) >= x[0]) & (np.arange(1000) <= x[1])]
    assert list(ax.k_pos) == list(keys)  # 311 .. 371: every key, full resolution
    assert list(ax.q_pos[: 359 - 301 + 1]) == list(range(301, 360))  # the queries, then as many more as keys
    assert ax.q_stride == ax.k_stride == 1


def test_the_callback_sets_the_zoom_for_the_next_run():
    st.session_state.clear()
    st.session_state["fig_t5_buckets"] = {"selection": {"box": [{"x": [9.6, 24.4], "y": [0.5, 8.5]}], "points": []}}
    box_zoom("t5_buckets")()
    assert st.session_state["_posviz_pending"] == {"window": 15, "q_start": 1, "k_start": 10}
    st.session_state.clear()
    st.session_state["fig_t5_buckets"] = {"selection": {"box": [], "points": []}}  # a click, not a box
    box_zoom("t5_buckets")()
    assert not st.session_state.get("_posviz_pending")

"""Relative positions, display sampling and query alignment."""

from __future__ import annotations

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from posviz.encodings.positions import (
    display_positions,
    display_stride,
    mirrored,
    query_positions,
    relative_positions,
)


def points_for_stride(length: int, stride: int) -> int:
    """How many positions ``0, s, 2s, ...`` plus ``length - 1`` take."""
    regular = (length - 1) // stride + 1
    return regular + (0 if (length - 1) % stride == 0 else 1)


# --- relative_positions -------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.integers(-1000, 1000), min_size=1, max_size=12),
    st.lists(st.integers(-1000, 1000), min_size=1, max_size=12),
)
def test_relative_positions_equals_loop(q, k):
    rel = relative_positions(torch.tensor(q), torch.tensor(k))
    assert rel.shape == (len(q), len(k))
    assert rel.tolist() == [[j - i for j in k] for i in q]


def test_relative_positions_is_key_minus_query():
    rel = relative_positions(torch.tensor([5]), torch.tensor([2, 5, 9]))
    assert rel.tolist() == [[-3, 0, 4]]  # a past key is negative


# --- display_positions ------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 200_000), st.integers(3, 600))
def test_display_positions_properties(length, max_points):
    pos = display_positions(length, max_points)
    stride = display_stride(length, max_points)
    assert pos.dtype == torch.int64
    assert 2 <= len(pos) <= max_points or length == 1
    assert pos[0].item() == 0
    assert pos[-1].item() == length - 1
    gaps = pos.diff()
    assert bool((gaps > 0).all())  # strictly increasing
    if len(pos) > 1:
        assert bool((gaps[:-1] == stride).all())  # evenly strided ...
        assert 0 < gaps[-1].item() <= stride  # ... except a shorter last gap
    assert torch.equal(pos, torch.unique(torch.cat([torch.arange(0, length, stride), torch.tensor([length - 1])])))


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 600), st.integers(3, 600))
def test_display_positions_takes_everything_when_it_fits(length, max_points):
    if length <= max_points:
        assert torch.equal(display_positions(length, max_points), torch.arange(length))
        assert display_stride(length, max_points) == 1
    else:
        assert display_stride(length, max_points) > 1
        assert len(display_positions(length, max_points)) < length


def test_display_positions_examples():
    assert display_positions(1, 5).tolist() == [0]
    assert display_positions(5, 5).tolist() == [0, 1, 2, 3, 4]
    assert display_positions(100, 5).tolist() == [0, 25, 50, 75, 99]
    assert display_positions(131072, 192)[-1].item() == 131071
    assert len(display_positions(131072, 192)) <= 192


def test_display_positions_refuses_bad_arguments():
    with pytest.raises(ValueError, match="length"):
        display_positions(0, 10)
    with pytest.raises(ValueError, match="max_points"):
        display_positions(10, 1)


# BUG: positions.py display_stride divides by (max_points - 2), so the max_points == 2 that
# display_positions accepts ("at least 2") raises ZeroDivisionError instead of giving [0, length - 1].
def test_display_positions_with_two_points_gives_the_ends():
    assert display_positions(10, 2).tolist() == [0, 9]


# BUG (minor, docstring contract): "The stride is the smallest integer that fits". With
# length 11 and 5 points the stride 3 fits ([0, 3, 6, 9, 10]) but display_stride returns 4.
@settings(max_examples=300, deadline=None)
@given(st.integers(3, 5000), st.integers(3, 300))
@example(11, 5)
def test_display_stride_is_the_smallest_that_fits(length, max_points):
    stride = display_stride(length, max_points)
    assert points_for_stride(length, stride) <= max_points
    if stride > 1:
        assert points_for_stride(length, stride - 1) > max_points


def test_display_stride_example_uses_every_allowed_point():
    # stride 3 fits five points ([0, 3, 6, 9] and the last, 10); stride 4 would waste one
    assert display_stride(11, 5) == 3
    assert display_positions(11, 5).tolist() == [0, 3, 6, 9, 10]


# --- query_positions ------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 500), st.integers(0, 500))
def test_query_positions_alignment(q_len, extra):
    k_len = q_len + extra
    assert torch.equal(query_positions(q_len, k_len, align="start"), torch.arange(q_len))
    end = query_positions(q_len, k_len, align="end")
    assert torch.equal(end, torch.arange(q_len) + (k_len - q_len))
    assert end[-1].item() == k_len - 1  # the last query meets the last key


def test_query_positions_default_is_start():
    assert query_positions(3, 10).tolist() == [0, 1, 2]


def test_query_positions_start_allows_more_queries_than_keys():
    assert query_positions(5, 3, align="start").tolist() == [0, 1, 2, 3, 4]


def test_query_positions_end_refuses_more_queries_than_keys():
    with pytest.raises(ValueError, match="k_len to 5"):
        query_positions(5, 3, align="end")


@pytest.mark.parametrize("align", ["middle", "END", "", "<b>"])
def test_query_positions_bad_align(align):
    with pytest.raises(ValueError, match="align must be one of"):
        query_positions(3, 5, align=align)


# --- window_positions: a zoom into a long view ---------------------------------------------------------


def test_window_of_zero_is_the_whole_view():
    from posviz.encodings.positions import window_positions

    assert torch.equal(window_positions(131072, 192), display_positions(131072, 192))


@given(
    length=st.integers(1, 10**6),
    points=st.integers(2, 300),
    start=st.integers(-10, 10**6),
    size=st.integers(1, 10**6),
)
def test_window_positions_stay_inside_and_span_the_window(length, points, start, size):
    from posviz.encodings.positions import window_positions

    pos = window_positions(length, points, start=start, size=size)
    assert int(pos[0]) >= 0 and int(pos[-1]) < length
    assert (pos[1:] > pos[:-1]).all() and len(pos) <= max(points, 2)
    if size < length:  # the window keeps its size, moved back inside when it runs past the end
        assert int(pos[-1]) - int(pos[0]) + 1 == size
        assert int(pos[0]) == min(max(start, 0), length - size)
        if size <= points:
            assert torch.equal(pos, torch.arange(int(pos[0]), int(pos[0]) + size))  # every position: full resolution


def test_all_positions_and_signed_distances():
    from posviz.encodings.positions import all_positions, signed_distances

    assert all_positions(4).tolist() == [0, 1, 2, 3] and all_positions(4).dtype == torch.int64
    assert all_positions(0).numel() == 0
    assert signed_distances(2).tolist() == [-2, -1, 0, 1, 2]


def test_mirrored_equals_a_loop_over_both_sides() -> None:
    far = torch.tensor([0, 1, 2, 5, 40])
    want = sorted({s * int(d) for d in far for s in (-1, 1)})
    assert torch.equal(mirrored(far), torch.tensor(want))

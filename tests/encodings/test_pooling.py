"""Block means of a relative matrix (posviz.encodings.pooling): equal to a naive loop, and they cannot alias."""

from __future__ import annotations

import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.encodings.pooling import block_edges, relative_block_means
from posviz.encodings.positions import display_positions


def naive(f, q_edges, k_edges):
    out = torch.zeros(len(q_edges) - 1, len(k_edges) - 1, dtype=torch.float64)
    for a in range(len(q_edges) - 1):
        for b in range(len(k_edges) - 1):
            cells = [
                float(f(torch.tensor([j - i]))[0])
                for i in range(int(q_edges[a]), int(q_edges[a + 1]))
                for j in range(int(k_edges[b]), int(k_edges[b + 1]))
            ]
            out[a, b] = sum(cells) / len(cells)
    return out


def wiggle(r: torch.Tensor) -> torch.Tensor:
    return torch.sin(0.7 * r.double()) + 0.01 * r.double() ** 2


@settings(max_examples=40, deadline=None)
@given(
    q_len=st.integers(1, 40),
    k_len=st.integers(1, 40),
    points=st.integers(2, 12),
    offset=st.integers(-5, 5),
)
def test_block_means_equal_a_naive_loop(q_len, k_len, points, offset):
    q_edges = block_edges(display_positions(q_len, points) + offset)
    k_edges = block_edges(display_positions(k_len, points))
    got = relative_block_means(wiggle, q_edges, k_edges)
    torch.testing.assert_close(got, naive(wiggle, q_edges, k_edges), rtol=0, atol=1e-9)


def test_cell_blocks_are_the_matrix_itself_with_leading_dimensions():
    pos = torch.arange(6)

    def two_heads(r):
        return torch.stack([r.double(), -2.0 * r.double()])  # (2, R)

    got = relative_block_means(two_heads, block_edges(pos), block_edges(pos))
    rel = (pos[None, :] - pos[:, None]).double()
    torch.testing.assert_close(got, torch.stack([rel, -2 * rel]))


def test_a_period_of_the_stride_shows_as_its_mean_not_as_a_false_pattern():
    """The aliasing of issue 29: cos(2 pi r / 3) sampled every 3rd position reads 1 everywhere."""
    length, points = 128, 64  # T5's all-heads view at L = 128: stride 3

    def period_3(r):
        return torch.cos(2 * math.pi * r.double() / 3)

    pos = display_positions(length, points)
    stride = int(pos[1] - pos[0])
    assert stride == 3
    strided = period_3(pos[None, :] - pos[:, None])  # what a strided sample draws
    assert strided[:-2, :-2].min() > 0.999  # a false, flat pattern: the truth averages 0
    edges = block_edges(pos)
    pooled = relative_block_means(period_3, edges, edges)
    full = (edges[1:] - edges[:-1]) == 3  # the blocks before the short ones at the end
    assert full.sum() == 42
    assert pooled[full][:, full].abs().max() < 1e-9  # every full 3 x 3 block holds whole periods: mean 0

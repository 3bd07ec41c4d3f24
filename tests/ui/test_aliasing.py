"""Coarse views cannot alias (issue 29): each cell is the mean over the block of positions it starts.

A strided sample of a pattern with the stride's period reads it as flat (or as slow stripes
that are not there); these feed such patterns to the pages' own views and compare each with
the block means computed the slow way.
"""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import torch

from posviz.encodings.sinusoidal import sinusoidal_table
from posviz.encodings.t5 import t5_bias
from posviz.figures.sinusoidal import similarity
from posviz.figures.t5_bias import bias_grid, grid_axes


def slow_block_means(full: np.ndarray, q_pos: np.ndarray, k_pos: np.ndarray, q_end: int, k_end: int) -> np.ndarray:
    """(.., n, m): the mean of ``full`` (.., q, k) over each block a shown position starts."""
    qe, ke = np.append(q_pos, q_end), np.append(k_pos, k_end)
    out = np.zeros((*full.shape[:-2], len(q_pos), len(k_pos)))
    for a in range(len(q_pos)):
        for b in range(len(k_pos)):
            out[..., a, b] = full[..., qe[a] : qe[a + 1], ke[b] : ke[b + 1]].mean(axis=(-2, -1))
    return out


def test_t5_all_heads_at_128_shows_a_period_3_bias_as_its_mean():
    # A decoder with 256 buckets: every distance up to 127 has its own bucket (bucket = i - j).
    k = dict(q_len=128, k_len=128, align="start", bidirectional=False, num_buckets=256, max_distance=512, heads=2)
    ax = grid_axes(q_len=128, k_len=128, align="start", heads=2)
    assert ax.q_stride == 3  # the all-heads view draws every 3rd position
    buckets = torch.arange(256, dtype=torch.float64)
    table = torch.stack([torch.cos(2 * math.pi * buckets / 3), buckets / 256], dim=1).float()  # (256, 2)
    drawn = pd.read_csv(io.StringIO(bias_grid(**k, table=table.numpy().tobytes()).csv()))  # the page's chart
    n = len(ax.q_pos)
    view = np.stack([drawn[f"head {h}"].to_numpy().reshape(n, n) for h in range(2)])  # (2, g, g)

    pos = torch.arange(128)
    full = t5_bias(table, pos, pos, bidirectional=False, max_distance=512).double().numpy()  # (2, 128, 128)
    np.testing.assert_allclose(view, slow_block_means(full, ax.q_pos, ax.k_pos, 128, 128), atol=1e-5)
    strided = full[0][np.ix_(ax.q_pos, ax.k_pos)]
    below = np.tril(np.ones_like(strided, dtype=bool), -1)[:-2, :-2]  # full blocks under the diagonal
    assert strided[:-2, :-2][below].min() > 0.99  # what a strided sample drew: a false, flat 1
    assert np.abs(view[0][:-2, :-2][below]).max() < 1e-5  # the truth: whole periods, mean 0


def test_sinusoidal_similarity_draws_no_false_stripes():
    chart = similarity.matrix(seq_len=1024, dim=2, base=10000.0)  # one pair: theta = 1, a wave of period 2 pi
    drawn = pd.read_csv(io.StringIO(chart.csv()), index_col=0)  # (n, n): what the page draws, float64 as text
    pos, sim = drawn.index.to_numpy(), drawn.to_numpy()
    assert [int(k) for k in drawn.columns] == list(pos)
    pe = sinusoidal_table(torch.arange(1024), 2, dtype=torch.float64).numpy()  # (1024, 2)
    full = pe @ pe.T  # (1024, 1024) cos(j - i)
    np.testing.assert_allclose(sim, slow_block_means(full, pos, pos, 1024, 1024), atol=1e-9)
    stride = int(pos[1] - pos[0])
    strided = full[np.ix_(pos, pos)]  # cos(stride * (b - a)): a wave of period 2 pi / (stride mod 2 pi), stripes
    assert stride == 9 and np.abs(strided[:-2, :-2]).max() > 0.99
    assert np.abs(sim[:-2, :-2]).max() < 0.06  # 9 x 9 block means: (sin 4.5 / 9 sin 0.5)² = 0.051 at most

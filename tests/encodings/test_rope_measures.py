"""What the RoPE page measures, named in posviz.encodings.rope: wavelengths, speed ratios, the seed's
vectors and a vector's pairs on their circles, each against an independent computation."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.encodings.rope import (
    LAYOUTS,
    rope_inv_freq,
    rope_never_turning,
    rope_pair_points,
    rope_speed_ratio,
    rope_wavelengths,
    seeded_qk,
)
from posviz.encodings.rope_scaling import rope_scaling


def test_wavelengths_and_the_pairs_that_never_turn():
    inv = rope_inv_freq(64)  # theta_k = 10000^(-2k/64)
    wave = rope_wavelengths(inv)
    assert wave.dtype == torch.float64 and wave.shape == (32,)
    assert wave[0] == 2 * math.pi and wave[-1] == pytest.approx(2 * math.pi * 10000 ** (62 / 64), rel=1e-12)
    # 2 pi 10000^(2k/64) > 16384 for k >= 28: four pairs (28 .. 31) never complete a turn in 16384 tokens
    assert rope_never_turning(inv, 16384) == 4
    assert rope_never_turning(inv, 10**9) == 0 and rope_never_turning(inv, 6) == 32  # 2 pi > 6: none turns


def test_speed_ratio_of_linear_scaling_is_one_over_factor():
    inv, _ = rope_scaling("linear", 16, factor=4.0)
    ratio = rope_speed_ratio(inv, rope_inv_freq(16))
    assert ratio.dtype == torch.float64
    torch.testing.assert_close(ratio, torch.full((8,), 0.25, dtype=torch.float64), rtol=1e-15, atol=0)


def test_seeded_qk_is_the_seed_s_first_two_draws():
    g = torch.Generator().manual_seed(3)
    q, k = seeded_qk(10, 3)
    assert q.dtype == k.dtype == torch.float64 and q.shape == k.shape == (10,)
    torch.testing.assert_close(q, torch.randn(10, generator=g).double(), rtol=0, atol=0)  # float32 draws
    torch.testing.assert_close(k, torch.randn(10, generator=g).double(), rtol=0, atol=0)


@settings(max_examples=40, deadline=None)
@given(
    half_dim=st.integers(1, 16),
    layout=st.sampled_from(LAYOUTS),
    pos=st.lists(st.integers(0, 10**6), min_size=1, max_size=4),
    seed=st.integers(0, 1000),
)
def test_pair_points_are_each_pair_as_a_complex_number_turned_and_scaled_to_one(half_dim, layout, pos, seed):
    dim = 2 * half_dim
    x = torch.randn(dim, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    inv = rope_inv_freq(dim, base=500.0)
    pairs = torch.arange(0, half_dim, 2)
    got = rope_pair_points(x, torch.tensor(pos), pairs, inv_freq=inv, layout=layout)
    assert got.shape == (len(pos), len(pairs), 2) and got.dtype == torch.float64
    # reference: pair k is x[2k] + i x[2k+1] (interleaved) or x[k] + i x[k + d/2] (half), times e^(i p theta_k)
    re, im = (x[0::2], x[1::2]) if layout == "interleaved" else (x[:half_dim], x[half_dim:])
    z = torch.complex(re, im)[pairs]  # (k,)
    turned = z[None, :] * torch.polar(
        torch.ones(len(pos), len(pairs), dtype=torch.float64),
        torch.tensor(pos, dtype=torch.float64)[:, None] * inv[pairs][None, :],
    )
    want = torch.view_as_real(turned / turned.abs())  # (p, k, 2)
    torch.testing.assert_close(got, want, rtol=1e-9, atol=1e-9)

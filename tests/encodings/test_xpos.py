"""xPos against torchscale's XPOS (the oracle), a naive loop, and the paper's constants."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.encodings.xpos import apply_xpos, xpos_decay, xpos_score_by_distance, xpos_scores, xpos_zeta

XPOS = pytest.importorskip("torchscale.component.xpos_relative_position").XPOS


def oracle_scores(q: torch.Tensor, k: torch.Tensor, *, offset: int = 0, scale_base: int = 512) -> torch.Tensor:
    """torchscale's use in MultiheadAttention: keys downscaled at offset 0, queries at ``offset``."""
    xpos = XPOS(q.shape[-1], scale_base=scale_base).double()
    return xpos(q[None], offset=offset, downscale=False)[0] @ xpos(k[None], offset=0, downscale=True)[0].T


@pytest.mark.parametrize(("length", "dim", "scale_base"), [(9, 16, 512), (32, 8, 512), (17, 64, 64), (1, 2, 512)])
def test_scores_equal_torchscale(length, dim, scale_base):
    g = torch.Generator().manual_seed(length * dim)
    q, k = torch.randn(length, dim, generator=g, dtype=torch.float64), torch.randn(length, dim, generator=g).double()
    pos = torch.arange(length)
    got = xpos_scores(q, k, pos, pos, scale_base=scale_base)
    torch.testing.assert_close(got, oracle_scores(q, k, scale_base=scale_base), rtol=1e-5, atol=1e-5)


def test_a_decoded_query_equals_torchscale_with_its_offset():
    """Incremental decoding: one query at position L - 1 against L cached keys (torchscale's offset)."""
    g = torch.Generator().manual_seed(3)
    length, dim = 12, 16
    q, k = torch.randn(1, dim, generator=g).double(), torch.randn(length, dim, generator=g).double()
    want = oracle_scores(q, k, offset=length - 1)
    got = xpos_scores(q, k, torch.tensor([length - 1]), torch.arange(length))
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_the_centring_of_the_scale_cancels_in_scores_not_in_vectors():
    """x-transformers centres at t - L // 2, torchscale at -(L // 2) ...: scores agree, vectors differ."""
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(9, 8, generator=g).double(), torch.randn(9, 8, generator=g).double()
    pos = torch.arange(9)
    shifted = apply_xpos(q, pos - 4)  # rotation and scale both at the shifted positions
    assert not torch.allclose(shifted, apply_xpos(q, pos))
    torch.testing.assert_close(xpos_scores(q, k, pos - 4, pos - 4), xpos_scores(q, k, pos, pos))


def _rotate(a: float, b: float, angle: float) -> tuple[float, float]:
    return a * math.cos(angle) - b * math.sin(angle), a * math.sin(angle) + b * math.cos(angle)


def test_a_naive_loop_over_pairs():
    g = torch.Generator().manual_seed(1)
    dim, base = 6, 10000.0
    q, k = torch.randn(dim, generator=g).double().tolist(), torch.randn(dim, generator=g).double().tolist()
    n, m, scale_base = 7, 3, 4.0
    want = 0.0
    for p in range(dim // 2):
        theta = base ** (-2 * p / dim)
        zeta = (2 * p + 0.4 * dim) / (1.4 * dim)
        qa, qb = _rotate(q[2 * p], q[2 * p + 1], n * theta)
        ka, kb = _rotate(k[2 * p], k[2 * p + 1], m * theta)
        want += (qa * ka + qb * kb) * zeta ** (n / scale_base) * zeta ** (-m / scale_base)
    q_t, k_t = torch.tensor([q], dtype=torch.float64), torch.tensor([k], dtype=torch.float64)
    got = xpos_scores(q_t, k_t, torch.tensor([n]), torch.tensor([m]), scale_base=scale_base)
    assert float(got) == pytest.approx(want, rel=1e-12)


def test_zeta_is_the_papers():
    z = xpos_zeta(8)
    assert float(z[0]) == pytest.approx(0.4 / 1.4)  # gamma / (1 + gamma): the fastest pair decays most
    assert bool((z[1:] > z[:-1]).all()) and float(z[-1]) < 1


@given(dim=st.integers(1, 32).map(lambda h: 2 * h), r=st.integers(0, 5000))
@settings(max_examples=40, deadline=None)
def test_the_decay_falls_with_distance_and_is_one_at_zero(dim, r):
    d = xpos_decay(torch.tensor([0, r, r + 1]), dim)
    assert torch.equal(d[0], torch.ones(dim // 2, dtype=torch.float64))
    assert bool((d[2] < d[1]).all()) and bool((d[1] <= 1).all())


def test_score_by_distance_equals_the_scores_and_rope_is_xpos_without_decay():
    g = torch.Generator().manual_seed(2)
    q, k = torch.randn(16, generator=g).double(), torch.randn(16, generator=g).double()
    r = torch.arange(0, 40)
    rope, xpos = xpos_score_by_distance(q, k, r, scale_base=8)
    grid = xpos_scores(q[None], k.expand(40, -1), torch.tensor([100]), 100 - r, scale_base=8)[0]
    torch.testing.assert_close(xpos, grid)
    rope_only, same = xpos_score_by_distance(q, k, r, scale_base=1e12)  # no decay left
    torch.testing.assert_close(rope_only, same, rtol=1e-9, atol=1e-9)
    torch.testing.assert_close(rope, rope_only)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="scale_base"):
        xpos_decay(torch.tensor([1]), 8, scale_base=0)
    with pytest.raises(ValueError, match="even"):
        xpos_zeta(7)

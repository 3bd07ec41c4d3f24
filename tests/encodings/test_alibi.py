"""ALiBi slopes against the official get_slopes, the bias against its formula."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.encodings.alibi import (
    alibi_bias,
    alibi_distance_weights,
    alibi_reach,
    alibi_slope_sources,
    alibi_slopes,
)


def get_slopes(n):
    """ofirpress/attention_with_linear_biases, fairseq/models/transformer.py, copied as published."""

    def get_slopes_power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (
        get_slopes_power_of_2(closest_power_of_2) + get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
    )


def paper_slopes(n: int) -> list[float]:
    """Derived from the formula, not from the code: 2^(-8h/n) for powers of two, interleaving otherwise."""
    if n & (n - 1) == 0:
        return [2 ** (-8 * h / n) for h in range(1, n + 1)]
    p = 1 << (n.bit_length() - 1)
    return paper_slopes(p) + paper_slopes(2 * p)[0::2][: n - p]


def test_eight_heads_published():
    assert alibi_slopes(8).tolist() == [1 / 2**h for h in range(1, 9)]


def test_sixteen_heads_start_at_one_over_sqrt_two():
    s = alibi_slopes(16)
    assert math.isclose(float(s[0]), 2**-0.5, rel_tol=1e-15) and math.isclose(float(s[-1]), 2**-8, rel_tol=1e-13)


@pytest.mark.parametrize("heads", list(range(1, 129)))
def test_slopes_equal_official_get_slopes(heads):
    got = alibi_slopes(heads).tolist()
    assert got == pytest.approx(get_slopes(heads), rel=1e-14)
    assert got == pytest.approx(paper_slopes(heads), rel=1e-12)
    assert len(got) == heads and all(0 < m < 1 for m in got)


def test_twelve_heads_interleave_the_next_power():
    src = alibi_slope_sources(12)
    assert src.closest == 8
    torch.testing.assert_close(src.extra, src.doubled[[0, 2, 4, 6]])
    # the extra slopes fall between the base ones: 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5
    assert src.extra.tolist() == pytest.approx([2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5])


def naive_bias(q_pos, k_pos, slopes, causal):
    out = torch.zeros(len(slopes), len(q_pos), len(k_pos), dtype=torch.float64)
    for h, m in enumerate(slopes):
        for a, i in enumerate(q_pos):
            for b, j in enumerate(k_pos):
                out[h, a, b] = -m * ((i - j) if causal else abs(i - j))
    return out


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("heads", [1, 3, 8, 12])
def test_bias_matches_naive_loop(heads, causal):
    q_pos, k_pos = [0, 1, 5, 9], [0, 2, 3, 9, 11]
    got = alibi_bias(torch.tensor(q_pos), torch.tensor(k_pos), heads, causal=causal)
    want = naive_bias(q_pos, k_pos, alibi_slopes(heads).tolist(), causal)
    assert got.shape == (heads, 4, 5) and got.dtype == torch.float32
    torch.testing.assert_close(got.double(), want, rtol=1e-6, atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(heads=st.integers(1, 128), n=st.integers(1, 40), shift=st.integers(0, 10**5))
def test_bias_is_relative_and_softmax_equals_official_form(heads, n, shift):
    pos = torch.arange(n)
    bias = alibi_bias(pos, pos, heads).double()
    shifted = alibi_bias(pos + shift, pos + shift, heads).double()
    torch.testing.assert_close(bias, shifted, rtol=0, atol=1e-3 * (1 + shift) * 1e-4)
    # the official code adds m * j; per row that differs by m * i, which softmax ignores
    official = alibi_slopes(heads)[:, None, None] * pos.double()[None, None, :]  # (heads, 1, n)
    mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    a = torch.softmax(bias.masked_fill(mask, float("-inf")), -1)
    b = torch.softmax(official.expand(heads, n, n).masked_fill(mask, float("-inf")), -1)
    torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


def test_symmetric_bias_is_symmetric():
    pos = torch.arange(7)
    b = alibi_bias(pos, pos, 4, causal=False)
    assert torch.equal(b, b.transpose(1, 2)) and float(b.max()) == 0.0


def test_distance_weights_equal_softmax_of_the_bias():
    slopes = alibi_slopes(8)
    n = 300
    w = alibi_distance_weights(slopes, torch.arange(n), n)  # (heads, n) by distance
    logits = -slopes[:, None] * torch.arange(n).double()[None, :]
    torch.testing.assert_close(w, torch.softmax(logits, -1))


@pytest.mark.parametrize("seq_len", [1, 2, 10, 512, 131072])
def test_reach_holds_the_mass(seq_len):
    slopes = alibi_slopes(16)
    reach = alibi_reach(slopes, seq_len)
    for h, d in enumerate(reach.tolist()):
        w = alibi_distance_weights(slopes[h : h + 1], torch.arange(seq_len), seq_len)[0]
        cum = torch.cumsum(w, 0)
        assert float(cum[d]) >= 0.9 - 1e-12
        assert d == 0 or float(cum[d - 1]) < 0.9


@pytest.mark.parametrize("heads", [0, -1, 5000, 2.5, True])
def test_bad_heads(heads):
    with pytest.raises(ValueError, match="heads"):
        alibi_slopes(heads)

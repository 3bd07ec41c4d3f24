"""Stick-breaking attention against the reference's sb_ref.stickbreaking (vendored below) and a naive loop."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F  # noqa: N812
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.encodings.stickbreaking import (
    softmax_causal_weights,
    stickbreaking_remainder,
    stickbreaking_weights,
)


def sb_ref(q, k, v, mask, cum_weight):
    """shawntan/stickbreaking-attention, stickbreaking_attention/sb_ref.py (Apache-2.0), lines 12-25."""
    logits = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    original_dtype = logits.dtype
    logits = logits.float()
    log_z = F.logsigmoid(logits).masked_fill(mask, -1e5).to(original_dtype)
    log_beta = F.logsigmoid(-logits).masked_fill(mask, 0).to(original_dtype)
    re_cum_log_beta = torch.einsum("bhij,jk->bhik", log_beta, cum_weight.to(log_beta))
    log_att = log_z + re_cum_log_beta
    att = log_att.exp()
    return att @ v, 1 - att.sum(dim=-1)


@pytest.mark.parametrize(("length", "dim", "attend_current"), [(8, 4, False), (16, 8, False), (12, 4, True)])
def test_equals_the_reference(length, dim, attend_current):
    g = torch.Generator().manual_seed(length)
    q, k = torch.randn(length, dim, generator=g).double(), torch.randn(length, dim, generator=g).double()
    v = torch.eye(length, dtype=torch.float64)[None, None]  # v = identity: the output is the weights
    mask = torch.ones(length, length, dtype=torch.bool).triu(1 if attend_current else 0)  # the tests' mask
    cum_weight = torch.ones(length, length).tril(-1)
    out, rem = sb_ref(q[None, None], k[None, None], v, mask, cum_weight)
    weights = stickbreaking_weights(q, k, attend_current=attend_current)
    # the reference computes the sigmoids in float32: agreement to float32's precision
    torch.testing.assert_close(weights, out[0, 0], rtol=1e-6, atol=1e-9)
    torch.testing.assert_close(stickbreaking_remainder(weights), rem[0, 0], rtol=0, atol=1e-7)


def test_a_naive_loop():
    g = torch.Generator().manual_seed(5)
    q, k = torch.randn(6, 3, generator=g).double(), torch.randn(6, 3, generator=g).double()
    w = stickbreaking_weights(q, k)
    for i in range(6):
        left = 1.0
        for j in reversed(range(i)):  # the nearest key breaks first
            beta = 1 / (1 + math.exp(-float(q[i] @ k[j]) / math.sqrt(3)))
            assert float(w[i, j]) == pytest.approx(beta * left, rel=1e-12)
            left *= 1 - beta
        assert float(stickbreaking_remainder(w)[i]) == pytest.approx(left, rel=1e-9, abs=1e-15)
        assert bool((w[i, i:] == 0).all())


@given(length=st.integers(1, 24), seed=st.integers(0, 1000))
@settings(max_examples=30, deadline=None)
def test_rows_are_a_stick_and_softmax_rows_sum_to_one(length, seed):
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(length, 4, generator=g), torch.randn(length, 4, generator=g)
    w = stickbreaking_weights(q, k)
    assert bool((w >= 0).all()) and bool((w.sum(-1) <= 1 + 1e-12).all())
    torch.testing.assert_close(softmax_causal_weights(q, k).sum(-1), torch.ones(length, dtype=torch.float64))


def test_equal_scores_decay_geometrically_with_distance():
    """With every beta = 1/2, key j of query i gets 2^-(i - j): recency without a position term."""
    q = k = torch.zeros(6, 4)
    w = stickbreaking_weights(q, k)
    torch.testing.assert_close(w[5, :5], torch.tensor([2.0**-5, 2.0**-4, 2.0**-3, 2.0**-2, 2.0**-1]).double())


def test_shapes_are_checked():
    with pytest.raises(ValueError, match="one sequence"):
        stickbreaking_weights(torch.zeros(3, 2), torch.zeros(4, 2))


def test_equal_scores_give_a_geometric_series():
    from posviz.encodings.stickbreaking import equal_score_weights

    beta = 1 / (1 + math.exp(-1.5))
    w = equal_score_weights(8, 1.5)
    assert float(w[0]) == 0
    for r in range(1, 8):
        assert float(w[r]) == pytest.approx(beta * (1 - beta) ** (r - 1), rel=1e-12)

"""Attention weights: naive loop, chunked sampling, permutation equivariance."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.encodings.attention import (
    attention_weights,
    attention_weights_sampled,
    causal_mask,
    self_attention,
    toy_qk,
)
from posviz.encodings.positions import query_positions
from posviz.encodings.t5 import t5_bias


def naive_attention(q, k, bias=None, q_pos=None, k_pos=None, causal=False):
    """softmax(q k^T / sqrt(d) + bias) one cell at a time, in float64 Python."""
    q_len, d = q.shape
    k_len = k.shape[0]
    q_pos = list(range(q_len)) if q_pos is None else q_pos.tolist()
    k_pos = list(range(k_len)) if k_pos is None else k_pos.tolist()
    out = []
    for i in range(q_len):
        logits = []
        for j in range(k_len):
            if causal and k_pos[j] > q_pos[i]:
                logits.append(None)
                continue
            dot = sum(float(q[i, c]) * float(k[j, c]) for c in range(d)) / math.sqrt(d)
            logits.append(dot + (0.0 if bias is None else float(bias[i, j])))
        top = max(x for x in logits if x is not None)
        exps = [0.0 if x is None else math.exp(x - top) for x in logits]
        total = sum(exps)
        out.append([e / total for e in exps])
    return torch.tensor(out, dtype=torch.float64)


def gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# --- attention_weights -----------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 7), st.integers(1, 9), st.integers(1, 6), st.booleans(), st.booleans(), st.integers(0, 10**6))
def test_attention_weights_equals_naive_loop(q_len, extra, d, causal, with_bias, seed):
    k_len = q_len + extra - 1
    g = gen(seed)
    q, k = toy_qk(q_len, k_len, d, generator=g)
    bias = torch.randn(q_len, k_len, generator=g) * 3 if with_bias else None
    q_pos = query_positions(q_len, k_len, align="end")
    got = attention_weights(q, k, bias=bias, causal=causal, q_pos=q_pos)
    want = naive_attention(q, k, bias=bias, q_pos=q_pos, causal=causal)
    assert got.shape == (q_len, k_len)
    assert torch.allclose(got.double(), want, atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 10), st.integers(1, 10), st.integers(1, 8), st.booleans(), st.integers(0, 10**6))
def test_attention_rows_sum_to_one_and_mask_is_exact_zero(q_len, k_len, d, causal, seed):
    g = gen(seed)
    q = torch.randn(2, 3, q_len, d, generator=g)  # (batch, heads, q_len, d)
    k = torch.randn(2, 3, k_len, d, generator=g)
    w = attention_weights(q, k, causal=causal)  # queries at 0.., every query sees key 0
    assert w.shape == (2, 3, q_len, k_len)
    assert torch.allclose(w.sum(-1), torch.ones(2, 3, q_len), atol=1e-6)
    assert bool((w >= 0).all())
    if causal:
        future = torch.arange(k_len)[None, :] > torch.arange(q_len)[:, None]
        assert bool((w[..., future] == 0).all())
        assert bool((w[..., ~future] > 0).all())


def test_causal_with_queries_at_the_end_sees_the_past():
    q, k = toy_qk(2, 5, 4, generator=gen(0))
    w = attention_weights(q, k, causal=True, q_pos=torch.tensor([3, 4]))
    assert w[0, 4].item() == 0.0
    assert bool((w[0, :4] > 0).all())
    assert bool((w[1] > 0).all())


def test_causal_mask_is_key_not_after_query():
    mask = causal_mask(torch.tensor([0, 2]), torch.tensor([0, 1, 2, 3]))
    assert mask.tolist() == [[True, False, False, False], [True, True, True, False]]


def test_attention_refuses_a_query_with_no_visible_key():
    q, k = toy_qk(1, 3, 4, generator=gen(0))
    with pytest.raises(ValueError, match="at least one key"):
        attention_weights(q, k, causal=True, q_pos=torch.tensor([0]), k_pos=torch.tensor([1, 2, 3]))


def test_bias_shifts_weight_toward_the_favoured_key():
    q = torch.zeros(1, 4)
    k = torch.randn(3, 4, generator=gen(1))
    flat = attention_weights(q, k)
    assert torch.allclose(flat, torch.full((1, 3), 1 / 3))
    biased = attention_weights(q, k, bias=torch.tensor([[0.0, math.log(2.0), 0.0]]))
    assert torch.allclose(biased, torch.tensor([[0.25, 0.5, 0.25]]))


# --- attention_weights_sampled ---------------------------------------------------------------


@st.composite
def sampled_cases(draw):
    q_len = draw(st.integers(1, 10))
    k_len = draw(st.integers(1, 40))
    d = draw(st.integers(1, 8))
    seed = draw(st.integers(0, 10**6))
    causal = draw(st.booleans())
    with_bias = draw(st.booleans())
    shuffle_keys = draw(st.booleans())
    chunk = draw(st.integers(1, 50))
    rows = draw(st.lists(st.integers(0, q_len - 1), min_size=1, max_size=8))
    cols = draw(st.lists(st.integers(0, k_len - 1), min_size=1, max_size=12))
    return q_len, k_len, d, seed, causal, with_bias, shuffle_keys, chunk, rows, cols


@settings(max_examples=120, deadline=None)
@given(sampled_cases())
def test_sampled_equals_full_matrix_rows_and_columns(case):
    q_len, k_len, d, seed, causal, with_bias, shuffle_keys, chunk, rows, cols = case
    g = gen(seed)
    q, k = toy_qk(q_len, k_len, d, generator=g)
    # queries at the end when they fit (cached decoding), else at the start; key 0 is always visible
    q_pos = query_positions(q_len, k_len, align="end" if q_len <= k_len else "start")
    k_pos = torch.randperm(k_len, generator=g) if shuffle_keys else torch.arange(k_len)
    table = torch.randn(8, 1, generator=g) * 2

    def bias_fn(qp, kp):
        return t5_bias(table, qp, kp, bidirectional=not causal, max_distance=6)[0]  # (rows, n)

    full = attention_weights(
        q, k, bias=bias_fn(q_pos, k_pos) if with_bias else None, causal=causal, q_pos=q_pos, k_pos=k_pos
    )
    rows_t, cols_t = torch.tensor(rows), torch.tensor(cols)
    got = attention_weights_sampled(
        q[rows_t],
        k,
        q_pos=q_pos[rows_t],
        k_pos=k_pos,
        cols=cols_t,
        bias_fn=bias_fn if with_bias else None,
        causal=causal,
        chunk=chunk,
    )
    assert got.shape == (len(rows), len(cols))
    assert got.dtype == torch.float32
    assert torch.allclose(got, full[rows_t][:, cols_t], atol=1e-6, rtol=1e-5)
    if causal:
        hidden = k_pos[cols_t][None, :] > q_pos[rows_t][:, None]
        assert bool((got[hidden] == 0).all())


def test_sampled_all_columns_sum_to_one_across_chunks():
    q, k = toy_qk(3, 100, 8, generator=gen(5))
    w = attention_weights_sampled(
        q, k, q_pos=torch.tensor([97, 98, 99]), k_pos=torch.arange(100), cols=torch.arange(100), chunk=7, causal=True
    )
    assert torch.allclose(w.sum(-1), torch.ones(3), atol=1e-6)


def test_sampled_refuses_a_query_with_no_visible_key():
    q, k = toy_qk(1, 4, 4, generator=gen(0))
    with pytest.raises(ValueError, match="at least one key"):
        attention_weights_sampled(
            q, k, q_pos=torch.tensor([0]), k_pos=torch.arange(1, 5), cols=torch.arange(4), causal=True, chunk=2
        )


# --- self_attention ---------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.integers(1, 8), st.integers(1, 8), st.integers(0, 10**6))
def test_self_attention_is_permutation_equivariant(seq, d_model, d, seed):
    g = gen(seed)
    x = torch.randn(seq, d_model, generator=g, dtype=torch.float64)
    w_q, w_k, w_v = (torch.randn(d_model, d, generator=g, dtype=torch.float64) for _ in range(3))
    perm = torch.randperm(seq, generator=g)
    weights, out = self_attention(x, w_q, w_k, w_v)
    weights_p, out_p = self_attention(x[perm], w_q, w_k, w_v)
    assert weights.shape == (seq, seq)
    assert out.shape == (seq, d)
    assert torch.allclose(out_p, out[perm], atol=1e-10)
    assert torch.allclose(weights_p, weights[perm][:, perm], atol=1e-10)


def test_self_attention_with_position_bias_breaks_equivariance():
    g = gen(3)
    seq, d = 6, 4
    x = torch.randn(seq, d, generator=g, dtype=torch.float64)
    w_q, w_k, w_v = (torch.randn(d, d, generator=g, dtype=torch.float64) for _ in range(3))
    pos = torch.arange(seq)
    bias = t5_bias(torch.randn(32, 1, generator=g, dtype=torch.float64) * 3, pos, pos)[0]
    perm = torch.tensor([5, 4, 3, 2, 1, 0])
    _, out = self_attention(x, w_q, w_k, w_v, bias=bias)
    _, out_p = self_attention(x[perm], w_q, w_k, w_v, bias=bias)
    assert not torch.allclose(out_p, out[perm], atol=1e-6)
    weights, out_direct = self_attention(x, w_q, w_k, w_v, bias=bias)
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    assert torch.allclose(weights, naive_attention(q, k, bias=bias), atol=1e-10)
    assert torch.allclose(out_direct, weights @ v, atol=1e-12)


# --- small helpers the pages compose --------------------------------------------------------------------

from posviz.encodings.attention import (  # noqa: E402
    content_scores,
    cosine_similarities,
    logits_bytes,
    masked_softmax,
    toy_normal,
)


def test_toy_tensors_come_from_the_generator_only():
    a = toy_normal(3, 4, generator=torch.Generator().manual_seed(7))
    b = toy_normal(3, 4, generator=torch.Generator().manual_seed(7))
    assert a.shape == (3, 4) and a.dtype == torch.float32 and torch.equal(a, b)
    q, k = toy_qk(2, 3, 4, generator=torch.Generator().manual_seed(7))
    g = torch.Generator().manual_seed(7)
    assert torch.equal(q, toy_normal(2, 4, generator=g)) and torch.equal(k, toy_normal(3, 4, generator=g))


def test_masked_softmax_gives_masked_keys_exactly_zero():
    logits = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    mask = torch.tensor([[False, False, True], [False, True, True]])
    w = masked_softmax(logits, mask)
    assert torch.equal(w[mask], torch.zeros(3)) and torch.allclose(w.sum(-1), torch.ones(2))
    assert torch.allclose(w[0, :2], torch.softmax(logits[0, :2], -1))
    assert torch.allclose(masked_softmax(logits), torch.softmax(logits, -1))


def test_content_and_cosine_scores_equal_a_loop():
    g = torch.Generator().manual_seed(1)
    q, k = torch.randn(3, 5, generator=g), torch.randn(4, 5, generator=g)
    scores = content_scores(q, k)
    for i in range(3):
        for j in range(4):
            assert float(scores[i, j]) == pytest.approx(sum(float(q[i, c] * k[j, c]) for c in range(5)), abs=1e-5)
    cos = cosine_similarities(k)
    assert torch.allclose(cos.diagonal(), torch.ones(4)) and torch.allclose(cos, cos.T)
    assert float(cos[0, 1]) == pytest.approx(float(k[0] @ k[1] / (k[0].norm() * k[1].norm())), abs=1e-6)


def test_logits_bytes_measures_float32():
    assert logits_bytes(100, 300) == 4 * 100 * 300  # meta: nothing allocated
    assert logits_bytes(10, 20, device="cpu") == 800


def test_toy_normal_draws_in_the_dtype_asked_for():
    a = toy_normal(5, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    assert a.dtype == torch.float64
    assert torch.equal(a, torch.randn(5, generator=torch.Generator().manual_seed(0), dtype=torch.float64))

"""Shaw et al. 2018: the index matrix against tensor2tensor, the lookup-free scores against R."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.encodings.positions import query_positions
from posviz.encodings.shaw import (
    shaw_attention,
    shaw_index,
    shaw_logits,
    shaw_relations,
    shaw_relations_bytes,
    shaw_relations_row,
    shaw_scores,
    shaw_seeded_tables,
    shaw_table,
    shaw_toy,
    shaw_toy_qkv,
    shaw_toy_value_term,
    shaw_value_term,
)


def t2t_relative_positions_matrix(length_q, length_k, max_relative_position, cache=False):
    """tensor2tensor ``_generate_relative_positions_matrix``, line for line in numpy."""
    if not cache:
        if length_q == length_k:
            range_vec_q = range_vec_k = np.arange(length_q)
        else:
            range_vec_k = np.arange(length_k)
            range_vec_q = range_vec_k[-length_q:]
        distance_mat = range_vec_k[None, :] - range_vec_q[:, None]
    else:
        distance_mat = np.expand_dims(np.arange(-length_k + 1, 1, 1), 0)
    distance_mat_clipped = np.clip(distance_mat, -max_relative_position, max_relative_position)
    return distance_mat_clipped + max_relative_position


def index_of(q_len, k_len, clip, align="end"):
    q_pos = query_positions(q_len, k_len, align=align)
    return shaw_index(q_pos, torch.arange(k_len), clip=clip).numpy()


@pytest.mark.parametrize("length,clip", [(1, 0), (3, 2), (12, 7), (16, 4), (40, 100)])
def test_index_matches_tensor2tensor_queries_first(length, clip):
    expected = t2t_relative_positions_matrix(length, length, clip)
    np.testing.assert_array_equal(index_of(length, length, clip, align="start"), expected)
    np.testing.assert_array_equal(index_of(length, length, clip, align="end"), expected)


@pytest.mark.parametrize("q_len,k_len,clip", [(1, 9, 3), (3, 10, 2), (5, 64, 8), (7, 8, 30)])
def test_index_matches_tensor2tensor_queries_last(q_len, k_len, clip):
    # With a memory or cache the queries are the last q_len positions.
    np.testing.assert_array_equal(index_of(q_len, k_len, clip), t2t_relative_positions_matrix(q_len, k_len, clip))


@pytest.mark.parametrize("k_len,clip", [(1, 2), (6, 2), (20, 5)])
def test_index_matches_tensor2tensor_cache_row(k_len, clip):
    # Incremental decoding: one query, the newest position.
    expected = t2t_relative_positions_matrix(1, k_len, clip, cache=True)
    np.testing.assert_array_equal(index_of(1, k_len, clip), expected)


def test_seed_notebook_matrix_is_the_transpose():
    # The seed notebooks compute q - k (the sign flipped): their final_mat is t2t's transposed.
    seed_final_mat = np.array([[2, 1, 0], [3, 2, 1], [4, 3, 2]])
    ours = index_of(3, 3, 2)
    np.testing.assert_array_equal(ours, seed_final_mat.T)
    assert not np.array_equal(ours, seed_final_mat)


def test_far_pairs_share_the_edge_rows():
    idx = index_of(30, 30, 4, align="start")
    i, j = np.meshgrid(np.arange(30), np.arange(30), indexing="ij")
    assert (idx[j - i >= 4] == 8).all() and (idx[j - i <= -4] == 0).all()
    inner = np.abs(j - i) < 4
    np.testing.assert_array_equal(idx[inner], (j - i)[inner] + 4)
    assert idx.min() == 0 and idx.max() == 8


def test_negative_clip_is_refused():
    with pytest.raises(ValueError, match="clip must be 0 or more"):
        shaw_index(torch.arange(3), torch.arange(3), clip=-1)


def test_table_is_seeded_xavier_normal():
    g = lambda s: torch.Generator().manual_seed(s)  # noqa: E731
    a, b = shaw_table(200, 300, generator=g(5)), shaw_table(200, 300, generator=g(5))
    assert a.shape == (401, 300) and a.dtype == torch.float32
    assert torch.equal(a, b)
    assert not torch.equal(a, shaw_table(200, 300, generator=g(6)))
    assert float(a.std()) == pytest.approx(math.sqrt(2.0 / (401 + 300)), rel=0.02)


def naive(q, k, v, table_k, table_v, q_pos, k_pos, clip):
    """Shaw's equations, one pair at a time in float64."""
    q, k, v, tk, tv = (x.double().numpy() for x in (q, k, v, table_k, table_v))
    n_q, n_k, d = q.shape[0], k.shape[0], q.shape[1]
    logits = np.zeros((n_q, n_k))
    rel = np.zeros((n_q, n_k))
    for a in range(n_q):
        for b in range(n_k):
            r = min(max(int(k_pos[b]) - int(q_pos[a]), -clip), clip) + clip
            rel[a, b] = q[a] @ tk[r]
            logits[a, b] = (q[a] @ (k[b] + tk[r])) / math.sqrt(d)
    w = np.exp(logits - logits.max(1, keepdims=True))
    w /= w.sum(1, keepdims=True)
    out = np.zeros((n_q, d))
    for a in range(n_q):
        for b in range(n_k):
            r = min(max(int(k_pos[b]) - int(q_pos[a]), -clip), clip) + clip
            out[a] += w[a, b] * (v[b] + tv[r])
    return rel, w, out


@settings(max_examples=40, deadline=None)
@given(
    q_len=st.integers(1, 9),
    extra=st.integers(0, 6),
    clip=st.integers(0, 10),
    dim=st.integers(1, 8),
    seed=st.integers(0, 2**16),
    shared=st.booleans(),
)
def test_vectorised_equals_naive_loop(q_len, extra, clip, dim, seed, shared):
    k_len = q_len + extra
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(n, dim, generator=g) for n in (q_len, k_len, k_len))
    table_k = shaw_table(clip, dim, generator=g)
    table_v = table_k if shared else shaw_table(clip, dim, generator=g)
    q_pos, k_pos = query_positions(q_len, k_len, align="end"), torch.arange(k_len)
    idx = shaw_index(q_pos, k_pos, clip=clip)
    rel, w, out = naive(q, k, v, table_k, table_v, q_pos, k_pos, clip)
    np.testing.assert_allclose(shaw_scores(q, table_k, idx).numpy(), rel, rtol=1e-4, atol=1e-5)
    weights, got = shaw_attention(q, k, v, table_k, table_v, idx)
    np.testing.assert_allclose(weights.numpy(), w, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(got.numpy(), out, rtol=1e-4, atol=1e-5)


@settings(max_examples=25, deadline=None)
@given(q_len=st.integers(1, 12), k_len=st.integers(1, 12), clip=st.integers(0, 6), seed=st.integers(0, 999))
def test_lookup_free_paths_equal_the_materialised_r(q_len, k_len, clip, seed):
    g = torch.Generator().manual_seed(seed)
    q, table = torch.randn(q_len, 5, generator=g), shaw_table(clip, 5, generator=g)
    idx = shaw_index(torch.arange(q_len), torch.arange(k_len), clip=clip)
    big_r = shaw_relations(table, idx)  # (q, k, d)
    assert big_r.shape == (q_len, k_len, 5)
    torch.testing.assert_close(shaw_scores(q, table, idx), torch.einsum("qd,qkd->qk", q, big_r))
    w = torch.softmax(torch.randn(q_len, k_len, generator=g), -1)
    torch.testing.assert_close(shaw_value_term(w, table, idx), torch.einsum("qk,qkd->qd", w, big_r))


def test_logits_are_content_plus_relative_over_sqrt_d():
    g = torch.Generator().manual_seed(0)
    q, k, table = torch.randn(4, 16, generator=g), torch.randn(4, 16, generator=g), torch.randn(5, 16, generator=g)
    idx = shaw_index(torch.arange(4), torch.arange(4), clip=2)
    expected = (q @ k.T + torch.einsum("qd,qkd->qk", q, table[idx])) / 4.0
    torch.testing.assert_close(shaw_logits(q, k, table, idx), expected)


@pytest.mark.parametrize("q_len,k_len,dim,clip", [(1, 1, 2, 0), (7, 9, 3, 2), (64, 64, 16, 8)])
def test_relations_bytes_on_meta_equal_the_real_tensor(q_len, k_len, dim, clip):
    meta = shaw_relations_bytes(q_len, k_len, dim, clip=clip)
    real = shaw_relations_bytes(q_len, k_len, dim, clip=clip, device="cpu")
    assert meta == real == q_len * k_len * dim * 4


def test_relations_bytes_huge_is_free():
    # 1 TB would be allocated for real; the meta device only works out the size.
    assert shaw_relations_bytes(2**17, 2**17, 16, clip=4) == 2**34 * 64


def test_seeded_tables_draw_keys_first_from_one_generator():
    g = torch.Generator().manual_seed(7)
    first, second = shaw_table(3, 4, generator=g), shaw_table(3, 4, generator=g)
    table_k, table_v = shaw_seeded_tables(3, 4, seed=7)
    assert torch.equal(table_k, first) and torch.equal(table_v, second) and not torch.equal(first, second)
    shared_k, shared_v = shaw_seeded_tables(3, 4, seed=7, separate=False)
    assert shared_k is shared_v and torch.equal(shared_k, first)  # a^K is the same either way


def test_relations_row_is_one_row_of_r():
    table_k, _ = shaw_seeded_tables(4, 5, seed=2)
    full = shaw_relations(table_k, shaw_index(torch.arange(12), torch.arange(12), clip=4))  # (12, 12, 5)
    keys = torch.tensor([0, 3, 6, 9, 11])
    index, row = shaw_relations_row(6, keys, clip=4, dim=5, seed=2)
    torch.testing.assert_close(row, full[6, keys], rtol=0, atol=0)
    np.testing.assert_array_equal(index.numpy(), np.clip(keys.numpy() - 6, -4, 4) + 4)


@pytest.mark.parametrize(("q_len", "k_len", "align", "separate"), [(6, 6, "start", True), (4, 9, "end", False)])
def test_toy_rows_are_shaw_attention_of_those_queries(q_len, k_len, align, separate):
    clip, dim, seed = 2, 8, 5
    offset = k_len - q_len if align == "end" else 0
    q_pos = query_positions(q_len, k_len, align=align)
    q, k, v = shaw_toy_qkv(q_len, k_len, dim, seed=seed)
    table_k, table_v = shaw_seeded_tables(clip, dim, seed=seed, separate=separate)
    index = shaw_index(q_pos, torch.arange(k_len), clip=clip)
    weights, out = shaw_attention(q, k, v, table_k, table_v, index)  # every query, the module's own path
    rows = torch.tensor([0, q_len - 1])
    toy = shaw_toy(q_pos[rows], q_len=q_len, k_len=k_len, offset=offset, clip=clip, dim=dim, seed=seed)
    torch.testing.assert_close(toy.weights, weights[rows])
    torch.testing.assert_close(toy.without, torch.softmax(q[rows] @ k.T / math.sqrt(dim), -1))
    torch.testing.assert_close(toy.content + toy.relative, shaw_logits(q, k, table_k, index)[rows] * math.sqrt(dim))
    term = shaw_toy_value_term(toy, clip=clip, dim=dim, seed=seed, separate=separate)
    torch.testing.assert_close(term, out[rows] - weights[rows] @ v)  # the output less the content's share

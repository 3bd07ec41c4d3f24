"""Transformer-XL's four terms against a port of the reference's lines (kimiyoung/transformer-xl,
pytorch/mem_transformer.py; transformers 5 no longer ships it) and a naive loop over distances."""

from __future__ import annotations

import math

import pytest
import torch

from posviz.encodings.transformer_xl import (
    txl_distances,
    txl_mask,
    txl_positional_embedding,
    txl_terms,
    txl_update_memory,
)


def reference_rel_shift(x, zero_triu=False):
    """RelMultiHeadAttn._rel_shift, lines 194-208."""
    zero_pad = torch.zeros((x.size(0), 1, *x.size()[2:]), device=x.device, dtype=x.dtype)
    x_padded = torch.cat([zero_pad, x], dim=1)
    x_padded = x_padded.view(x.size(1) + 1, x.size(0), *x.size()[2:])
    return x_padded[1:].view_as(x)


def reference_scores(q, k, r_k, u, v, mlen):
    """RelPartialLearnableMultiHeadAttn.forward, lines 249-264, one batch and one head ([qlen, klen])."""
    qlen, klen = q.shape[0], k.shape[0]
    rw_head_q = (q + u)[:, None, None, :]  # qlen x bsz x n_head x d_head
    ac = torch.einsum("ibnd,jbnd->ijbn", (rw_head_q, k[:, None, None, :]))
    rr_head_q = (q + v)[:, None, None, :]
    bd = torch.einsum("ibnd,jnd->ijbn", (rr_head_q, r_k[:, None, :]))
    bd = reference_rel_shift(bd)
    attn_score = (ac + bd) * (1 / q.shape[1] ** 0.5)
    mask = torch.triu(torch.ones(qlen, klen), diagonal=1 + mlen).bool()[:, :, None, None]
    attn_score = attn_score.masked_fill(mask, -float("inf"))
    return attn_score[:, :, 0, 0], torch.softmax(attn_score, dim=1)[:, :, 0, 0]


def reference_pos_emb(pos_seq, demb):
    """PositionalEmbedding, lines 15-31."""
    inv_freq = 1 / (10000 ** (torch.arange(0.0, demb, 2.0, dtype=torch.float64) / demb))
    sinusoid_inp = torch.ger(pos_seq.double(), inv_freq)
    return torch.cat([sinusoid_inp.sin(), sinusoid_inp.cos()], dim=-1)


def toy(q_len, mem_len, d, seed):
    g = torch.Generator().manual_seed(seed)
    k_len = q_len + mem_len
    q, k = torch.randn(q_len, d, generator=g).double(), torch.randn(k_len, d, generator=g).double()
    w_r = torch.randn(d, 2 * d, generator=g).double() / math.sqrt(2 * d)
    r_k = txl_positional_embedding(torch.arange(k_len - 1, -1, -1), 2 * d) @ w_r.T  # r_net, no bias
    u, v = torch.randn(d, generator=g).double(), torch.randn(d, generator=g).double()
    return q, k, r_k, u, v


@pytest.mark.parametrize(("q_len", "mem_len", "d"), [(5, 0, 4), (6, 3, 8), (4, 7, 2), (1, 5, 4)])
def test_score_and_weights_equal_the_reference(q_len, mem_len, d):
    q, k, r_k, u, v = toy(q_len, mem_len, d, seed=q_len + mem_len)
    terms = txl_terms(q, k, r_k, u=u, v=v, mem_len=mem_len)
    score, weights = reference_scores(q, k, r_k, u, v, mem_len)
    torch.testing.assert_close(terms.score, score)
    torch.testing.assert_close(terms.weights, weights)
    visible = ~txl_mask(q_len, mem_len)
    both = (terms.content + terms.position + terms.content_bias + terms.position_bias) / math.sqrt(d)
    torch.testing.assert_close(both[visible], score[visible])  # the four terms add up to the score


def test_each_term_by_a_naive_loop_over_distances():
    q_len, mem_len, d = 4, 3, 4
    q, k, r_k, u, v = toy(q_len, mem_len, d, seed=9)
    t = txl_terms(q, k, r_k, u=u, v=v, mem_len=mem_len)
    k_len = q_len + mem_len
    for i in range(q_len):
        for j in range(k_len):
            dist = mem_len + i - j
            if dist < 0:
                continue
            r = r_k[k_len - 1 - dist]  # the row of R at this distance
            assert float(t.content[i, j]) == pytest.approx(float(q[i] @ k[j]))
            assert float(t.position[i, j]) == pytest.approx(float(q[i] @ r))
            assert float(t.content_bias[i, j]) == pytest.approx(float(u @ k[j]))
            assert float(t.position_bias[i, j]) == pytest.approx(float(v @ r))


def test_the_shift_leaves_garbage_above_the_diagonal_that_the_mask_removes():
    q, k, r_k, u, v = toy(5, 2, 4, seed=3)
    t = txl_terms(q, k, r_k, u=u, v=v, mem_len=2)
    masked = txl_mask(5, 2)
    assert bool((t.bd[masked] != 0).any())  # not zeros: other rows' values, shifted in
    assert bool((t.weights[masked] == 0).all())


def test_r_is_sin_then_cos_halves_over_descending_distances():
    pos = torch.arange(9, -1, -1)
    torch.testing.assert_close(txl_positional_embedding(pos, 8), reference_pos_emb(pos, 8))
    assert txl_distances(2, 3).tolist() == [[3, 2, 1, 0, -1], [4, 3, 2, 1, 0]]


def test_memory_keeps_the_last_mem_len_rows():
    mems, hidden = torch.arange(6.0)[:, None], torch.arange(6.0, 10.0)[:, None]
    assert txl_update_memory(mems, hidden, mem_len=5).flatten().tolist() == [5, 6, 7, 8, 9]
    assert txl_update_memory(mems[:0], hidden, mem_len=5).shape == (4, 1)


def test_bad_shapes_are_refused():
    q, k, r_k, u, v = toy(3, 2, 4, seed=1)
    with pytest.raises(ValueError, match="mem_len"):
        txl_terms(q, k, r_k, u=u, v=v, mem_len=1)

"""The skew against the direct gather, the worked example, the inverse, the variants."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.encodings.skew import (
    rel_shift,
    rel_shift_steps,
    relative_embeddings_left,
    relative_gather,
    skew,
    skew_er_bytes,
    skew_er_rows,
    skew_steps,
    skew_toy,
    skew_unmasked,
    skew_unmasked_steps,
    skew_walkthrough,
    unskew,
)


def test_worked_example_from_the_references():
    rel = torch.tensor([[0.0, 1, 2], [10, 11, 12], [20, 21, 22]])
    expected = torch.tensor([[2.0, 0, 10], [11, 12, 0], [20, 21, 22]])
    assert torch.equal(skew(rel), expected)


def test_steps_have_the_documented_shapes():
    steps = skew_steps(torch.randn(2, 3, 5, 5))
    assert steps.padded.shape == (2, 3, 5, 6)
    assert torch.equal(steps.padded[..., 0], torch.zeros(2, 3, 5))
    assert steps.reshaped.shape == (2, 3, 6, 5)
    assert steps.sliced.shape == (2, 3, 5, 5)
    assert torch.equal(steps.sliced, steps.reshaped[..., 1:, :])


def loop_skew(rel: np.ndarray) -> np.ndarray:
    """S[i, j] = rel[i, j - i + L - 1] on j <= i, by hand."""
    n = rel.shape[0]
    out = np.full((n, n), np.nan)
    for i in range(n):
        for j in range(i + 1):
            out[i, j] = rel[i, j - i + n - 1]
    return out


@settings(max_examples=60, deadline=None)
@given(length=st.integers(1, 40), seed=st.integers(0, 2**16))
def test_skew_equals_the_loop_on_causal_entries(length, seed):
    rel = torch.randn(length, length, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    got = skew(rel).numpy()
    ref = loop_skew(rel.numpy())
    low = np.tril(np.ones((length, length), bool))
    np.testing.assert_array_equal(got[low], ref[low])


@settings(max_examples=40, deadline=None)
@given(length=st.integers(1, 24), dim=st.integers(1, 8), seed=st.integers(0, 2**16))
def test_skew_of_q_er_equals_the_gather(length, dim, seed):
    g = torch.Generator().manual_seed(seed)
    q, er = torch.randn(length, dim, generator=g), torch.randn(length, dim, generator=g)
    direct, valid = relative_gather(q, er)
    assert torch.equal(valid, torch.tril(torch.ones(length, length, dtype=torch.bool)))
    torch.testing.assert_close(skew(q @ er.T)[valid], direct[valid])


def test_upper_triangle_is_the_pad_and_the_next_row():
    n = 6
    rel = torch.arange(n * n, dtype=torch.float64).reshape(n, n) + 1  # no zeros of its own
    s = skew(rel)
    for i in range(n - 1):
        assert s[i, i + 1] == 0  # the padded zero of row i + 1
        for j in range(i + 2, n):
            assert s[i, j] == rel[i + 1, j - i - 2]


@settings(max_examples=40, deadline=None)
@given(length=st.integers(1, 30), seed=st.integers(0, 2**16))
def test_unskew_inverts_the_skew_on_the_causal_part(length, seed):
    x = torch.randn(length, length, generator=torch.Generator().manual_seed(seed))
    i, c = torch.meshgrid(torch.arange(length), torch.arange(length), indexing="ij")
    has_key = c >= length - 1 - i  # relative column c is key j = c - (L-1) + i >= 0
    assert torch.equal(unskew(skew(x))[has_key], x[has_key])
    low = torch.tril(torch.ones(length, length, dtype=torch.bool))
    assert torch.equal(skew(unskew(x))[low], x[low])


@settings(max_examples=40, deadline=None)
@given(length=st.integers(1, 30), seed=st.integers(0, 2**16))
def test_unmasked_skew_is_exact_everywhere(length, seed):
    g = torch.Generator().manual_seed(seed)
    rel = torch.randn(length, 2 * length - 1, generator=g, dtype=torch.float64)
    got = skew_unmasked(rel)
    i, j = torch.meshgrid(torch.arange(length), torch.arange(length), indexing="ij")
    assert torch.equal(got, rel[i, j - i + length - 1])
    q, er = torch.randn(length, 4, generator=g), torch.randn(2 * length - 1, 4, generator=g)
    direct, valid = relative_gather(q, er, both_ways=True)
    assert bool(valid.all())
    torch.testing.assert_close(skew_unmasked(q @ er.T), direct)


def test_unmasked_steps_shapes():
    steps = skew_unmasked_steps(torch.randn(4, 7))
    assert steps.padded.shape == (4, 8) and steps.reshaped.shape == (5, 7) and steps.sliced.shape == (4, 4)


def transformer_xl_rel_shift(x, zero_triu=False):
    """Transformer-XL ``RelPartialLearnableMultiHeadAttn._rel_shift`` (PyTorch), verbatim in substance."""
    zero_pad = torch.zeros((x.size(0), 1, *x.size()[2:]), device=x.device, dtype=x.dtype)
    x_padded = torch.cat([zero_pad, x], dim=1)
    x_padded = x_padded.view(x.size(1) + 1, x.size(0), *x.size()[2:])
    x = x_padded[1:].view_as(x)
    if zero_triu:
        ones = torch.ones((x.size(0), x.size(1)))
        x = x * torch.tril(ones, x.size(1) - x.size(0))[:, :, None, None]
    return x


@pytest.mark.parametrize("q_len,mem_len", [(1, 0), (5, 0), (5, 3), (8, 8), (3, 11)])
@pytest.mark.parametrize("zero_triu", [False, True])
def test_rel_shift_matches_transformer_xl(q_len, mem_len, zero_triu):
    x = torch.randn(q_len, q_len + mem_len, 2, 3, generator=torch.Generator().manual_seed(q_len + mem_len))
    assert torch.equal(rel_shift(x, zero_triu=zero_triu), transformer_xl_rel_shift(x, zero_triu=zero_triu))


@settings(max_examples=40, deadline=None)
@given(q_len=st.integers(1, 16), mem_len=st.integers(0, 16), seed=st.integers(0, 2**16))
def test_rel_shift_equals_the_gather_with_memory(q_len, mem_len, seed):
    g = torch.Generator().manual_seed(seed)
    k_len = q_len + mem_len
    q, r = torch.randn(q_len, 4, generator=g), torch.randn(k_len, 4, generator=g)  # r[c]: distance k_len - 1 - c
    direct, valid = relative_gather(q, r, mem_len=mem_len)
    i, j = torch.meshgrid(torch.arange(q_len), torch.arange(k_len), indexing="ij")
    assert torch.equal(valid, j <= i + mem_len)
    torch.testing.assert_close(rel_shift(q @ r.T)[valid], direct[valid])
    torch.testing.assert_close(rel_shift(q @ r.T, zero_triu=True), direct)


def test_rel_shift_without_memory_is_the_music_transformer_skew():
    x = torch.randn(7, 7)
    assert torch.equal(rel_shift(x), skew(x))
    assert rel_shift_steps(x).reshaped.shape == (8, 7)


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="unmasked"):
        skew(torch.randn(3, 5))
    with pytest.raises(ValueError, match="2L - 1"):
        skew_unmasked(torch.randn(3, 3))
    with pytest.raises(ValueError, match="k_len >= q_len"):
        rel_shift(torch.randn(4, 3))


def test_relative_embeddings_left_pads_zeros_in_front():
    table = torch.arange(1.0, 5.0)[:, None].repeat(1, 2)  # rows 1..4, row 3 = distance 0
    assert torch.equal(relative_embeddings_left(table, 2), table[2:])
    assert torch.equal(relative_embeddings_left(table, 4), table)
    longer = relative_embeddings_left(table, 6)
    assert torch.equal(longer[:2], torch.zeros(2, 2)) and torch.equal(longer[2:], table)


@pytest.mark.parametrize("length,dim", [(1, 2), (100, 64), (4096, 64)])
def test_er_bytes(length, dim):
    assert skew_er_bytes(length, dim) == skew_er_bytes(length, dim, device="cpu") == length * dim * 4


def test_skew_embeddings_are_scaled_as_tensor2tensor_initialises_them():
    from posviz.encodings.skew import skew_embeddings

    er = skew_embeddings(4000, 64, generator=torch.Generator().manual_seed(0))
    assert er.shape == (4000, 64)
    assert float(er.std()) == pytest.approx(64**-0.5, rel=0.02)
    assert torch.equal(er, skew_embeddings(4000, 64, generator=torch.Generator().manual_seed(0)))


@pytest.mark.parametrize(
    ("variant", "length", "mem_len", "rows", "pairs"),
    [
        ("masked", 6, 3, 6, 21),  # j <= i; the memory counts for rel_shift only
        ("unmasked", 5, 0, 9, 25),  # every pair
        ("rel_shift", 4, 3, 7, 4 * 3 + 10),  # every memory key, then j <= i
    ],
)
def test_walkthrough_checks_the_skew_against_the_gather(variant, length, mem_len, rows, pairs):
    w = skew_walkthrough(length, 8, seed=1, variant=variant, mem_len=mem_len)
    assert skew_er_rows(variant, length, mem_len) == rows
    q, er = skew_toy(length, 8, seed=1, variant=variant, mem_len=mem_len)
    assert er.shape == (rows, 8) and q.shape == (length, 8)
    torch.testing.assert_close(w.steps.rel, q @ er.T, rtol=0, atol=0)
    assert w.valid_pairs == pairs == int(w.valid.sum())
    gather, valid = relative_gather(q, er, mem_len=mem_len if variant == "rel_shift" else 0,
                                    both_ways=variant == "unmasked")  # fmt: skip
    assert torch.equal(valid, w.valid) and torch.equal(gather, w.gather)
    diff = (w.steps.sliced - gather).abs()[valid]
    assert w.max_diff == float(diff.max()) and 0 <= w.max_diff < 1e-5
    assert torch.equal(w.sources.rel, torch.arange(length * rows).reshape(length, rows))

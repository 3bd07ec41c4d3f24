"""T5 relative position buckets and bias: oracles, golden values, properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.encodings.positions import query_positions
from posviz.encodings.t5 import (
    check_t5_config,
    t5_bias,
    t5_bias_seed_transpose,
    t5_bucket,
    t5_bucket_ranges,
    t5_bucket_steps,
)
from posviz.encodings.t5_toy import t5_bias_block_means, t5_toy_attention, t5_toy_table

INT64_MIN = -(2**63)


# --- two independent references ---------------------------------------------------------------


def naive_bucket(r: int, *, bidirectional: bool, num_buckets: int, max_distance: int) -> int:
    """REFERENCES.md "T5 relative position bucket", one int at a time, with float32 arithmetic.

    Mirrors the reference's float32 order: ``n.float() / max_exact`` (float32), ``log`` of
    that (float32), divided by the float64 ``log(max_distance / max_exact)`` rounded to
    float32, times ``nb - max_exact`` (float32), truncated toward zero. The log is taken in
    float64 and rounded once, i.e. correctly rounded: numpy's own float32 ``log`` is one ulp
    off at e.g. 2.25, which flips a bucket exactly on a boundary.
    """
    nb = num_buckets
    ret = 0
    if bidirectional:
        nb //= 2
        ret += nb if r > 0 else 0
        n = abs(r)
    else:
        n = max(-r, 0)
    max_exact = nb // 2
    if n < max_exact:
        return ret + n
    ratio = np.float32(n) / np.float32(max_exact)
    log_ratio = np.float32(math.log(float(ratio)))
    scaled = log_ratio / np.float32(math.log(max_distance / max_exact)) * np.float32(nb - max_exact)
    return ret + min(nb - 1, max_exact + int(scaled))  # int() truncates toward zero


def hf_relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    """Hugging Face ``T5Attention._relative_position_bucket``, copied verbatim."""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    # now relative_position is in the range [0, inf)

    # half of the buckets are for exact increments in positions
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact

    # The other half of the buckets are for logarithmically bigger bins in positions up to max_distance
    relative_position_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    relative_position_if_large = torch.min(
        relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
    )

    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets


# --- strategies ----------------------------------------------------------------------------------


def max_exact_of(bidirectional: bool, num_buckets: int) -> int:
    return (num_buckets // 2 if bidirectional else num_buckets) // 2


@st.composite
def t5_configs(
    draw, max_buckets: int = 256, far: int = 131072, bidirectional: bool | None = None
) -> tuple[bool, int, int]:
    """Valid ``(bidirectional, num_buckets, max_distance)``."""
    bidirectional = draw(st.booleans()) if bidirectional is None else bidirectional
    num_buckets = draw(st.integers(4 if bidirectional else 2, max_buckets))
    max_exact = max_exact_of(bidirectional, num_buckets)
    max_distance = draw(st.integers(max_exact + 1, max_exact + 64) | st.integers(max_exact + 1, far))
    return bidirectional, num_buckets, max_distance


@st.composite
def configs_and_rs(draw) -> tuple[tuple[bool, int, int], list[int]]:
    bidirectional, nb, md = draw(t5_configs())
    near = min(md, 300) + 3
    rs = list(range(-near, near + 1))  # every small distance, both sides of each boundary
    rs += draw(st.lists(st.integers(-3 * md, 3 * md), min_size=1, max_size=60))
    return (bidirectional, nb, md), rs


def kw(config: tuple[bool, int, int]) -> dict:
    bidirectional, nb, md = config
    return dict(bidirectional=bidirectional, num_buckets=nb, max_distance=md)


# --- bucket: against the two references ------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(configs_and_rs())
def test_t5_bucket_equals_naive_float32_loop(case):
    config, rs = case
    got = t5_bucket(torch.tensor(rs), **kw(config)).tolist()
    want = [naive_bucket(r, **kw(config)) for r in rs]
    assert got == want


@settings(max_examples=100, deadline=None)
@given(configs_and_rs())
def test_t5_bucket_equals_hugging_face_copy(case):
    config, rs = case
    r = torch.tensor(rs)
    bidirectional, nb, md = config
    assert torch.equal(t5_bucket(r, **kw(config)), hf_relative_position_bucket(r, bidirectional, nb, md))


def test_naive_oracle_matches_hugging_face_on_a_boundary_numpy_log_gets_wrong():
    # (unidirectional, 17, 27), n = 18: log(2.25) / log(3.375) * 9 is exactly 6; float32 gives 5.99..
    r = torch.tensor([-18])
    assert hf_relative_position_bucket(r, False, 17, 27).item() == 13
    assert naive_bucket(-18, bidirectional=False, num_buckets=17, max_distance=27) == 13
    assert t5_bucket(r, bidirectional=False, num_buckets=17, max_distance=27).item() == 13


def test_t5_bucket_keeps_shape_of_a_matrix():
    rel = torch.arange(-20, 20).reshape(5, 8)
    out = t5_bucket(rel, bidirectional=True, num_buckets=32, max_distance=128)
    assert out.shape == (5, 8)
    assert out.dtype == torch.int64
    assert out.flatten().tolist() == [
        naive_bucket(r, bidirectional=True, num_buckets=32, max_distance=128) for r in range(-20, 20)
    ]


# --- golden facts ----------------------------------------------------------------------------------


T5_DEFAULT = dict(bidirectional=True, num_buckets=32, max_distance=128)


def bucket_of(r: int, **config) -> int:
    return int(t5_bucket(torch.tensor([r]), **config).item())


def test_t5_default_golden_values():
    assert bucket_of(0, **T5_DEFAULT) == 0
    assert bucket_of(1, **T5_DEFAULT) == 17  # first future bucket: offset 16 + distance 1
    assert bucket_of(-1, **T5_DEFAULT) == 1
    assert bucket_of(-7, **T5_DEFAULT) == 7
    assert bucket_of(-8, **T5_DEFAULT) == 8  # first log bucket
    assert bucket_of(-90, **T5_DEFAULT) == 14
    assert bucket_of(-91, **T5_DEFAULT) == 15  # the last past bucket starts at 91, not 128
    assert bucket_of(90, **T5_DEFAULT) == 30
    assert bucket_of(91, **T5_DEFAULT) == 31
    assert bucket_of(-128, **T5_DEFAULT) == 15
    assert bucket_of(10**6, **T5_DEFAULT) == 31


def test_t5_default_bucket_16_is_never_used():
    used = set(t5_bucket(torch.arange(-1000, 1001), **T5_DEFAULT).tolist())
    assert 16 not in used
    assert used == set(range(32)) - {16}


def test_seed_notebook_unidirectional_buckets():
    n = torch.arange(15)
    got = t5_bucket(-n, bidirectional=False, num_buckets=6, max_distance=20).tolist()
    assert got == [0, 1, 2, 3, 3, 3, 4, 4, 4, 4, 4, 5, 5, 5, 5]


def test_unidirectional_sends_every_future_key_to_bucket_0():
    r = torch.tensor([0, 1, 2, 50, 10**6])
    assert t5_bucket(r, bidirectional=False, num_buckets=32, max_distance=128).tolist() == [0] * 5


def test_t5_bucket_ranges_default_facts():
    ranges = t5_bucket_ranges(**T5_DEFAULT)
    assert [rg.bucket for rg in ranges] == list(range(32))
    assert ranges[16].kind == "unused"
    assert ranges[16].count == 0
    assert ranges[15].first == -91
    assert ranges[15].last is None
    assert ranges[15].direction == "past"
    assert ranges[31].first == 91
    assert ranges[31].last is None
    assert ranges[31].direction == "future"
    assert [ranges[b].count for b in range(8, 15)] == [4, 4, 7, 9, 14, 18, 27]
    assert [ranges[b].count for b in range(24, 31)] == [4, 4, 7, 9, 14, 18, 27]
    assert all(ranges[b].kind == "exact" and ranges[b].first == -b == ranges[b].last for b in range(1, 8))
    assert ranges[0].direction == "self"
    assert (ranges[0].first, ranges[0].last) == (0, 0)
    assert (ranges[8].first, ranges[8].last, ranges[8].kind) == (-8, -11, "log")
    assert (ranges[14].first, ranges[14].last) == (-64, -90)
    assert (ranges[24].first, ranges[24].last) == (8, 11)


def test_t5_bucket_ranges_decoder_bucket_0_takes_self_and_future():
    ranges = t5_bucket_ranges(bidirectional=False, num_buckets=6, max_distance=20)
    assert ranges[0].direction == "self and future"
    assert ranges[0].first == 0
    assert ranges[0].last is None
    # distances 3..5 -> 3, 6..10 -> 4, 11.. -> 5 (seed notebook values)
    assert (ranges[3].first, ranges[3].last, ranges[3].count) == (-3, -5, 3)
    assert (ranges[4].first, ranges[4].last, ranges[4].count) == (-6, -10, 5)
    assert (ranges[5].first, ranges[5].last) == (-11, None)


@settings(max_examples=60, deadline=None)
@given(t5_configs(max_buckets=64, far=400))
def test_t5_bucket_ranges_agree_with_enumeration(config):
    bidirectional, nb, md = config
    rs = torch.arange(-3 * md, 3 * md + 1)
    buckets = t5_bucket(rs, **kw(config))
    for rg in t5_bucket_ranges(**kw(config)):
        hit = rs[buckets == rg.bucket].tolist()
        if rg.kind == "unused":
            assert hit == []
            continue
        assert rg.first in hit
        if rg.last is None:
            # open-ended: everything from `first` outwards, in its direction
            side = [r for r in hit if (r < 0) == (rg.first < 0)] if rg.first != 0 else [r for r in hit if r >= 0]
            assert max(abs(r) for r in side) == 3 * md
        else:
            lo, hi = sorted((rg.first, rg.last))
            assert sorted(hit) == list(range(lo, hi + 1))
            assert rg.count == hi - lo + 1
            assert abs(rg.first) <= abs(rg.last)


# --- properties -------------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(configs_and_rs())
def test_bucket_range_is_0_to_num_buckets(case):
    config, rs = case
    b = t5_bucket(torch.tensor(rs), **kw(config))
    assert int(b.min()) >= 0
    assert int(b.max()) < config[1]


@settings(max_examples=80, deadline=None)
@given(t5_configs(bidirectional=False), st.lists(st.integers(0, 10**6), min_size=1, max_size=50))
def test_unidirectional_future_is_bucket_0(config, rs):
    b = t5_bucket(torch.tensor(rs), **kw(config))
    assert b.tolist() == [0] * len(rs)


@settings(max_examples=100, deadline=None)
@given(t5_configs(bidirectional=True), st.lists(st.integers(1, 4 * 131072), min_size=1, max_size=80))
def test_bidirectional_future_is_past_plus_half(config, rs):
    nb = config[1]
    r = torch.tensor(rs)
    future = t5_bucket(r, **kw(config))
    past = t5_bucket(-r, **kw(config))
    assert torch.equal(future, past + nb // 2)


@settings(max_examples=100, deadline=None)
@given(t5_configs())
def test_bucket_is_monotone_in_distance_within_a_direction(config):
    _, _, md = config
    n = torch.arange(0, min(3 * md, 20000))
    past = t5_bucket(-n, **kw(config))
    assert bool((past[1:] >= past[:-1]).all())
    future = t5_bucket(n[1:], **kw(config))
    assert bool((future[1:] >= future[:-1]).all())


def test_odd_bidirectional_num_buckets_wastes_the_top_bucket():
    used = set(t5_bucket(torch.arange(-500, 501), bidirectional=True, num_buckets=33, max_distance=128).tolist())
    assert 32 not in used
    assert max(used) == 31


# --- degenerate configurations -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bidirectional", "num_buckets", "max_distance", "fix"),
    [
        (True, 3, 128, "num_buckets >= 4"),
        (True, 2, 128, "num_buckets >= 4"),
        (False, 1, 128, "num_buckets >= 2"),
        (True, 32, 8, "max_distance >= 9"),  # == max_exact: log(1) = 0, division gives inf
        (True, 32, 5, "max_distance >= 9"),  # < max_exact: buckets run backwards, go negative
        (False, 32, 16, "max_distance >= 17"),
        (True, 0, 128, "num_buckets"),
    ],
)
def test_degenerate_configs_are_refused_with_the_fix(bidirectional, num_buckets, max_distance, fix):
    config = dict(bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    with pytest.raises(ValueError, match=fix):
        check_t5_config(**config)
    with pytest.raises(ValueError, match=fix):
        t5_bucket(torch.arange(-5, 6), **config)
    with pytest.raises(ValueError, match=fix):
        t5_bucket_steps(torch.arange(-5, 6), **config)
    with pytest.raises(ValueError, match=fix):
        t5_bucket_ranges(**config)
    if num_buckets > 0:
        table = torch.zeros(num_buckets, 2)
        with pytest.raises(ValueError, match=fix):
            t5_bias(table, torch.arange(4), torch.arange(4), bidirectional=bidirectional, max_distance=max_distance)


def test_smallest_valid_configs_are_accepted():
    check_t5_config(bidirectional=True, num_buckets=4, max_distance=2)
    check_t5_config(bidirectional=False, num_buckets=2, max_distance=2)
    assert t5_bucket(torch.tensor([-3, -1, 0, 1, 3]), bidirectional=True, num_buckets=4, max_distance=2).tolist() == [
        1,
        1,
        0,
        3,
        3,
    ]


# --- steps -------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(configs_and_rs())
def test_bucket_steps_intermediates(case):
    config, rs = case
    bidirectional, nb, md = config
    r = torch.tensor(rs)
    steps = t5_bucket_steps(r, **kw(config))
    half = nb // 2 if bidirectional else nb
    max_exact = half // 2
    assert steps.max_exact == max_exact
    assert torch.equal(steps.relative_position, r)
    assert torch.equal(steps.bucket, t5_bucket(r, **kw(config)))
    want_n = r.abs() if bidirectional else (-r).clamp(min=0)
    assert torch.equal(steps.n, want_n)
    assert torch.equal(steps.is_small, want_n < max_exact)
    want_offset = (r > 0).long() * half if bidirectional else torch.zeros_like(r)
    assert torch.equal(steps.direction_offset, want_offset)
    zero = steps.n == 0
    assert bool(torch.isneginf(steps.log_ratio[zero]).all())
    assert bool(torch.isfinite(steps.log_ratio[~zero]).all())
    assert bool((steps.val_if_large_raw[zero] == INT64_MIN + max_exact).all())
    assert torch.equal(steps.val_if_large, steps.val_if_large_raw.clamp(max=half - 1))
    assert torch.equal(steps.within, steps.bucket - steps.direction_offset)
    assert int(steps.within.min()) >= 0
    assert int(steps.within.max()) < half
    large = ~steps.is_small
    assert torch.equal(steps.bucket[large], steps.direction_offset[large] + steps.val_if_large[large])
    assert torch.equal(steps.bucket[~large], steps.direction_offset[~large] + steps.n[~large])


def test_bucket_steps_log_ratio_golden():
    steps = t5_bucket_steps(torch.tensor([0, -8, -16, -128]), **T5_DEFAULT)
    # log(n / 8) / log(16) * 8 = 2 log2(n / 8)
    assert steps.log_ratio[0].item() == float("-inf")
    assert steps.log_ratio[1:].tolist() == pytest.approx([0.0, 2.0, 8.0], abs=1e-5)
    assert steps.val_if_large_raw[1:].tolist() == [8, 10, 16]
    assert steps.val_if_large[1:].tolist() == [8, 10, 15]
    assert steps.val_if_large_raw[0].item() == INT64_MIN + 8


# --- bias -------------------------------------------------------------------------------------------


def reference_bias(table, q_pos, k_pos, *, bidirectional, max_distance, scale=1.0):
    """Bucket every cell (no lookup table), then ``compute_bias``'s gather and permute."""
    rel = k_pos[None, :] - q_pos[:, None]
    bucket = t5_bucket(rel, bidirectional=bidirectional, num_buckets=table.shape[0], max_distance=max_distance)
    return table[bucket].permute(2, 0, 1) * scale


@st.composite
def positions(draw, max_len: int = 24, far: int = 5000) -> torch.Tensor:
    """1-D int64 positions: contiguous, strided, offset, or arbitrary (unsorted, repeated)."""
    kind = draw(st.sampled_from(["arange", "strided", "random"]))
    length = draw(st.integers(1, max_len))
    if kind == "arange":
        return torch.arange(length) + draw(st.integers(0, far))
    if kind == "strided":
        return torch.arange(length) * draw(st.integers(1, 300)) + draw(st.integers(0, far))
    return torch.tensor(draw(st.lists(st.integers(0, far), min_size=length, max_size=length)))


@settings(max_examples=80, deadline=None)
@given(
    t5_configs(max_buckets=64, far=2000),
    st.integers(1, 6),
    positions(),
    positions(),
    st.sampled_from([1.0, -0.5, 2.25]),
    st.integers(0, 2**31 - 1),
)
def test_t5_bias_equals_cellwise_gather(config, heads, q_pos, k_pos, scale, seed):
    bidirectional, nb, md = config
    table = torch.randn(nb, heads, generator=torch.Generator().manual_seed(seed))
    got = t5_bias(table, q_pos, k_pos, bidirectional=bidirectional, max_distance=md, scale=scale)
    assert got.shape == (heads, len(q_pos), len(k_pos))
    want = reference_bias(table, q_pos, k_pos, bidirectional=bidirectional, max_distance=md, scale=scale)
    assert torch.equal(got, want)


def test_t5_bias_non_contiguous_positions():
    table = torch.randn(32, 4, generator=torch.Generator().manual_seed(3))
    base = torch.arange(0, 400)
    q_pos = base[::7]  # a non-contiguous view
    k_pos = base.flip(0)[::3]
    assert not q_pos.is_contiguous()
    got = t5_bias(table, q_pos, k_pos, bidirectional=True, max_distance=128)
    assert torch.equal(got, reference_bias(table, q_pos, k_pos, bidirectional=True, max_distance=128))


def test_t5_bias_shape_with_q_len_not_k_len():
    table = torch.randn(32, 3, generator=torch.Generator().manual_seed(0))
    bias = t5_bias(table, torch.arange(5), torch.arange(11), bidirectional=False, max_distance=128)
    assert bias.shape == (3, 5, 11)
    # decoder: a future key (j > i) shares bucket 0 with self
    assert torch.equal(bias[:, 0, 1:], table[0][:, None].expand(3, 10))


def test_t5_bias_refuses_a_1d_table():
    with pytest.raises(ValueError, match="num_buckets, heads"):
        t5_bias(torch.zeros(32), torch.arange(3), torch.arange(3))


@settings(max_examples=50, deadline=None)
@given(t5_configs(max_buckets=64, far=300), st.integers(1, 4), st.integers(1, 40), st.integers(0, 1000))
def test_t5_bias_is_toeplitz(config, heads, length, offset):
    bidirectional, nb, md = config
    table = torch.randn(nb, heads, generator=torch.Generator().manual_seed(length))
    pos = torch.arange(length) + offset
    bias = t5_bias(table, pos, pos, bidirectional=bidirectional, max_distance=md)
    assert torch.equal(bias[:, 1:, 1:], bias[:, :-1, :-1])


@settings(max_examples=50, deadline=None)
@given(t5_configs(max_buckets=64, far=300), st.integers(1, 4), st.integers(0, 300))
def test_cached_decoding_row_equals_last_row_of_full_bias(config, heads, p):
    bidirectional, nb, md = config
    table = torch.randn(nb, heads, generator=torch.Generator().manual_seed(p))
    pos = torch.arange(p + 1)
    full = t5_bias(table, pos, pos, bidirectional=bidirectional, max_distance=md)  # (heads, p+1, p+1)
    q_cached = query_positions(1, p + 1, align="end")
    assert q_cached.tolist() == [p]
    row = t5_bias(table, q_cached, pos, bidirectional=bidirectional, max_distance=md)  # (heads, 1, p+1)
    assert row.shape == (heads, 1, p + 1)
    assert torch.equal(row, full[:, -1:, :])


def test_forgetting_the_cache_offset_gives_a_different_row():
    table = torch.randn(32, 2, generator=torch.Generator().manual_seed(1))
    pos = torch.arange(20)
    full = t5_bias(table, pos, pos, bidirectional=False, max_distance=128)
    wrong = t5_bias(table, torch.tensor([0]), pos, bidirectional=False, max_distance=128)
    assert not torch.equal(wrong, full[:, -1:, :])


@settings(max_examples=50, deadline=None)
@given(t5_configs(max_buckets=64, far=300), st.integers(1, 4), positions(), positions())
def test_seed_transpose_is_the_bias_with_query_and_key_swapped(config, heads, q_pos, k_pos):
    bidirectional, nb, md = config
    table = torch.randn(nb, heads, generator=torch.Generator().manual_seed(nb))
    kwargs = dict(bidirectional=bidirectional, max_distance=md)
    bias = t5_bias(table, q_pos, k_pos, **kwargs)
    seed = t5_bias_seed_transpose(table, q_pos, k_pos, **kwargs)
    assert seed.shape == (heads, len(k_pos), len(q_pos))
    assert torch.equal(seed, bias.transpose(-1, -2))


def test_seed_transpose_square_looks_right_but_is_the_opposite_direction():
    table = torch.randn(32, 4, generator=torch.Generator().manual_seed(7))
    pos = torch.arange(12)
    bias = t5_bias(table, pos, pos, bidirectional=True, max_distance=128)
    seed = t5_bias_seed_transpose(table, pos, pos, bidirectional=True, max_distance=128)
    assert seed.shape == bias.shape == (4, 12, 12)
    assert torch.equal(seed, bias.transpose(1, 2))
    assert not torch.equal(seed, bias)
    # read as (heads, i, j) it holds bucket(i - j), the other direction
    flipped = t5_bucket(pos[:, None] - pos[None, :], bidirectional=True, num_buckets=32, max_distance=128)
    assert torch.equal(seed, table[flipped].permute(2, 0, 1))


def test_unused_buckets_say_why():
    ranges = t5_bucket_ranges(bidirectional=True, num_buckets=33, max_distance=128)
    unused = {r.bucket: r.why for r in ranges if r.kind == "unused"}
    assert set(unused) == {16, 32}
    assert "distance 0" in unused[16]
    assert "odd" in unused[32]
    skipped = t5_bucket_ranges(bidirectional=True, num_buckets=64, max_distance=17)
    assert any("jump over" in r.why for r in skipped if r.kind == "unused")
    assert all(r.why == "" for r in ranges if r.kind != "unused")


# --- facts the pages print ---------------------------------------------------------------------------------

from posviz.encodings.t5 import t5_permutation_outputs, t5_saturation  # noqa: E402


def test_saturation_is_where_the_last_bucket_starts():
    assert t5_saturation(bidirectional=True, num_buckets=32, max_distance=128) == 91
    for bidirectional in (True, False):
        n = t5_saturation(bidirectional=bidirectional, num_buckets=16, max_distance=64)
        kw = dict(bidirectional=bidirectional, num_buckets=16, max_distance=64)
        assert bucket_of(-n, **kw) == bucket_of(-10_000, **kw) != bucket_of(-(n - 1), **kw)


def test_without_position_a_shuffle_only_permutes_the_outputs():
    words, shuffled, vocab = ("dog", "bites", "man"), ("man", "bites", "dog"), ("bites", "dog", "man")
    kw = dict(dim=4, seed=0)
    a = t5_permutation_outputs(words, vocab, with_bias=False, **kw)
    b = t5_permutation_outputs(shuffled, vocab, with_bias=False, **kw)
    assert torch.allclose(a, b[[2, 1, 0]], atol=1e-6)  # each word's output is its own, in any order
    a = t5_permutation_outputs(words, vocab, with_bias=True, **kw)
    b = t5_permutation_outputs(shuffled, vocab, with_bias=True, **kw)
    assert not torch.allclose(a, b[[2, 1, 0]], atol=1e-3)  # the bias tells the orders apart


# --- the page's toy table, pooled bias and toy attention ------------------------------------------------


def test_toy_table_is_nn_embedding_init_from_the_seed():
    want = torch.nn.Embedding(16, 3)
    torch.nn.init.normal_(want.weight, generator=torch.Generator().manual_seed(5))  # what nn.Embedding does
    assert torch.equal(t5_toy_table(16, 3, seed=5), want.weight.detach())
    assert not torch.equal(t5_toy_table(16, 3, seed=5), t5_toy_table(16, 3, seed=6))


def test_seed_transpose_scales_like_the_bias():
    table = torch.randn(32, 2, generator=torch.Generator().manual_seed(3))
    pos = torch.arange(9)
    kw = dict(bidirectional=False, max_distance=20)
    scaled = t5_bias_seed_transpose(table, pos, pos, scale=-0.75, **kw)
    assert torch.equal(scaled, t5_bias_seed_transpose(table, pos, pos, **kw) * -0.75)
    assert torch.equal(scaled, t5_bias(table, pos, pos, scale=-0.75, **kw).transpose(1, 2))


@pytest.mark.parametrize("bidirectional", [True, False])
def test_bias_block_means_are_the_means_of_each_block(bidirectional):
    table = torch.randn(16, 3, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    q_pos, k_pos = torch.tensor([3, 5, 9, 10, 16]), torch.tensor([0, 4, 7, 8, 20])  # blocks of 1 to 12 positions
    full = t5_bias(table, torch.arange(30), torch.arange(30), bidirectional=bidirectional, max_distance=12, scale=2.0)
    got = t5_bias_block_means(table, q_pos, k_pos, bidirectional=bidirectional, max_distance=12, scale=2.0)
    qe, ke = [*q_pos.tolist(), 17], [*k_pos.tolist(), 21]  # the last position stands for itself
    assert got.shape == (3, 5, 5) and got.dtype == torch.float64
    for a in range(5):
        for b in range(5):
            want = full[:, qe[a] : qe[a + 1], ke[b] : ke[b + 1]].mean(dim=(1, 2))
            torch.testing.assert_close(got[:, a, b], want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("bidirectional", "align"), [(True, "start"), (False, "end"), (True, "end")])
def test_toy_attention_is_a_softmax_over_every_key(bidirectional, align):
    q_len, k_len, dim, seed = 7, 12, 4, 9
    table = torch.randn(8, 1, generator=torch.Generator().manual_seed(1))
    q_pos, k_pos = query_positions(q_len, k_len, align=align)[[0, 3, 6]], torch.tensor([0, 2, 5, 11])
    without, with_bias = t5_toy_attention(
        table, q_len=q_len, k_len=k_len, align=align, q_pos=q_pos, k_pos=k_pos, dim=dim, seed=seed,
        bidirectional=bidirectional, max_distance=6, scale=1.5,
    )  # fmt: skip
    g = torch.Generator().manual_seed(seed + 1)
    q, k = torch.randn(q_len, dim, generator=g), torch.randn(k_len, dim, generator=g)
    every_q = query_positions(q_len, k_len, align=align)
    logits = q @ k.T / math.sqrt(dim)  # (q_len, k_len)
    if not bidirectional:
        logits = logits.masked_fill(torch.arange(k_len)[None, :] > every_q[:, None], float("-inf"))
    bias = t5_bias(table, every_q, torch.arange(k_len), bidirectional=bidirectional, max_distance=6, scale=1.5)[0]
    rows = torch.tensor([0, 3, 6])
    torch.testing.assert_close(without, torch.softmax(logits, -1)[rows][:, k_pos], rtol=1e-5, atol=1e-7)
    torch.testing.assert_close(with_bias, torch.softmax(logits + bias, -1)[rows][:, k_pos], rtol=1e-5, atol=1e-7)
    assert not torch.allclose(without, with_bias)


def test_the_garbage_value_is_what_long_of_minus_inf_gives():
    from posviz.encodings.t5 import t5_garbage_value

    assert t5_garbage_value(8) == torch.tensor([float("-inf")]).long().item() + 8


@pytest.mark.parametrize("bidirectional", [True, False])
def test_the_last_exact_distance_is_the_last_bucket_of_its_own(bidirectional):
    from posviz.encodings.t5 import t5_last_exact

    last = t5_last_exact(32, bidirectional=bidirectional)
    r = -torch.arange(0, 4 * (last + 1))  # keys before the query
    b = t5_bucket(r, bidirectional=bidirectional, num_buckets=32, max_distance=128)
    assert b[: last + 1].tolist() == list(range(last + 1))  # one bucket per distance up to last
    assert len(set(b[last + 1 :].tolist())) < len(b) - last - 1  # past it, distances share buckets

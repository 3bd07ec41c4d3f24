"""Sinusoidal absolute positions against the paper's formula, in both layouts."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.encodings.rope import rope_inv_freq, rope_rotation_matrix
from posviz.encodings.sinusoidal import (
    concat_permutation,
    learned_table,
    sinusoidal_inv_freq,
    sinusoidal_similarity,
    sinusoidal_table,
    sinusoidal_wavelengths,
)


def naive_table(positions: list[int], dim: int, base: float, layout: str) -> torch.Tensor:
    """The paper's formula one cell at a time: PE(p, 2k) = sin(p / base^(2k/d)), PE(p, 2k+1) = cos(...)."""
    out = torch.zeros(len(positions), dim, dtype=torch.float64)
    for row, p in enumerate(positions):
        for k in range(dim // 2):
            angle = p / base ** (2 * k / dim)
            if layout == "interleaved":
                out[row, 2 * k], out[row, 2 * k + 1] = math.sin(angle), math.cos(angle)
            else:
                out[row, k], out[row, dim // 2 + k] = math.sin(angle), math.cos(angle)
    return out


@pytest.mark.parametrize("layout", ["interleaved", "concat"])
@pytest.mark.parametrize(("dim", "base"), [(2, 10000.0), (8, 10000.0), (64, 10000.0), (16, 500.0)])
def test_table_matches_the_paper(layout, dim, base):
    positions = [0, 1, 2, 7, 100, 4095, 131071]
    got = sinusoidal_table(torch.tensor(positions), dim, base=base, layout=layout, dtype=torch.float64)
    torch.testing.assert_close(got, naive_table(positions, dim, base, layout), rtol=0, atol=1e-10)


def test_published_values_d4():
    # the seed notebook's d_model = 4 rows: pos 1 is [sin 1, cos 1, sin(1/100), cos(1/100)]
    got = sinusoidal_table(torch.tensor([0, 1]), 4, dtype=torch.float64)
    want = torch.tensor([[0.0, 1.0, 0.0, 1.0], [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)]])
    torch.testing.assert_close(got, want.double())


def test_default_dtype_is_float32():
    assert sinusoidal_table(torch.arange(3), 8).dtype == torch.float32


@pytest.mark.parametrize("dim", [2, 4, 10, 64, 512])
def test_layout_permutation(dim):
    pos = torch.arange(50)
    inter = sinusoidal_table(pos, dim)
    concat = sinusoidal_table(pos, dim, layout="concat")
    perm = concat_permutation(dim)
    assert torch.equal(concat, inter[:, perm])
    assert torch.equal(inter, concat[:, torch.argsort(perm)])
    assert sorted(perm.tolist()) == list(range(dim))


@settings(max_examples=60, deadline=None)
@given(
    p=st.integers(0, 10**6),
    dim=st.integers(1, 128).map(lambda h: 2 * h),
    base=st.floats(2.0, 1e6),
    layout=st.sampled_from(["interleaved", "concat"]),
)
def test_norm_is_sqrt_half_dim(p, dim, base, layout):
    row = sinusoidal_table(torch.tensor([p]), dim, base=base, layout=layout, dtype=torch.float64)[0]
    assert math.isclose(float(row.norm()), math.sqrt(dim / 2), rel_tol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    p=st.integers(0, 100_000),
    q=st.integers(0, 100_000),
    r=st.integers(-5000, 5000),
    dim=st.integers(1, 64).map(lambda h: 2 * h),
    layout=st.sampled_from(["interleaved", "concat"]),
)
def test_similarity_depends_on_distance_only(p, q, r, dim, layout):
    p2, q2 = p + abs(r), q + abs(r)
    pe = sinusoidal_table(torch.tensor([p, p2, q, q2]), dim, layout=layout, dtype=torch.float64)
    one, two = float(pe[0] @ pe[1]), float(pe[2] @ pe[3])
    assert math.isclose(one, two, abs_tol=1e-9)
    closed = float(sinusoidal_similarity(torch.tensor([abs(r)]), dim)[0])
    assert math.isclose(one, closed, abs_tol=1e-9)


def test_similarity_is_even_and_peaks_at_zero():
    r = torch.arange(-300, 301)
    sim = sinusoidal_similarity(r, 64)
    torch.testing.assert_close(sim, sim.flip(0))
    assert float(sim[300]) == 32.0
    assert int(sim.argmax()) == 300


def test_frequencies_and_wavelengths():
    inv = sinusoidal_inv_freq(8, base=10000.0)
    torch.testing.assert_close(inv, torch.tensor([1.0, 0.1, 0.01, 0.001], dtype=torch.float64))
    torch.testing.assert_close(sinusoidal_wavelengths(8), 2 * math.pi / inv)


def test_learned_table_is_seeded_and_bert_sized():
    t1 = learned_table(512, 64, generator=torch.Generator().manual_seed(3))
    t2 = learned_table(512, 64, generator=torch.Generator().manual_seed(3))
    assert torch.equal(t1, t2) and t1.shape == (512, 64) and t1.dtype == torch.float32
    assert 0.018 < float(t1.std()) < 0.022


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(dim=7), "even"),
        (dict(dim=0), "even"),
        (dict(dim=8, base=1.0), "greater than 1"),
        (dict(dim=8, base=float("nan")), "finite"),
        (dict(dim=8, layout="half"), "layout"),
    ],
)
def test_bad_arguments_are_explained(kwargs, message):
    with pytest.raises(ValueError, match=message):
        sinusoidal_table(torch.arange(4), **kwargs)


def test_positions_must_be_1d():
    with pytest.raises(ValueError, match="1-D"):
        sinusoidal_table(torch.zeros(2, 2), 4)


def test_sinusoidal_and_rope_share_their_checks():
    """One validator each (posviz.encodings.checks): the same rule and sentence from both schemes."""
    for call in (sinusoidal_inv_freq, rope_inv_freq):
        with pytest.raises(ValueError, match="even whole number") as odd:
            call(7)
        with pytest.raises(ValueError, match="even whole number"):
            call(True)  # a bool is not a dimension
        with pytest.raises(ValueError, match="greater than 1") as low:
            call(8, base=1.0)
        assert "got 7" in str(odd.value) and "got 1.0" in str(low.value)
        assert call(np.int64(8)).shape == (4,)  # a numpy whole number is one
    with pytest.raises(ValueError, match=r"layout must be one of \('interleaved', 'concat'\)"):
        sinusoidal_table(torch.arange(2), 8, layout="half")
    with pytest.raises(ValueError, match=r"layout must be one of \('interleaved', 'half'\)"):
        rope_rotation_matrix(1, 8, layout="concat")


def test_measured_similarity_equals_the_closed_form_and_stops_at_the_end():
    from posviz.encodings.sinusoidal import sinusoidal_similarity_from

    r = torch.tensor([0, 1, 5, 40, 90])
    for layout in ("interleaved", "concat"):
        got = sinusoidal_similarity_from(7, r, 16, base=100.0, layout=layout, length=60)
        closed = sinusoidal_similarity(r, 16, base=100.0)
        assert torch.allclose(got[:4], closed[:4], atol=1e-9)
        assert torch.isnan(got[4])  # 7 + 90 is past a 60-token sequence


@pytest.mark.parametrize("layout", ["interleaved", "concat"])
@pytest.mark.parametrize(("dim", "base"), [(2, 10000.0), (8, 10000.0), (64, 500000.0), (16, 500.0)])
def test_component_wavelengths_are_the_period_of_each_column(layout, dim, base):
    """Each column of the table repeats after its wavelength: PE(p + λ) = PE(p) for every p (checked at
    non-integer p: the wavelength is not a whole number of tokens)."""
    from posviz.encodings.sinusoidal import sinusoidal_component_wavelengths

    comps = torch.arange(dim)
    got = sinusoidal_component_wavelengths(comps, dim, base=base, layout=layout)
    assert got.shape == (dim,) and got.dtype == torch.float64
    p = torch.tensor([0.0, 0.5, 3.0, 17.25], dtype=torch.float64)
    for c, lam in zip(comps.tolist(), got.tolist(), strict=True):
        start = sinusoidal_table(p, dim, base=base, layout=layout, dtype=torch.float64)[:, c]
        shifted = sinusoidal_table(p + lam, dim, base=base, layout=layout, dtype=torch.float64)[:, c]
        torch.testing.assert_close(shifted, start, rtol=0, atol=1e-9 * max(lam, 1.0))
    pair = comps // 2 if layout == "interleaved" else comps % (dim // 2)  # each column's pair, by hand
    torch.testing.assert_close(got, sinusoidal_wavelengths(dim, base=base)[pair], rtol=1e-13, atol=0)
    with pytest.raises(ValueError, match="layout"):
        sinusoidal_component_wavelengths(comps, dim, base=base, layout="half")


@pytest.mark.parametrize("length", [1, 6, 7, 62, 63, 629, 630, 10**9])
def test_unfinished_pairs_count_wavelengths_past_the_length(length):
    from posviz.encodings.sinusoidal import sinusoidal_unfinished_pairs

    periods = [2 * math.pi * 10.0 ** (2 * k / 8) for k in range(4)]  # 6.28, 62.8, 628, 6283 tokens
    assert sinusoidal_unfinished_pairs(length, 8, base=10.0) == sum(lam > length for lam in periods)


def test_profile_gap_is_float_rounding_and_zero_with_nothing_to_measure():
    from posviz.encodings.sinusoidal import sinusoidal_profile_gap, sinusoidal_similarity_from

    r = torch.arange(1, 200)
    for layout in ("interleaved", "concat"):
        gap = sinusoidal_profile_gap((0, 33), r, 64, base=10000.0, layout=layout, length=100)
        closed = sinusoidal_similarity(r, 64)
        want = max(
            float(np.nanmax(np.abs((sinusoidal_similarity_from(p, r, 64, layout=layout, length=100) - closed).numpy())))
            for p in (0, 33)
        )
        assert gap == want and 0 < gap < 1e-11  # some rounding, no more
    assert sinusoidal_profile_gap((5,), r, 8, length=3) == 0.0  # start past the sequence: nothing measured

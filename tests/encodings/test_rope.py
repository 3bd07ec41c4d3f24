"""RoPE: complex-number and rotate_half oracles, the seed's values, properties, and every
scaling method against values derived by hand from the published formulas."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.encodings.rope import (
    LAYOUTS,
    apply_rope,
    freqs_cis,
    layout_permutation,
    rope_angles,
    rope_decay_bound,
    rope_inv_freq,
    rope_rotation_matrix,
    rope_scores,
)
from posviz.encodings.rope_scaling import rope_scaling, yarn_correction_range

dims = st.integers(1, 32).map(lambda h: 2 * h)
bases = st.sampled_from([2.0, 100.0, 10000.0, 500000.0, 1e6])
layouts = st.sampled_from(LAYOUTS)
positions = st.integers(0, 100_000)


# --- two independent references ------------------------------------------------------------------


def meta_apply_rotary_emb(x: torch.Tensor, pos: torch.Tensor, base: float) -> torch.Tensor:
    """Meta LLaMA: ``precompute_freqs_cis`` and ``apply_rotary_emb``, pairs as complex numbers."""
    dim = x.shape[-1]
    freqs = 1.0 / (base ** (torch.arange(0, dim, 2)[: dim // 2].double() / dim))
    cis = torch.polar(torch.ones(len(pos), dim // 2, dtype=torch.float64), torch.outer(pos.double(), freqs))
    xc = torch.view_as_complex(x.double().reshape(*x.shape[:-1], -1, 2))  # (..., seq, dim/2)
    return torch.view_as_real(xc * cis).flatten(-2)


def hf_rotate_half_rope(x: torch.Tensor, pos: torch.Tensor, base: float) -> torch.Tensor:
    """Hugging Face / GPT-NeoX: ``q * cos + rotate_half(q) * sin`` with ``emb = cat(freqs, freqs)``."""
    dim = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).double() / dim))
    freqs = pos.double()[:, None] * inv_freq[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)  # (seq, dim)
    x1, x2 = x[..., : dim // 2], x[..., dim // 2 :]
    rotated = torch.cat((-x2, x1), dim=-1)
    return x.double() * emb.cos() + rotated.double() * emb.sin()


def naive_rotation_matrix(position: int, dim: int, base: float, layout: str) -> torch.Tensor:
    """A loop over 2 x 2 blocks, as the seed's block matrices ``R_12 R_34 ...``."""
    out = torch.eye(dim, dtype=torch.float64)
    for k in range(dim // 2):
        angle = position * base ** (-2 * k / dim)
        i, j = (2 * k, 2 * k + 1) if layout == "interleaved" else (k, k + dim // 2)
        block = torch.eye(dim, dtype=torch.float64)
        block[i, i], block[i, j], block[j, i], block[j, j] = (
            math.cos(angle),
            -math.sin(angle),
            math.sin(angle),
            math.cos(angle),
        )
        out = out @ block
    return out


def test_seed_freqs_cis_values():
    # Seed 004: precompute_freqs_cis(dim=4, end=3), printed to 4 decimals.
    cis = freqs_cis(torch.arange(3), rope_inv_freq(4))
    expected = torch.tensor(
        [[1 + 0j, 1 + 0j], [0.5403 + 0.8415j, 0.9999 + 0.0100j], [-0.4161 + 0.9093j, 0.9998 + 0.0200j]],
        dtype=torch.complex128,
    )
    assert torch.allclose(cis, expected, atol=1e-4)


def test_inv_freq_formula():
    inv = rope_inv_freq(8, base=10000.0)
    assert torch.allclose(inv, torch.tensor([1.0, 0.1, 0.01, 0.001], dtype=torch.float64), rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(dims, bases, st.integers(1, 6), st.integers(0, 2**31 - 1))
def test_apply_rope_matches_complex_and_rotate_half(dim, base, seq, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(2, seq, dim, generator=g, dtype=torch.float64)
    pos = torch.randint(0, 50_000, (seq,), generator=g)
    meta = meta_apply_rotary_emb(x, pos, base)
    hf = hf_rotate_half_rope(x, pos, base)
    assert torch.allclose(apply_rope(x, pos, base=base, layout="interleaved"), meta, atol=1e-9)
    assert torch.allclose(apply_rope(x, pos, base=base, layout="half"), hf, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(dims, bases, positions, layouts)
def test_rotation_matrix_matches_naive_blocks_and_apply_rope(dim, base, m, layout):
    rot = rope_rotation_matrix(m, dim, base=base, layout=layout, dtype=torch.float64)
    assert torch.allclose(rot, naive_rotation_matrix(m, dim, base, layout), atol=1e-9)
    x = torch.randn(3, dim, dtype=torch.float64, generator=torch.Generator().manual_seed(m))
    rotated = apply_rope(x, torch.full((3,), m), base=base, layout=layout)
    assert torch.allclose(rotated, x @ rot.T, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(dims, bases, st.lists(positions, min_size=1, max_size=5))
def test_layout_permutation_identity(dim, base, pos):
    perm = layout_permutation(dim)
    x = torch.randn(len(pos), dim, dtype=torch.float64, generator=torch.Generator().manual_seed(dim))
    p = torch.tensor(pos)
    half = apply_rope(x[:, perm], p, base=base, layout="half")
    assert torch.allclose(half, apply_rope(x, p, base=base, layout="interleaved")[:, perm], atol=1e-9)
    # and for the matrices: R_half = P R_interleaved P^T
    eye = torch.eye(dim, dtype=torch.float64)[perm]  # (dim, dim) permutation matrix
    r_int = rope_rotation_matrix(pos[0], dim, base=base, dtype=torch.float64)
    r_half = rope_rotation_matrix(pos[0], dim, base=base, layout="half", dtype=torch.float64)
    assert torch.allclose(r_half, eye @ r_int @ eye.T, atol=1e-12)


def test_layout_permutation_values():
    assert layout_permutation(8).tolist() == [0, 2, 4, 6, 1, 3, 5, 7]


@settings(max_examples=80, deadline=None)
@given(dims, bases, positions, positions, layouts)
def test_orthogonal_relative_and_identity_at_zero(dim, base, m, n, layout):
    kw = dict(base=base, layout=layout, dtype=torch.float64)
    r_m, r_n = rope_rotation_matrix(m, dim, **kw), rope_rotation_matrix(n, dim, **kw)
    eye = torch.eye(dim, dtype=torch.float64)
    assert torch.allclose(r_m.T @ r_m, eye, atol=1e-12)
    assert torch.equal(rope_rotation_matrix(0, dim, **kw), eye)
    # R_m^T R_n = R_{n-m}: the angles are exact in float64, so this holds to rounding
    assert torch.allclose(r_m.T @ r_n, rope_rotation_matrix(n - m, dim, **kw), atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(dims, bases, positions, positions, st.integers(0, 100_000), layouts, st.integers(0, 2**31 - 1))
def test_norms_kept_and_scores_shift_invariant(dim, base, m, n, t, layout, seed):
    g = torch.Generator().manual_seed(seed)
    q, k = torch.randn(dim, generator=g, dtype=torch.float64), torch.randn(dim, generator=g, dtype=torch.float64)
    kw = dict(base=base, layout=layout)

    def score(a: int, b: int) -> float:
        return float(apply_rope(q[None], torch.tensor([a]), **kw)[0] @ apply_rope(k[None], torch.tensor([b]), **kw)[0])

    rq = apply_rope(q[None], torch.tensor([m]), **kw)[0]
    assert math.isclose(float(rq.norm()), float(q.norm()), rel_tol=1e-12)
    assert math.isclose(score(m, n), score(m + t, n + t), rel_tol=1e-9, abs_tol=1e-9)


def test_float32_input_keeps_dtype_and_far_phases_exact():
    x = torch.ones(1, 4)
    far = torch.tensor([2**24 + 1])  # float32 cannot hold this position exactly
    out = apply_rope(x, far)
    assert out.dtype == torch.float32
    angle = (2**24 + 1) % (2 * math.pi)
    assert math.isclose(float(out[0, 0]), math.cos(angle) - math.sin(angle), abs_tol=1e-6)


def test_rope_scores_equal_rotated_dot_products():
    g = torch.Generator().manual_seed(1)
    q, k = torch.randn(3, 16, generator=g), torch.randn(3, 16, generator=g)
    r = torch.tensor([0, 1, 7, 300, 5000])
    inv = rope_inv_freq(16)
    got = rope_scores(q, k, r, inv)
    for b in range(3):
        for i, dist in enumerate(r.tolist()):
            rotated_k = apply_rope(k[b : b + 1].double(), torch.tensor([dist]))[0]
            assert math.isclose(float(got[b, i]), float(q[b].double() @ rotated_k), rel_tol=1e-9, abs_tol=1e-9)


def test_decay_bound_naive_loop_and_not_monotone():
    dim = 32
    inv = rope_inv_freq(dim)
    r = torch.arange(0, 400)
    bound = rope_decay_bound(r, inv)
    for dist in (0, 1, 5, 77, 399):
        partial, total = 0j, 0.0
        for k in range(dim // 2):
            partial += complex(math.cos(dist * float(inv[k])), math.sin(dist * float(inv[k])))  # S_{k+1}
            total += abs(partial)
        assert math.isclose(float(bound[dist]), total / (dim // 2), rel_tol=1e-9)
    assert math.isclose(float(bound[0]), (dim // 2 + 1) / 2)
    assert float(bound[-1]) < float(bound[0]) / 2  # it falls ...
    assert bool((bound.diff() > 0).any())  # ... but not monotonically


def test_angles_outer_product():
    angles = rope_angles(torch.tensor([0, 3]), torch.tensor([1.0, 0.5]))
    assert angles.tolist() == [[0.0, 0.0], [3.0, 1.5]]


# --- invalid arguments ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: rope_inv_freq(7), "even"),
        (lambda: rope_inv_freq(0), "even"),
        (lambda: rope_inv_freq(8, base=1.0), "greater than 1"),
        (lambda: rope_inv_freq(8, base=float("nan")), "greater than 1"),
        (lambda: rope_rotation_matrix(1, 8, layout="concat"), "layout"),
        (lambda: apply_rope(torch.ones(2, 8), torch.arange(3)), "one entry per row"),
        (lambda: rope_rotation_matrix(1, 8, inv_freq=torch.ones(3)), "dim / 2 = 4"),
        (lambda: rope_scaling("ntk", 8), "method"),
        (lambda: rope_scaling("linear", 8, factor=0.5), "at least 1"),
        (lambda: rope_scaling("linear", 8, factor=2.0, beta_fast=3), "no option beta_fast"),
        (lambda: rope_scaling("dynamic", 2, factor=2.0), "dim >= 4"),
        (lambda: rope_scaling("yarn", 8, factor=2.0, beta_fast=1.0, beta_slow=4.0), "at least beta_slow"),
        (lambda: rope_scaling("llama3", 8, factor=2.0, low_freq_factor=4.0, high_freq_factor=4.0), "low_freq"),
        (lambda: rope_scaling("yarn", 8, factor=2.0, original_max_position=0), "positive"),
    ],
)
def test_invalid_arguments_are_refused(call, words):
    with pytest.raises(ValueError, match=words):
        call()


# --- scaling, against the published formulas -------------------------------------------------------


def test_default_and_linear():
    inv, att = rope_scaling("default", 64, base=10000.0)
    assert torch.equal(inv, rope_inv_freq(64)) and att == 1.0
    lin, att = rope_scaling("linear", 64, base=10000.0, factor=4.0, original_max_position=2048)
    assert torch.allclose(lin, rope_inv_freq(64) / 4) and att == 1.0


@settings(max_examples=40, deadline=None)
@given(dims, bases, st.floats(1.0, 64.0), st.integers(0, 10**6))
def test_linear_equals_positions_divided_by_factor(dim, base, factor, m):
    # Position interpolation: position m under linear scaling is position m / factor unscaled.
    lin, _ = rope_scaling("linear", dim, base=base, factor=factor, original_max_position=4096)
    x = torch.randn(1, dim, dtype=torch.float64, generator=torch.Generator().manual_seed(m))
    scaled = apply_rope(x, torch.tensor([m]), inv_freq=lin)
    direct = x @ rope_rotation_matrix(m / factor, dim, base=base, dtype=torch.float64).T
    assert torch.allclose(scaled, direct, atol=1e-9)


@pytest.mark.parametrize("seq_len", [None, 1, 100, 2047, 2048])
def test_dynamic_unchanged_within_the_original_context(seq_len):
    inv, att = rope_scaling("dynamic", 64, base=10000.0, factor=8.0, original_max_position=2048, seq_len=seq_len)
    assert torch.equal(inv, rope_inv_freq(64)) and att == 1.0


def test_dynamic_hand_value():
    # dim 4, base 1e4, factor 2, L 100, s 300: base' = 1e4 * (2 * 3 - 1) ** (4 / 2) = 250000,
    # inv_freq = [1, 250000 ** -0.5] = [1, 0.002].
    inv, _ = rope_scaling("dynamic", 4, base=10000.0, factor=2.0, original_max_position=100, seq_len=300)
    assert torch.allclose(inv, torch.tensor([1.0, 0.002], dtype=torch.float64), rtol=1e-12)


def test_dynamic_grows_base_with_length():
    kw = dict(base=10000.0, factor=4.0, original_max_position=1000)
    slow = [float(rope_scaling("dynamic", 64, seq_len=s, **kw)[0][-1]) for s in (1000, 2000, 8000)]
    assert slow[0] > slow[1] > slow[2]


def yarn_by_hand(dim, base, factor, big_l, beta_fast=32.0, beta_slow=1.0, truncate=True):
    """The YaRN paper's ramp, pair by pair (Peng et al. 2023, eq. 17-18, Hugging Face clamping)."""
    d = lambda turns: dim * math.log(big_l / (turns * 2 * math.pi)) / (2 * math.log(base))  # noqa: E731
    low, high = d(beta_fast), d(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    out = []
    for k in range(dim // 2):
        theta = base ** (-2 * k / dim)
        gamma = 1 - min(max((k - low) / (high - low), 0.0), 1.0)  # 1: keep, 0: interpolate
        out.append(theta / factor * (1 - gamma) + theta * gamma)
    return torch.tensor(out, dtype=torch.float64)


def test_yarn_hand_values_and_correction_range():
    # dim 128, base 1e4, L 4096: d(32) = 128 ln(4096 / 64 pi) / (2 ln 1e4) = 20.9 -> 20,
    # d(1) = 128 ln(4096 / 2 pi) / (2 ln 1e4) = 45.03 -> 46.
    assert yarn_correction_range(
        128, base=1e4, original_max_position=4096, beta_fast=32, beta_slow=1, truncate=True
    ) == (
        20,
        46,
    )
    inv, att = rope_scaling("yarn", 128, base=1e4, factor=4.0, original_max_position=4096)
    default = rope_inv_freq(128)
    assert torch.allclose(inv, yarn_by_hand(128, 1e4, 4.0, 4096), rtol=1e-12)
    assert torch.equal(inv[:21], default[:21])  # fast pairs: unchanged
    assert torch.allclose(inv[46:], default[46:] / 4, rtol=1e-12)  # slow pairs: interpolated
    assert math.isclose(float(inv[33] / default[33]), 1 - (33 - 20) / 26 * 0.75, rel_tol=1e-12)
    assert math.isclose(att, 0.1 * math.log(4.0) + 1)  # 1.1386


def test_yarn_options():
    kw = dict(base=1e4, factor=4.0, original_max_position=4096)
    inv, _ = rope_scaling("yarn", 128, truncate=False, beta_fast=16.0, beta_slow=2.0, **kw)
    assert torch.allclose(inv, yarn_by_hand(128, 1e4, 4.0, 4096, 16.0, 2.0, truncate=False), rtol=1e-12)
    _, att = rope_scaling("yarn", 128, attention_factor=0.5, **kw)
    assert att == 0.5
    _, att = rope_scaling("yarn", 128, mscale=1.0, mscale_all_dim=1.0, **kw)  # DeepSeek-V3
    assert att == 1.0
    _, att = rope_scaling("yarn", 128, mscale=0.707, mscale_all_dim=1.0, **kw)
    assert math.isclose(att, (0.1 * 0.707 * math.log(4) + 1) / (0.1 * math.log(4) + 1))
    _, att = rope_scaling("yarn", 128, mscale=1.0, mscale_all_dim=None, **kw)  # one unset: the plain formula
    assert math.isclose(att, 0.1 * math.log(4) + 1)
    _, att = rope_scaling("yarn", 128, base=1e4, factor=1.0, original_max_position=4096)
    assert att == 1.0


def meta_llama3_apply_scaling(freqs, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, old_context_len=8192):
    """Meta's ``apply_scaling`` (llama-models, Llama 3.1), a loop over frequencies."""
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    new = []
    for freq in freqs.tolist():
        wavelen = 2 * math.pi / freq
        if wavelen < high_freq_wavelen:
            new.append(freq)
        elif wavelen > low_freq_wavelen:
            new.append(freq / factor)
        else:
            smooth = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
            new.append((1 - smooth) * freq / factor + smooth * freq)
    return torch.tensor(new, dtype=torch.float64)


@pytest.mark.parametrize(
    "dim, base, factor, low, high, big_l", [(128, 500000.0, 8.0, 1.0, 4.0, 8192), (64, 1e4, 4.0, 2.0, 8.0, 512)]
)
def test_llama3_matches_meta_loop(dim, base, factor, low, high, big_l):
    inv, att = rope_scaling(
        "llama3",
        dim,
        base=base,
        factor=factor,
        original_max_position=big_l,
        low_freq_factor=low,
        high_freq_factor=high,
    )
    default = rope_inv_freq(dim, base=base)
    assert torch.allclose(inv, meta_llama3_apply_scaling(default, factor, low, high, big_l), rtol=1e-12)
    assert att == 1.0
    wavelen = 2 * math.pi / default
    short, long = wavelen < big_l / high, wavelen > big_l / low
    assert short.any() and long.any()
    assert torch.equal(inv[short], default[short])  # high frequencies left alone
    assert torch.allclose(inv[long], default[long] / factor)  # low ones divided by factor
    middle = ~short & ~long
    assert bool(((inv[middle] <= default[middle]) & (inv[middle] >= default[middle] / factor)).all())


# --- what the page measures, each against a second computation ------------------------------------------

from posviz.encodings.attention import attention_weights  # noqa: E402
from posviz.encodings.rope import (  # noqa: E402
    rope_at,
    rope_layout_gap,
    rope_mean_abs_scores,
    rope_relative_gap,
    rope_score,
    rope_score_grid,
    rope_shifted_scores,
    rope_toy_attention,
)


def _pair(dim: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(dim, generator=g, dtype=torch.float64), torch.randn(dim, generator=g, dtype=torch.float64)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_rope_at_is_the_rotation_matrix_per_position(layout):
    q, _ = _pair(8)
    inv = rope_inv_freq(8)
    got = rope_at(q, torch.tensor([0, 3, 50]), inv_freq=inv, layout=layout)
    for row, m in zip(got, (0, 3, 50), strict=True):
        want = rope_rotation_matrix(m, 8, layout=layout, inv_freq=inv, dtype=torch.float64) @ q
        assert torch.allclose(row, want, atol=1e-12)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_scores_depend_on_the_distance_only(layout):
    q, k = _pair(16, seed=3)
    inv = rope_inv_freq(16)
    grid = rope_score_grid(q, k, torch.arange(12), inv_freq=inv, layout=layout)  # (12, 12)
    for offset in range(-11, 12):
        diagonal = torch.diagonal(grid, offset)
        assert torch.allclose(diagonal, diagonal[0].expand_as(diagonal), atol=1e-9)  # Toeplitz
    score = rope_score(q, k, 2, 7, inv_freq=inv, layout=layout)
    assert score == pytest.approx(float(grid[2, 7]), abs=1e-12)
    shifted = rope_shifted_scores(q, k, 2, 7, torch.tensor([1, 10, 1000]), inv_freq=inv, layout=layout)
    assert torch.allclose(shifted, torch.full((3,), score, dtype=torch.float64), atol=1e-9)


def test_relative_and_layout_gaps_are_rounding():
    inv = rope_inv_freq(32)
    assert rope_relative_gap(3, 9, 32, inv_freq=inv, dtype=torch.float64) < 1e-12
    assert rope_relative_gap(3, 9, 32, inv_freq=inv, layout="half", dtype=torch.float64) < 1e-12
    assert 1e-9 < rope_relative_gap(10**6, 10**6 + 5, 32, inv_freq=inv, dtype=torch.float32) < 1e-1  # float32 drifts
    assert rope_layout_gap(123, 32, inv_freq=inv) < 1e-12


@pytest.mark.parametrize("layout", LAYOUTS)
def test_mean_abs_scores_equal_a_loop(layout):
    g = torch.Generator().manual_seed(5)
    qs, ks = torch.randn(6, 8, generator=g), torch.randn(6, 8, generator=g)
    inv, r = rope_inv_freq(8), torch.tensor([0, 1, 7, 300])
    got = rope_mean_abs_scores(qs, ks, r, inv_freq=inv, layout=layout)
    for value, dist in zip(got, r.tolist(), strict=True):
        rot = rope_rotation_matrix(dist, 8, layout=layout, inv_freq=inv, dtype=torch.float64)
        want = torch.stack([(q.double() @ rot @ k.double()).abs() for q, k in zip(qs, ks, strict=True)]).mean()
        assert float(value) == pytest.approx(float(want), rel=1e-9)


def test_toy_attention_panels():
    inv = rope_inv_freq(8)
    kw = dict(inv_freq=inv, layout="interleaved")
    w = rope_toy_attention(8, 5, attention_factor=1.0, generator=torch.Generator().manual_seed(0), **kw)
    assert w.shape == (3, 5, 5)
    assert torch.allclose(w.sum(-1), torch.ones(3, 5, dtype=torch.float64))
    assert torch.equal(w.triu(1), torch.zeros_like(w))  # causal: no weight on future keys
    uniform = torch.tril(torch.ones(5, 5, dtype=torch.float64)) / torch.arange(1, 6)[:, None]
    assert torch.allclose(w[0], uniform)  # the same token everywhere, no position: uniform over the past
    g = torch.Generator().manual_seed(0)
    token = torch.randn(8, generator=g).double().expand(5, 8)
    rotated = 1.5 * apply_rope(token, torch.arange(5), inv_freq=inv)
    scaled = rope_toy_attention(8, 5, attention_factor=1.5, generator=torch.Generator().manual_seed(0), **kw)
    assert torch.allclose(scaled[1], attention_weights(rotated, rotated, causal=True))

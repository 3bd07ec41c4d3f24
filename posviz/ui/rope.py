"""The RoPE page's settings and its cached backend calls (keyed by scalar settings)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st
import torch

from posviz.encodings.attention import attention_weights
from posviz.encodings.positions import display_positions
from posviz.encodings.rope import (
    LAYOUTS as ROPE_LAYOUTS,
)
from posviz.encodings.rope import (
    METHODS,
    apply_rope,
    freqs_cis,
    layout_permutation,
    rope_decay_bound,
    rope_inv_freq,
    rope_rotation_matrix,
    rope_scaling,
    rope_scores,
)
from posviz.ui.controls import control
from posviz.ui.rope_snippets import DECAY_SAMPLES, RopeSettings

CACHE = 32  # max entries per cached call; every entry is well under 1 MB
CIRCLE_PAIRS = 16  # pairs drawn on circles
CIS_POSITIONS, CIS_PAIRS = 8, 8  # the freqs_cis table
SCORE_LEN = 32  # positions of the (R_i q) . (R_j k) heatmap
SHIFT_POINTS = 40
DECAY_DENSE, DECAY_POINTS = 128, 480  # every distance up to 128, then log-spaced
ANGLE_POINTS = 400
TOY_LEN = 32

# Which options each method shows (and uses), in the Hugging Face order.
METHOD_CONTROLS = {
    "default": (),
    "linear": ("factor",),
    "dynamic": ("factor", "original_max_position"),
    "yarn": ("factor", "original_max_position", "beta_fast", "beta_slow", "mscale", "mscale_all_dim"),
    "llama3": ("factor", "original_max_position", "low_freq_factor", "high_freq_factor"),
}
YARN_TAIL = ("attention_factor", "truncate")


def rope_controls() -> RopeSettings:
    """The sidebar controls of the RoPE page, in reading order; hidden options keep their defaults."""
    defaults = RopeSettings()
    st.sidebar.subheader("Vectors and positions")
    values = dict(
        dim=control("dim", default=defaults.dim),
        base=control("base"),
        layout=control("layout", options=ROPE_LAYOUTS),
        m=control("m"),
        n=control("n"),
        seq_len=control("seq_len", default=defaults.seq_len),
        seed=control("seed"),
    )
    st.sidebar.subheader("Context extension")
    values["method"] = method = control("method")
    for key in METHOD_CONTROLS[method] + (YARN_TAIL if method == "yarn" else ()):
        values[key] = control(key)
    return RopeSettings(**values)


def rope_problem(s: RopeSettings) -> str | None:
    """The first rule the settings break, as a message; None if fine."""
    try:
        rope_scaling(
            s.method,
            s.dim,
            base=s.base,
            factor=s.factor,
            original_max_position=s.original_max_position,
            **s.options(),
        )
    except ValueError as err:
        return f"{err} Change the {s.method} settings in the sidebar."
    return None


def frequencies(s: RopeSettings, method: str | None = None) -> tuple[torch.Tensor, float]:
    """``(inv_freq (dim/2,) float64, attention_factor)`` of ``method`` (default: the chosen one)."""
    method = method or s.method
    return rope_scaling(
        method,
        s.dim,
        base=s.base,
        factor=s.factor,
        original_max_position=s.original_max_position,
        **s.options(method),
    )


def shown_pairs(dim: int, count: int) -> np.ndarray:
    """At most ``count`` pair indices, evenly spread, always the fastest (0) and the slowest."""
    return display_positions(dim // 2, count).numpy()


def angle_pairs(dim: int) -> list[int]:
    """Fast, middle and slow pair (fewer when dim is small)."""
    half = dim // 2
    return sorted({0, half // 2, half - 1})


def decay_distances(seq_len: int) -> np.ndarray:
    """Distances drawn by the decay curves: every one up to 128, then log-spaced up to ``seq_len - 1``."""
    last = max(seq_len - 1, 1)
    dense = np.arange(0, min(DECAY_DENSE, last) + 1)
    far = np.unique(np.round(np.geomspace(1, last, DECAY_POINTS)).astype(np.int64))
    return np.union1d(dense, far).astype(np.int64)


def angle_positions(seq_len: int) -> np.ndarray:
    """Positions of the angle curves: log-spaced from 1 to ``seq_len - 1`` (the axes are logarithmic)."""
    return np.unique(np.round(np.geomspace(1, max(seq_len - 1, 1), ANGLE_POINTS)).astype(np.int64))


def shift_values(seq_len: int) -> np.ndarray:
    return np.unique(np.round(np.geomspace(1, max(seq_len, 2), SHIFT_POINTS)).astype(np.int64))


def _qk(dim: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(dim, generator=g), torch.randn(dim, generator=g)


def _pair_components(dim: int, layout: str, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if layout == "interleaved":
        return 2 * pairs, 2 * pairs + 1
    return pairs, pairs + dim // 2


@dataclass(frozen=True)
class RopeView:
    """Everything on the page that is cheap: frequencies, matrices, pairs, the relative property."""

    default_inv_freq: np.ndarray  # (dim/2,) float64
    inv_freq: np.ndarray  # (dim/2,) float64, the chosen method
    attention_factor: float
    rotation: np.ndarray  # (dim, dim) float32, R_m in the chosen layout
    perm: np.ndarray  # (dim,) int64
    layout_gap: float  # max |R_half - P R_interleaved P^T|
    cis: pd.DataFrame  # freqs_cis of the first positions
    pairs: np.ndarray  # (p,) pair indices on circles
    at_zero: np.ndarray  # (p, 2) unit-length pairs at position 0
    at_m: np.ndarray
    at_n: np.ndarray
    score_pos: np.ndarray  # (SCORE_LEN,)
    scores: np.ndarray  # (SCORE_LEN, SCORE_LEN) float64
    score_mn: float  # (R_m q) . (R_n k)
    shifts: np.ndarray  # (t,)
    shifted: np.ndarray  # (t,) (R_{m+t} q) . (R_{n+t} k)
    gap32: float  # max |R_m^T R_n - R_{n-m}| with float32 matrices
    gap64: float  # the same in float64


def cis_frame(cis: torch.Tensor, pairs: np.ndarray) -> pd.DataFrame:
    """``freqs_cis`` rows as text ``a+bj`` (4 decimals, as the seed prints them)."""
    rows = {}
    for k in pairs:
        col = cis[:, int(k)]
        rows[f"pair {int(k)}"] = [f"{z.real:+.4f}{z.imag:+.4f}j" for z in col.tolist()]
    frame = pd.DataFrame(rows)
    frame.index.name = "position m"
    return frame


@st.cache_data(max_entries=CACHE, show_spinner=False)
def rope_view(s: RopeSettings) -> RopeView:
    dim, layout = s.dim, s.layout
    default = rope_inv_freq(dim, base=s.base)
    inv, att = frequencies(s)
    kw = dict(layout=layout, inv_freq=inv)
    rotation = rope_rotation_matrix(s.m, dim, dtype=torch.float32, **kw)
    perm = layout_permutation(dim)
    p = torch.eye(dim, dtype=torch.float64)[perm]
    r_int = rope_rotation_matrix(s.m, dim, inv_freq=inv, dtype=torch.float64)
    r_half = rope_rotation_matrix(s.m, dim, layout="half", inv_freq=inv, dtype=torch.float64)
    layout_gap = float((r_half - p @ r_int @ p.T).abs().max())
    cis = freqs_cis(torch.arange(CIS_POSITIONS), inv)
    pairs = shown_pairs(dim, CIRCLE_PAIRS)
    first, second = _pair_components(dim, layout, pairs)
    q, k = _qk(dim, s.seed)

    def pairs_at(pos: int) -> np.ndarray:
        x = apply_rope(q[None].double(), torch.tensor([pos]), **kw)[0].numpy()  # (dim,)
        xy = np.stack([x[first], x[second]], axis=-1)  # (p, 2)
        return xy / np.linalg.norm(xy, axis=-1, keepdims=True)

    pos = torch.arange(SCORE_LEN)
    rq = apply_rope(q.double().expand(SCORE_LEN, dim), pos, **kw)  # (P, dim)
    rk = apply_rope(k.double().expand(SCORE_LEN, dim), pos, **kw)
    shifts = shift_values(s.seq_len)
    t = torch.from_numpy(shifts)
    qs = apply_rope(q.double().expand(len(t), dim), s.m + t, **kw)
    ks = apply_rope(k.double().expand(len(t), dim), s.n + t, **kw)
    score_mn = float(
        apply_rope(q[None].double(), torch.tensor([s.m]), **kw)[0]
        @ apply_rope(k[None].double(), torch.tensor([s.n]), **kw)[0]
    )

    def gap(dtype: torch.dtype) -> float:
        r_m, r_n, r_nm = (rope_rotation_matrix(x, dim, dtype=dtype, **kw) for x in (s.m, s.n, s.n - s.m))
        return float((r_m.T @ r_n - r_nm).abs().max())

    return RopeView(
        default_inv_freq=default.numpy(),
        inv_freq=inv.numpy(),
        attention_factor=att,
        rotation=rotation.numpy(),
        perm=perm.numpy(),
        layout_gap=layout_gap,
        cis=cis_frame(cis, shown_pairs(dim, CIS_PAIRS)),
        pairs=pairs,
        at_zero=pairs_at(0),
        at_m=pairs_at(s.m),
        at_n=pairs_at(s.n),
        score_pos=pos.numpy(),
        scores=(rq @ rk.T).numpy(),
        score_mn=score_mn,
        shifts=shifts,
        shifted=(qs * ks).sum(-1).numpy(),
        gap32=gap(torch.float32),
        gap64=gap(torch.float64),
    )


@dataclass(frozen=True)
class DecayView:
    distances: np.ndarray  # (r,) int64
    bound: np.ndarray  # (r,) float64
    aligned: np.ndarray  # (r,) mean |q . R_r q|
    independent: np.ndarray  # (r,) mean |q . R_r k|


@st.cache_data(max_entries=CACHE, show_spinner=False)
def decay_view(s: RopeSettings) -> DecayView:
    """The RoFormer bound and measured mean scores, sampled distances up to ``seq_len - 1``."""
    inv, _ = frequencies(s)
    r = torch.from_numpy(decay_distances(s.seq_len))
    g = torch.Generator().manual_seed(s.seed + 1)
    qs = torch.randn(DECAY_SAMPLES, s.dim, generator=g)
    ks = torch.randn(DECAY_SAMPLES, s.dim, generator=g)
    if s.layout == "half":  # the same vectors read in the interleaved order: q . R_half k = q[inv] . R_int k[inv]
        back = torch.argsort(layout_permutation(s.dim))
        qs, ks = qs[:, back], ks[:, back]
    return DecayView(
        distances=r.numpy(),
        bound=rope_decay_bound(r, inv).numpy(),
        aligned=rope_scores(qs, qs, r, inv).abs().mean(0).numpy(),
        independent=rope_scores(qs, ks, r, inv).abs().mean(0).numpy(),
    )


@dataclass(frozen=True)
class ScalingView:
    ratios: dict[str, np.ndarray]  # method -> (dim/2,) inv_freq / default
    attention: dict[str, float]
    positions: np.ndarray  # (p,) int64, log-spaced from 1 to seq_len - 1
    pairs: list[int]
    default_angles: np.ndarray  # (p, pairs) radians
    scaled_angles: np.ndarray
    trained: np.ndarray  # (pairs,) radians reached at original_max_position - 1 (default)


@st.cache_data(max_entries=CACHE, show_spinner=False)
def scaling_view(s: RopeSettings) -> ScalingView:
    """Every method's frequencies against the default, and chosen pairs' angles against position."""
    default = rope_inv_freq(s.dim, base=s.base)
    ratios, attention = {}, {}
    for method in METHODS:
        try:
            inv, att = frequencies(s, method)
        except ValueError:  # another method's rule (dynamic at dim 2): left out of the comparison
            continue
        ratios[method], attention[method] = (inv / default).numpy(), att
    inv, _ = frequencies(s)
    pos = torch.from_numpy(angle_positions(s.seq_len))
    pairs = angle_pairs(s.dim)
    k = torch.tensor(pairs)
    return ScalingView(
        ratios=ratios,
        attention=attention,
        positions=pos.numpy(),
        pairs=pairs,
        default_angles=(pos.double()[:, None] * default[k][None, :]).numpy(),
        scaled_angles=(pos.double()[:, None] * inv[k][None, :]).numpy(),
        trained=(default[k] * (s.original_max_position - 1)).numpy(),
    )


@st.cache_data(max_entries=CACHE, show_spinner=False)
def attention_view(s: RopeSettings) -> np.ndarray:
    """(3, L, L) causal weights: same token without and with RoPE, random q and k with RoPE."""
    inv, att = frequencies(s)
    length = min(TOY_LEN, s.seq_len)
    g = torch.Generator().manual_seed(s.seed + 2)
    token = torch.randn(s.dim, generator=g).double().expand(length, s.dim)
    q_rand = torch.randn(length, s.dim, generator=g).double()
    k_rand = torch.randn(length, s.dim, generator=g).double()
    pos = torch.arange(length)

    def rot(x: torch.Tensor) -> torch.Tensor:
        return att * apply_rope(x, pos, layout=s.layout, inv_freq=inv)  # Hugging Face scales cos and sin

    return torch.stack(
        [
            attention_weights(token, token, causal=True),
            attention_weights(rot(token), rot(token), causal=True),
            attention_weights(rot(q_rand), rot(k_rand), causal=True),
        ]
    ).numpy()


def toy_len(s: RopeSettings) -> int:
    return min(TOY_LEN, s.seq_len)


def scaling_note(s: RopeSettings, view: RopeView) -> str:
    """One sentence on what the chosen method did to the slowest and the fastest pair."""
    ratio = view.inv_freq / view.default_inv_freq
    if s.method == "default":
        return "No scaling: every pair keeps θ_k = base^(−2k/d)."
    return (
        f"{s.method}: the fastest pair turns at {ratio[0]:.4g} × its default speed, the slowest at "
        f"{ratio[-1]:.4g} ×; attention factor {view.attention_factor:.4g}."
        + (
            " Within the original context dynamic NTK changes nothing."
            if s.method == "dynamic" and s.seq_len <= s.original_max_position
            else ""
        )
    )


def wavelength_sentence(s: RopeSettings, inv_freq: np.ndarray) -> str:
    wave = 2 * math.pi / inv_freq
    slow = int((wave > s.seq_len).sum())
    return (
        f"With d = {s.dim} and base = {s.base:g}, wavelengths run from {wave[0]:.3g} to {wave[-1]:.4g} tokens: "
        f"{slow} of {len(wave)} pairs never complete a turn within seq_len = {s.seq_len}."
    )

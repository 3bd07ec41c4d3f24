"""The RoPE page's cached views: a key in, the arrays drawn out.

Each view takes the narrowest key its figures need (``settings.keys``): moving
``m`` recomputes the matrix, the circles and the relative property, never the
decay or the scaling curves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from posviz.encodings.attention import toy_qk
from posviz.encodings.positions import all_positions, curve_positions, display_positions
from posviz.encodings.rope import (
    freqs_cis,
    rope_angles,
    rope_at,
    rope_decay_bound,
    rope_inv_freq,
    rope_layout_gap,
    rope_mean_abs_scores,
    rope_relative_gap,
    rope_rotation_matrix,
    rope_score,
    rope_score_grid,
    rope_shifted_scores,
    rope_toy_attention,
)
from posviz.encodings.rope_scaling import METHODS
from posviz.ui.cache import cached_view
from posviz.ui.rope.settings import (
    ANGLE_POINTS,
    CIRCLE_PAIRS,
    CIS_PAIRS,
    CIS_POSITIONS,
    DECAY_DENSE,
    DECAY_POINTS,
    DECAY_SAMPLES,
    SCORE_LEN,
    SHIFT_POINTS,
    AttentionKey,
    DecayKey,
    FreqKey,
    MatrixKey,
    PairsKey,
    RelativeKey,
    ScalingKey,
    VectorsKey,
)

CACHE = 32  # max entries per cached view; every entry is well under 1 MB


def frequencies(k: ScalingKey, method: str | None = None) -> tuple[torch.Tensor, float]:
    """``(inv_freq (dim/2,) float64, attention_factor)`` of ``method`` (default: the chosen one)."""
    return k.scaling(method)


def shown_pairs(dim: int, count: int) -> np.ndarray:
    """At most ``count`` pair indices, evenly spread, always the fastest (0) and the slowest."""
    return display_positions(dim // 2, count).numpy()


def angle_pairs(dim: int) -> list[int]:
    """Fast, middle and slow pair (fewer when dim is small)."""
    half = dim // 2
    return sorted({0, half // 2, half - 1})


def decay_distances(seq_len: int) -> np.ndarray:
    """Distances drawn by the decay curves: every one up to 128, then log-spaced up to ``seq_len - 1``."""
    return curve_positions(max(seq_len - 1, 1), dense=DECAY_DENSE, points=DECAY_POINTS).numpy()


def angle_positions(seq_len: int) -> np.ndarray:
    """Positions of the angle curves: log-spaced from 1 to ``seq_len - 1`` (the axes are logarithmic)."""
    return curve_positions(max(seq_len - 1, 1), dense=0, points=ANGLE_POINTS, start=1).numpy()


def shift_values(seq_len: int) -> np.ndarray:
    """Shifts of the relative property: log-spaced from 1 to ``seq_len``."""
    return curve_positions(max(seq_len, 2), dense=0, points=SHIFT_POINTS, start=1).numpy()


def _qk(k: VectorsKey) -> tuple[torch.Tensor, torch.Tensor]:
    """The seed's random ``q`` and ``k``: (dim,) float64 each (drawn in float32, as ``torch.randn`` gives them)."""
    q, kk = toy_qk(1, 1, k.freq.dim, generator=torch.Generator().manual_seed(k.seed))
    return q[0].double(), kk[0].double()


def _at(x: torch.Tensor, positions, k: VectorsKey, inv: torch.Tensor) -> torch.Tensor:
    """``x`` (dim,) rotated to each of ``positions``: (p, dim) float64."""
    return rope_at(x, torch.as_tensor(positions), layout=k.layout, inv_freq=inv)


@dataclass(frozen=True)
class MatrixView:
    rotation: np.ndarray  # (dim, dim) float32, R_m in the chosen layout
    layout_gap: float  # max |R_half - P R_interleaved P^T| at m


@cached_view(max_entries=CACHE)
def matrix_view(k: MatrixKey) -> MatrixView:
    inv, _ = frequencies(k.freq)
    dim = k.freq.dim
    return MatrixView(
        rotation=rope_rotation_matrix(k.m, dim, layout=k.layout, inv_freq=inv, dtype=torch.float32).numpy(),
        layout_gap=rope_layout_gap(k.m, dim, inv_freq=inv),
    )


def cis_frame(cis: torch.Tensor, pairs: np.ndarray) -> pd.DataFrame:
    """``freqs_cis`` rows as text ``a+bj`` (4 decimals, as the seed prints them)."""
    rows = {}
    for k in pairs:
        col = cis[:, int(k)]
        rows[f"pair {int(k)}"] = [f"{z.real:+.4f}{z.imag:+.4f}j" for z in col.tolist()]
    frame = pd.DataFrame(rows)
    frame.index.name = "position m"
    return frame


@cached_view(max_entries=CACHE)
def cis_view(k: FreqKey) -> pd.DataFrame:
    """``freqs_cis`` of the first positions and a few pairs."""
    inv, _ = frequencies(k)
    return cis_frame(freqs_cis(all_positions(CIS_POSITIONS), inv), shown_pairs(k.dim, CIS_PAIRS))


@dataclass(frozen=True)
class CirclesView:
    pairs: np.ndarray  # (p,) pair indices on circles
    inv_freq: np.ndarray  # (p,) their frequencies
    at_zero: np.ndarray  # (p, 2) unit-length pairs at position 0
    at_m: np.ndarray
    at_n: np.ndarray


@cached_view(max_entries=CACHE)
def circles_view(k: PairsKey) -> CirclesView:
    inv, _ = frequencies(k.freq)
    dim = k.freq.dim
    pairs = shown_pairs(dim, CIRCLE_PAIRS)
    first, second = (2 * pairs, 2 * pairs + 1) if k.layout == "interleaved" else (pairs, pairs + dim // 2)
    q, _ = _qk(k)
    x = _at(q, [0, k.m, k.n], k, inv).numpy()  # (3, dim)
    xy = np.stack([x[:, first], x[:, second]], axis=-1)  # (3, p, 2)
    xy = xy / np.linalg.norm(xy, axis=-1, keepdims=True)
    return CirclesView(pairs=pairs, inv_freq=inv.numpy()[pairs], at_zero=xy[0], at_m=xy[1], at_n=xy[2])


@dataclass(frozen=True)
class ScoresView:
    positions: np.ndarray  # (SCORE_LEN,)
    scores: np.ndarray  # (SCORE_LEN, SCORE_LEN) float64, (R_i q) . (R_j k)


@cached_view(max_entries=CACHE)
def scores_view(k: VectorsKey) -> ScoresView:
    inv, _ = frequencies(k.freq)
    q, kk = _qk(k)
    pos = all_positions(SCORE_LEN)
    return ScoresView(positions=pos.numpy(), scores=rope_score_grid(q, kk, pos, inv_freq=inv, layout=k.layout).numpy())


@dataclass(frozen=True)
class RelativeView:
    score_mn: float  # (R_m q) . (R_n k)
    shifts: np.ndarray  # (t,)
    shifted: np.ndarray  # (t,) (R_{m+t} q) . (R_{n+t} k)
    gap32: float  # max |R_m^T R_n - R_{n-m}| with float32 matrices
    gap64: float  # the same in float64


@cached_view(max_entries=CACHE)
def relative_view(k: RelativeKey) -> RelativeView:
    inv, _ = frequencies(k.freq)
    q, kk = _qk(k)
    shifts = shift_values(k.seq_len)
    kw = dict(layout=k.layout, inv_freq=inv)
    return RelativeView(
        score_mn=rope_score(q, kk, k.m, k.n, **kw),
        shifts=shifts,
        shifted=rope_shifted_scores(q, kk, k.m, k.n, torch.as_tensor(shifts), **kw).numpy(),
        gap32=rope_relative_gap(k.m, k.n, k.freq.dim, **kw, dtype=torch.float32),
        gap64=rope_relative_gap(k.m, k.n, k.freq.dim, **kw, dtype=torch.float64),
    )


@dataclass(frozen=True)
class DecayView:
    distances: np.ndarray  # (r,) int64
    bound: np.ndarray  # (r,) float64
    aligned: np.ndarray  # (r,) mean |q . R_r q|
    independent: np.ndarray  # (r,) mean |q . R_r k|


@cached_view(max_entries=CACHE)
def decay_view(k: DecayKey) -> DecayView:
    """The RoFormer bound and measured mean scores, sampled distances up to ``seq_len - 1``."""
    inv, _ = frequencies(k.freq)
    dim = k.freq.dim
    r = torch.as_tensor(decay_distances(k.seq_len))
    qs, ks = toy_qk(DECAY_SAMPLES, DECAY_SAMPLES, dim, generator=torch.Generator().manual_seed(k.seed + 1))
    kw = dict(inv_freq=inv, layout=k.layout)
    return DecayView(
        distances=r.numpy(),
        bound=rope_decay_bound(r, inv).numpy(),
        aligned=rope_mean_abs_scores(qs, qs, r, **kw).numpy(),
        independent=rope_mean_abs_scores(qs, ks, r, **kw).numpy(),
    )


@dataclass(frozen=True)
class ScalingView:
    default_inv_freq: np.ndarray  # (dim/2,) float64
    inv_freq: np.ndarray  # (dim/2,) float64, the chosen method
    attention_factor: float  # the chosen method's
    ratios: dict[str, np.ndarray]  # method -> (dim/2,) inv_freq / default
    attention: dict[str, float]
    positions: np.ndarray  # (p,) int64, log-spaced from 1 to seq_len - 1
    pairs: list[int]
    default_angles: np.ndarray  # (p, pairs) radians
    scaled_angles: np.ndarray
    trained: np.ndarray  # (pairs,) radians reached at original_max_position - 1 (default)


@cached_view(max_entries=CACHE)
def scaling_view(k: ScalingKey) -> ScalingView:
    """The chosen frequencies, every method's against the default, and chosen pairs' angles against position."""
    default = rope_inv_freq(k.dim, base=k.base)
    ratios, attention = {}, {}
    for method in METHODS:
        try:
            inv, att = frequencies(k, method)
        except ValueError:  # another method's rule (dynamic at dim 2): left out of the comparison
            continue
        ratios[method], attention[method] = (inv / default).numpy(), att
    inv, att = frequencies(k)
    pos = torch.as_tensor(angle_positions(k.seq_len))
    pairs = angle_pairs(k.dim)
    kk = torch.tensor(pairs)
    return ScalingView(
        default_inv_freq=default.numpy(),
        inv_freq=inv.numpy(),
        attention_factor=att,
        ratios=ratios,
        attention=attention,
        positions=pos.numpy(),
        pairs=pairs,
        default_angles=rope_angles(pos, default[kk]).numpy(),
        scaled_angles=rope_angles(pos, inv[kk]).numpy(),
        trained=rope_angles(torch.tensor([k.original_max_position - 1]), default[kk])[0].numpy(),
    )


@cached_view(max_entries=CACHE)
def attention_view(k: AttentionKey) -> np.ndarray:
    """(3, L, L) causal weights: same token without and with RoPE, random q and k with RoPE."""
    inv, att = frequencies(k.freq)
    g = torch.Generator().manual_seed(k.seed + 2)
    return rope_toy_attention(
        k.freq.dim, k.length, inv_freq=inv, attention_factor=att, layout=k.layout, generator=g
    ).numpy()

"""The sinusoidal page's cached views: a settings projection in, the arrays drawn out.

No view builds the whole ``(seq_len, dim)`` table: only the rows that are drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from posviz.encodings.attention import cosine_similarities
from posviz.encodings.pooling import block_edges, relative_block_means
from posviz.encodings.positions import all_positions, curve_positions, display_positions, display_stride
from posviz.encodings.sinusoidal import (
    concat_permutation,
    learned_table,
    sinusoidal_inv_freq,
    sinusoidal_similarity,
    sinusoidal_similarity_from,
    sinusoidal_table,
)
from posviz.figures.layout import number
from posviz.figures.sinusoidal import component_wavelengths
from posviz.ui.cache import cached_view
from posviz.ui.sinusoidal.settings import (
    LAYOUT_POSITIONS,
    PROFILE_POINTS,
    SIM_POINTS,
    TABLE_POINTS,
    WAVE_POINTS,
    LayoutsKey,
    LearnedKey,
    TableKey,
)


def profile_distances(seq_len: int) -> np.ndarray:
    """Every distance from 1 up to 128, then log-spaced up to ``seq_len - 1``: (r,) int64."""
    return curve_positions(max(seq_len - 1, 1), points=PROFILE_POINTS, start=1).numpy()


def wave_components(dim: int, layout: str) -> tuple[list[int], list[str]]:
    """sin and cos of the fastest pair, then the sin of a middle and of the slowest pair."""
    half = dim // 2
    pairs = sorted({0, half // 4, half // 2, half - 1})
    comps, labels = [], []
    for k in pairs:
        for kind in ("sin", "cos") if k == 0 else ("sin",):
            if layout == "interleaved":
                comps.append(2 * k + (kind == "cos"))
            else:
                comps.append(k + half * (kind == "cos"))
            labels.append(f"component {comps[-1]}: {kind}(p θ_{k})")
    return comps, labels


def table_stride(seq_len: int) -> int:
    return display_stride(seq_len, TABLE_POINTS)


def sim_stride(seq_len: int) -> int:
    return display_stride(seq_len, SIM_POINTS)


@dataclass(frozen=True)
class TableView:
    positions: np.ndarray  # (n,) shown positions
    table: np.ndarray  # (n, dim) float32 in the chosen layout
    wave_positions: np.ndarray  # (w,)
    waves: np.ndarray  # (w, c) the chosen components
    components: list[int]
    labels: list[str]
    component_wavelengths: np.ndarray  # (c,) float64, tokens per period of each chosen component
    wavelengths: np.ndarray  # (dim/2,) of every pair


@cached_view(max_entries=32)
def table_view(k: TableKey) -> TableView:
    """The rows of the table that are drawn, and a few of its columns as waves."""
    pos = display_positions(k.seq_len, TABLE_POINTS)
    wave_pos = display_positions(k.seq_len, WAVE_POINTS)
    comps, labels = wave_components(k.dim, k.layout)
    lengths = component_wavelengths(comps, k.dim, base=k.base, layout=k.layout)
    # the same rounding as the figure's notes: number(), never 4.712e+04
    labels = [f"{lab}, λ = {number(lam)}" for lab, lam in zip(labels, lengths, strict=True)]
    return TableView(
        positions=pos.numpy(),
        table=sinusoidal_table(pos, k.dim, base=k.base, layout=k.layout).numpy(),
        wave_positions=wave_pos.numpy(),
        waves=sinusoidal_table(wave_pos, k.dim, base=k.base, layout=k.layout)[:, comps].numpy(),
        components=comps,
        labels=labels,
        component_wavelengths=lengths,
        wavelengths=(2 * np.pi / sinusoidal_inv_freq(k.dim, base=k.base)).numpy(),
    )


@dataclass(frozen=True)
class LayoutsView:
    positions: np.ndarray  # (l,)
    interleaved: np.ndarray  # (l, dim)
    concat: np.ndarray  # (l, dim)
    perm: np.ndarray  # (dim,)


@cached_view(max_entries=32)
def layouts_view(k: LayoutsKey) -> LayoutsView:
    """The first rows in both layouts, and the permutation between them."""
    pos = all_positions(min(k.seq_len, LAYOUT_POSITIONS))
    return LayoutsView(
        positions=pos.numpy(),
        interleaved=sinusoidal_table(pos, k.dim, base=k.base).numpy(),
        concat=sinusoidal_table(pos, k.dim, base=k.base, layout="concat").numpy(),
        perm=concat_permutation(k.dim).numpy(),
    )


@dataclass(frozen=True)
class SimilarityView:
    positions: np.ndarray  # (n,)
    sim: np.ndarray  # (n, n) PE_i . PE_j, each cell the mean over the blocks its positions start
    distances: np.ndarray  # (r,)
    closed: np.ndarray  # (r,) sum_k cos(r theta_k)
    measured: dict[str, np.ndarray]  # "from p = ..." -> (r,) PE_p . PE_(p + r), NaN past the sequence
    gap: float  # max |measured - closed|


@cached_view(max_entries=32)
def similarity_view(k: TableKey) -> SimilarityView:
    pos = display_positions(k.seq_len, SIM_POINTS)
    r = torch.as_tensor(profile_distances(k.seq_len))
    closed = sinusoidal_similarity(r, k.dim, base=k.base).numpy()
    measured, gap = {}, 0.0
    for p in sorted({0, (k.seq_len - 1) // 3}):
        dots = sinusoidal_similarity_from(p, r, k.dim, base=k.base, layout=k.layout, length=k.seq_len).numpy()
        ok = ~np.isnan(dots)  # NaN past the sequence
        gap = max(gap, float(np.abs(dots - closed)[ok].max())) if ok.any() else gap
        measured[f"measured from p = {p}"] = dots
    edges = block_edges(pos)  # each shown position stands for the block up to the next one
    sim = relative_block_means(lambda d: sinusoidal_similarity(d, k.dim, base=k.base), edges, edges)  # (n, n)
    return SimilarityView(
        positions=pos.numpy(),
        sim=sim.numpy(),
        distances=r.numpy(),
        closed=closed,
        measured=measured,
        gap=gap,
    )


@dataclass(frozen=True)
class LearnedView:
    positions: np.ndarray  # (n,) in [0, learned_len)
    sinusoidal_cos: np.ndarray  # (n, n)
    learned_cos: np.ndarray  # (n, n)
    stride: int


@cached_view(max_entries=32)
def learned_view(k: LearnedKey) -> LearnedView:
    pos = display_positions(k.learned_len, SIM_POINTS)
    table = learned_table(k.learned_len, k.dim, generator=torch.Generator().manual_seed(k.seed))
    sin = sinusoidal_table(pos, k.dim, base=k.base, dtype=torch.float64)
    return LearnedView(
        positions=pos.numpy(),
        sinusoidal_cos=cosine_similarities(sin).numpy(),
        learned_cos=cosine_similarities(table[pos]).numpy(),
        stride=display_stride(k.learned_len, SIM_POINTS),
    )

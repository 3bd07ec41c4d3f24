"""The sinusoidal page's settings and its cached backend calls (keyed by scalars)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st
import torch

from posviz.encodings.positions import display_positions, display_stride
from posviz.encodings.sinusoidal import (
    LAYOUTS,
    concat_permutation,
    learned_table,
    sinusoidal_inv_freq,
    sinusoidal_similarity,
    sinusoidal_table,
)
from posviz.ui.controls import control
from posviz.ui.sinusoidal_snippets import SinusoidalSettings

MAX_SEQ_LEN = 131072
TABLE_POINTS = 192  # rows of the table heatmap
SIM_POINTS = 128  # per axis of the similarity heatmaps
WAVE_POINTS = 1000
LAYOUT_POSITIONS = 48  # rows of the side-by-side layouts
PROFILE_DENSE, PROFILE_POINTS = 128, 400
CACHE = 32

DEFAULTS = SinusoidalSettings()


def sinusoidal_controls() -> SinusoidalSettings:
    """The sidebar controls of the sinusoidal page, in reading order."""
    st.sidebar.subheader("Table")
    return SinusoidalSettings(
        seq_len=control("seq_len", default=DEFAULTS.seq_len, max_value=MAX_SEQ_LEN),
        dim=control("dim", default=DEFAULTS.dim),
        base=control("base", default=DEFAULTS.base),
        layout=control("layout", options=LAYOUTS),
        seed=control("seed"),
    )


def profile_distances(seq_len: int) -> np.ndarray:
    """Every distance up to 128, then log-spaced up to ``seq_len - 1``."""
    last = max(seq_len - 1, 1)
    dense = np.arange(1, min(PROFILE_DENSE, last) + 1)
    far = np.unique(np.round(np.geomspace(1, last, PROFILE_POINTS)).astype(np.int64))
    return np.union1d(dense, far).astype(np.int64)


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


@dataclass(frozen=True)
class TableView:
    positions: np.ndarray  # (n,) shown positions
    table: np.ndarray  # (n, dim) float32 in the chosen layout
    wave_positions: np.ndarray  # (w,)
    waves: np.ndarray  # (w, c) the chosen components
    components: list[int]
    labels: list[str]
    layout_positions: np.ndarray  # (l,)
    interleaved: np.ndarray  # (l, dim)
    concat: np.ndarray  # (l, dim)
    perm: np.ndarray  # (dim,)
    wavelengths: np.ndarray  # (dim/2,)


@st.cache_data(max_entries=CACHE, show_spinner=False)
def table_view(seq_len: int, dim: int, base: float, layout: str) -> TableView:
    """The rows of the table that are drawn: never the whole (seq_len, dim) table."""
    pos = display_positions(seq_len, TABLE_POINTS)
    wave_pos = display_positions(seq_len, WAVE_POINTS)
    comps, labels = wave_components(dim, layout)
    inv = sinusoidal_inv_freq(dim, base=base)
    wavelengths = (2 * np.pi / inv).numpy()
    labels = [f"{lab}, λ = {wavelengths[_pair(c, dim, layout)]:.4g}" for c, lab in zip(comps, labels, strict=True)]
    lay_pos = torch.arange(min(seq_len, LAYOUT_POSITIONS))
    return TableView(
        positions=pos.numpy(),
        table=sinusoidal_table(pos, dim, base=base, layout=layout).numpy(),
        wave_positions=wave_pos.numpy(),
        waves=sinusoidal_table(wave_pos, dim, base=base, layout=layout)[:, comps].numpy(),
        components=comps,
        labels=labels,
        layout_positions=lay_pos.numpy(),
        interleaved=sinusoidal_table(lay_pos, dim, base=base).numpy(),
        concat=sinusoidal_table(lay_pos, dim, base=base, layout="concat").numpy(),
        perm=concat_permutation(dim).numpy(),
        wavelengths=wavelengths,
    )


def _pair(component: int, dim: int, layout: str) -> int:
    return component // 2 if layout == "interleaved" else component % (dim // 2)


@dataclass(frozen=True)
class SimilarityView:
    positions: np.ndarray  # (n,)
    sim: np.ndarray  # (n, n) PE_i . PE_j
    distances: np.ndarray  # (r,)
    closed: np.ndarray  # (r,) sum_k cos(r theta_k)
    measured: dict[str, np.ndarray]  # "from p = ..." -> (r,) PE_p . PE_(p + r), NaN past the sequence
    gap: float  # max |measured - closed|


@st.cache_data(max_entries=CACHE, show_spinner=False)
def similarity_view(seq_len: int, dim: int, base: float, layout: str) -> SimilarityView:
    pos = display_positions(seq_len, SIM_POINTS)
    shown = sinusoidal_table(pos, dim, base=base, layout=layout, dtype=torch.float64)  # (n, dim)
    r = torch.from_numpy(profile_distances(seq_len))
    closed = sinusoidal_similarity(r, dim, base=base)
    measured, gap = {}, 0.0
    for p in sorted({0, (seq_len - 1) // 3}):
        ok = p + r <= seq_len - 1
        ends = sinusoidal_table(
            torch.cat([torch.tensor([p]), p + r]), dim, base=base, layout=layout, dtype=torch.float64
        )
        dots = ends[1:] @ ends[0]  # (r,)
        gap = max(gap, float((dots - closed)[ok].abs().max())) if ok.any() else gap
        measured[f"measured from p = {p}"] = torch.where(ok, dots, torch.nan).numpy()
    return SimilarityView(
        positions=pos.numpy(),
        sim=(shown @ shown.T).numpy(),
        distances=r.numpy(),
        closed=closed.numpy(),
        measured=measured,
        gap=gap,
    )


@dataclass(frozen=True)
class LearnedView:
    positions: np.ndarray  # (n,) in [0, learned_len)
    sinusoidal_cos: np.ndarray  # (n, n)
    learned_cos: np.ndarray  # (n, n)
    stride: int


def _cosine(rows: torch.Tensor) -> torch.Tensor:
    unit = rows / rows.norm(dim=-1, keepdim=True)
    return unit @ unit.T


@st.cache_data(max_entries=CACHE, show_spinner=False)
def learned_view(learned_len: int, dim: int, base: float, seed: int) -> LearnedView:
    pos = display_positions(learned_len, SIM_POINTS)
    table = learned_table(learned_len, dim, generator=torch.Generator().manual_seed(seed))
    sin = sinusoidal_table(pos, dim, base=base, dtype=torch.float64)
    return LearnedView(
        positions=pos.numpy(),
        sinusoidal_cos=_cosine(sin).numpy(),
        learned_cos=_cosine(table[pos]).numpy(),
        stride=display_stride(learned_len, SIM_POINTS),
    )


def table_stride(seq_len: int) -> int:
    return display_stride(seq_len, TABLE_POINTS)


def sim_stride(seq_len: int) -> int:
    return display_stride(seq_len, SIM_POINTS)

"""The RoPE page's figures, cached process-wide by exactly the arguments they are built from, and their CSVs.

Each takes the narrowest key that determines it (``settings.keys``) and
lecture mode: moving ``m`` rebuilds the matrix, the circles and the shift
figure only; moving ``seq_len`` leaves the matrix and the circles alone unless
the method is dynamic NTK.
"""

from __future__ import annotations

import math

import numpy as np

from posviz.encodings.rope import layout_permutation
from posviz.figures import rope as fig
from posviz.figures.csv import columns_csv, matrix_csv, panels_csv
from posviz.ui.cache import Chart, cached_figure
from posviz.ui.rope.settings import (
    DECAY_SAMPLES,
    AttentionKey,
    DecayKey,
    MatrixKey,
    PairsKey,
    PermutationKey,
    RelativeKey,
    ScalingKey,
    VectorsKey,
)
from posviz.ui.rope.views import (
    attention_view,
    circles_view,
    decay_view,
    matrix_view,
    relative_view,
    scaling_view,
    scores_view,
)

ATTENTION_TITLES = ["same token, no RoPE", "same token, RoPE", "random q and k, RoPE"]


def _scaled(k: ScalingKey, lecture: bool) -> dict:
    """What the frequency and angle figures mark: the chosen method and the context it extends."""
    return dict(original_max_position=k.original_max_position, method=k.method, lecture=lecture)


@cached_figure
def frequencies(k: ScalingKey, lecture: bool) -> Chart:
    v = scaling_view(k)
    figure = fig.frequency_figure(
        v.inv_freq, seq_len=k.seq_len, default_inv_freq=v.default_inv_freq, **_scaled(k, lecture)
    )
    return Chart(figure, lambda: frequencies_csv(k))


@cached_figure
def rotation(k: MatrixKey, lecture: bool) -> Chart:
    figure = fig.rotation_matrix_figure(matrix_view(k).rotation, position=k.m, layout=k.layout, lecture=lecture)
    return Chart(figure, lambda: rotation_csv(k))


def permutation_of(k: PermutationKey) -> np.ndarray:
    """(dim,) int64: half-split component ``i`` is interleaved component ``perm[i]``."""
    return layout_permutation(k.dim).numpy()


@cached_figure
def permutation(k: PermutationKey, lecture: bool) -> Chart:
    figure = fig.permutation_figure(permutation_of(k), lecture=lecture)
    return Chart(figure, lambda: permutation_csv(k))


@cached_figure
def circles(k: PairsKey, lecture: bool) -> Chart:
    v = circles_view(k)
    figure = fig.pair_circles_figure(
        v.at_zero, v.at_m, v.at_n, pairs=v.pairs, inv_freq=v.inv_freq, m=k.m, n=k.n, lecture=lecture
    )
    return Chart(figure, lambda: circles_csv(k))


@cached_figure
def shift(k: RelativeKey, lecture: bool) -> Chart:
    v = relative_view(k)
    figure = fig.shift_figure(v.shifts, v.shifted, m=k.m, n=k.n, lecture=lecture)
    return Chart(figure, lambda: shift_csv(k))


@cached_figure
def scores(k: VectorsKey, lecture: bool) -> Chart:
    v = scores_view(k)
    figure = fig.score_matrix_figure(v.scores, positions=v.positions, lecture=lecture)
    return Chart(figure, lambda: scores_csv(k))


@cached_figure
def decay(k: DecayKey, lecture: bool) -> Chart:
    v = decay_view(k)
    figure = fig.decay_figure(
        v.distances,
        v.bound,
        v.aligned,
        v.independent,
        dim=k.freq.dim,
        seq_len=k.seq_len,
        samples=DECAY_SAMPLES,
        lecture=lecture,
    )
    return Chart(figure, lambda: decay_csv(k))


@cached_figure
def scaling_frequencies(k: ScalingKey, lecture: bool) -> Chart:
    v = scaling_view(k)
    figure = fig.scaling_freq_figure(v.ratios, v.attention, chosen=k.method, factor=k.factor, lecture=lecture)
    return Chart(figure, lambda: scaling_csv(k))


@cached_figure
def angles(k: ScalingKey, lecture: bool) -> Chart:
    v = scaling_view(k)
    figure = fig.angle_figure(
        v.positions, v.default_angles, v.scaled_angles, pairs=v.pairs, trained=v.trained, **_scaled(k, lecture)
    )
    return Chart(figure, lambda: angles_csv(k))


@cached_figure
def attention(k: AttentionKey, lecture: bool) -> Chart:
    positions = list(range(k.length))
    figure = fig.attention_figure(attention_view(k), positions=positions, titles=ATTENTION_TITLES, lecture=lecture)
    return Chart(figure, lambda: attention_csv(k))


# The data behind each figure as CSV (built when the download is clicked).
def frequencies_csv(k: ScalingKey) -> str:
    inv = scaling_view(k).inv_freq
    return columns_csv({"pair k": range(len(inv)), "theta_k": inv, "wavelength": 2 * math.pi / inv})


def rotation_csv(k: MatrixKey) -> str:
    return matrix_csv(matrix_view(k).rotation, range(k.freq.dim), range(k.freq.dim))


def permutation_csv(k: PermutationKey) -> str:
    return columns_csv({"half-split component": range(k.dim), "interleaved component": permutation_of(k)})


def circles_csv(k: PairsKey) -> str:
    v = circles_view(k)
    columns = {"pair k": v.pairs}
    for where, xy in (("0", v.at_zero), ("m", v.at_m), ("n", v.at_n)):
        columns |= {f"x at {where}": xy[:, 0], f"y at {where}": xy[:, 1]}
    return columns_csv(columns)


def shift_csv(k: RelativeKey) -> str:
    v = relative_view(k)
    return columns_csv({"t": v.shifts, "score": v.shifted})


def scores_csv(k: VectorsKey) -> str:
    v = scores_view(k)
    return matrix_csv(v.scores, v.positions, v.positions)


def decay_csv(k: DecayKey) -> str:
    v = decay_view(k)
    return columns_csv(
        {"distance": v.distances, "bound": v.bound, "mean |q.R_r q|": v.aligned, "mean |q.R_r k|": v.independent}
    )


def scaling_csv(k: ScalingKey) -> str:
    v = scaling_view(k)
    return columns_csv({"pair k": range(len(v.inv_freq)), **v.ratios})


def angles_csv(k: ScalingKey) -> str:
    v = scaling_view(k)
    return columns_csv(
        {
            "position": v.positions,
            **{f"pair {p} default": v.default_angles[:, i] for i, p in enumerate(v.pairs)},
            **{f"pair {p} {k.method}": v.scaled_angles[:, i] for i, p in enumerate(v.pairs)},
        }
    )


def attention_csv(k: AttentionKey) -> str:
    positions = list(range(k.length))
    return panels_csv(dict(zip(ATTENTION_TITLES, attention_view(k), strict=True)), positions, positions)

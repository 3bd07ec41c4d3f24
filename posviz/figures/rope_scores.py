"""What RoPE does to attention scores: the relative property, long-term decay, and a toy sequence's attention.

``scores``, ``shift``, ``decay``, ``attention`` and ``relative_numbers`` are what the page (and a
notebook) calls, each a function of plain arguments (the frequencies' arguments as in
``posviz.figures.rope_scaling``, the ``layout`` and the ``seed`` of the random vectors); the
``*_figure`` builders turn arrays into specs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import torch

from posviz.encodings.attention import toy_qk
from posviz.encodings.positions import all_positions, curve_positions
from posviz.encodings.rope import (
    rope_decay_bound,
    rope_mean_abs_scores,
    rope_relative_gap,
    rope_score,
    rope_score_grid,
    rope_shifted_scores,
    rope_toy_attention,
    seeded_qk,
)
from posviz.encodings.rope_scaling import ScalingOptions, rope_scaling
from posviz.figures.chart import Chart
from posviz.figures.common import as_array, compact, finish, heatmap, heatmap_grid, look, number, subtitle_lines
from posviz.figures.csv import columns_csv, matrix_csv, panels_csv
from posviz.figures.rope_scaling import FAST, SLOW, f32
from posviz.i18n import N_, _

SCORE_LEN = 32  # positions of the (R_i q) . (R_j k) heatmap
SHIFT_POINTS = 40
DECAY_SAMPLES = 256  # random vectors averaged in the decay curves
DECAY_DENSE, DECAY_POINTS = 128, 480  # every distance up to 128, then log-spaced
TOY_LEN = 32
ATTENTION_TITLES = [N_("same token, no RoPE"), N_("same token, RoPE"), N_("random q and k, RoPE")]  # CSV: English


def score_matrix_figure(scores, *, positions, lecture: bool = False) -> go.Figure:
    """``(R_i q) . (R_j k)`` for every query and key position: constant along each diagonal."""
    pos = as_array(positions)
    return heatmap(
        scores,
        q_pos=pos,
        k_pos=pos,
        title=_("(R_i q) · (R_j k) for one q and one k at every pair of positions"),
        value_name=_("score"),
        palette="diverging",
        subtitle=_("constant along each diagonal: the score depends on j − i only"),
        lecture=lecture,
    )


def shift_figure(shifts, scores, *, m: int, n: int, lecture: bool = False) -> go.Figure:
    """``(R_{m+t} q) . (R_{n+t} k)`` against the shift ``t``: flat up to rounding."""
    lk = look(lecture)
    t = as_array(shifts)
    y = as_array(scores).astype(np.float64)
    fig = go.Figure(
        go.Scatter(
            x=compact(t),
            y=y.astype(np.float32),
            mode="lines+markers",
            line=dict(width=lk.line),
            name=_("score"),
            hovertemplate=_("t = %{x}<br>score = %{y:.6g}") + "<extra></extra>",
        )
    )
    spread = float(y.max() - y.min()) if y.size else 0.0
    fig.update_xaxes(title_text=_("shift t (both positions move by t)"), type="log" if t.min() > 0 else "linear")
    fig.update_yaxes(title_text="(R_(m+t) q) · (R_(n+t) k)", exponentformat="none")
    pad = max(abs(float(y.mean())) * 0.05, 1e-3) if y.size else 1.0
    fig.update_yaxes(range=[float(y.mean()) - pad, float(y.mean()) + pad])
    return finish(
        fig,
        title=_("Shifting both positions: m + t = {m} + t, n + t = {n} + t").format(m=m, n=n),
        subtitle=_("largest minus smallest score over these shifts: {spread} (float64 rounding)").format(
            spread=number(spread, 3)
        ),
        lecture=lecture,
        height=int(lk.height * 0.75),
    )


def decay_figure(
    distances,
    bound,
    aligned,
    independent,
    *,
    dim: int,
    seq_len: int,
    samples: int,
    lecture: bool = False,
) -> go.Figure:
    """The RoFormer bound and measured ``mean |q . R_r k|``, each relative to ``r = 0``, on a log axis.

    The bound's upper envelope (the largest value at this distance or beyond) is drawn
    dashed: the bound itself oscillates.
    """
    lk = look(lecture)
    r = as_array(distances).astype(np.int64)
    curves = {name: as_array(v).astype(np.float64) for name, v in (("b", bound), ("a", aligned), ("i", independent))}
    rel = {name: v / v[0] for name, v in curves.items()}  # relative to distance 0
    keep = r > 0  # log axis
    envelope = np.maximum.accumulate(rel["b"][::-1])[::-1]
    rises = int((np.diff(rel["b"][keep]) > 0).sum())
    fig = go.Figure()
    for y, name, color, dash, width in (
        (rel["b"], _("RoFormer bound (1/(d/2)) Σ|S_j|"), "#444444", "solid", lk.line),
        (envelope, _("its envelope (max at this distance or beyond)"), "#444444", "dash", 1),
        (rel["a"], _("mean |q · R_r q| (k = q)"), SLOW, "solid", lk.line),
        (rel["i"], _("mean |q · R_r k| (independent q, k)"), FAST, "solid", lk.line),
    ):
        fig.add_trace(
            go.Scatter(
                x=compact(r[keep]),
                y=f32(y[keep]),
                mode="lines",
                line=dict(color=color, dash=dash, width=width),
                name=name,
                hovertemplate=_("distance r = %{x}<br>relative to r = 0: %{y:.3g}") + "<extra>" + name + "</extra>",
            )
        )
    fig.update_xaxes(title_text=_("distance r = n − m (log)"), type="log")
    fig.update_yaxes(title_text=_("relative to distance 0"), rangemode="tozero")
    drawn = int(keep.sum())
    return finish(
        fig,
        title=_("Long-term decay, d = {dim}, distances up to {last}").format(dim=dim, last=seq_len - 1),
        subtitle=subtitle_lines(
            _(
                "an envelope, not a monotone curve: the bound rises again at {rises} of {steps} steps "
                "between the {drawn} distances drawn"
            ).format(rises=rises, steps=drawn - 1, drawn=drawn),
            _(
                "measured over {samples} random standard-normal vectors; "
                "independent q and k show no decay: it needs q and k to agree"
            ).format(samples=samples),
        ),
        lecture=lecture,
        height=int(lk.height * 1.1),
    )


def attention_figure(weights, *, positions, titles: list[str], lecture: bool = False) -> go.Figure:
    """Toy causal attention weights, panels side by side on one scale."""
    pos = as_array(positions)
    return heatmap_grid(
        weights,
        q_pos=pos,
        k_pos=pos,
        titles=titles,
        title=_("Attention on a toy sequence, causal, with and without RoPE on q and k"),
        subtitle=_(
            "same token: every position holds the same vector, so only RoPE can tell them apart; colour: log scale"
        ),
        value_name=_("weight"),
        palette="sequential",
        cols=len(titles),
        lecture=lecture,
        mask=pos[None, :] > pos[:, None],
        mask_label=_("future keys j > i: masked"),
        log_scale=True,
    )


# --- the figures, by plain arguments ---------------------------------------------------------------


def shift_values(seq_len: int) -> np.ndarray:
    """(t,) int64: shifts of the relative property, log-spaced from 1 to ``seq_len``."""
    return curve_positions(max(seq_len, 2), dense=0, points=SHIFT_POINTS, start=1).numpy()


def decay_distances(seq_len: int) -> np.ndarray:
    """(r,) int64: distances of the decay curves, every one up to 128, then log-spaced up to ``seq_len - 1``."""
    return curve_positions(max(seq_len - 1, 1), dense=DECAY_DENSE, points=DECAY_POINTS).numpy()


def toy_length(seq_len: int) -> int:
    """Positions of the toy sequence: ``TOY_LEN``, or ``seq_len`` if shorter."""
    return min(TOY_LEN, seq_len)


def scores(
    *,
    dim: int,
    base: float,
    method: str,
    factor: float,
    original_max_position: int,
    options: ScalingOptions,
    layout: str,
    seed: int,
    lecture: bool = False,
) -> Chart:
    """``(R_i q) . (R_j k)`` of the seed's ``q`` and ``k`` at every pair of the first ``SCORE_LEN`` positions."""
    inv, _ = rope_scaling(
        method, dim, base=base, factor=factor, original_max_position=original_max_position, **dict(options)
    )
    q, k = seeded_qk(dim, seed)
    pos = all_positions(SCORE_LEN)
    grid = rope_score_grid(q, k, pos, inv_freq=inv, layout=layout).numpy()  # (SCORE_LEN, SCORE_LEN) float64
    figure = score_matrix_figure(grid, positions=pos.numpy(), lecture=lecture)
    return Chart.of(figure, lambda: matrix_csv(grid, pos.numpy(), pos.numpy()))


def shift(
    *,
    dim: int,
    base: float,
    method: str,
    factor: float,
    original_max_position: int,
    options: ScalingOptions,
    layout: str,
    seed: int,
    m: int,
    n: int,
    seq_len: int,
    lecture: bool = False,
) -> Chart:
    """``(R_{m+t} q) . (R_{n+t} k)`` against the shift ``t`` (up to ``seq_len``): flat up to rounding."""
    inv, _ = rope_scaling(
        method, dim, base=base, factor=factor, original_max_position=original_max_position, **dict(options)
    )
    q, k = seeded_qk(dim, seed)
    shifts = shift_values(seq_len)
    shifted = rope_shifted_scores(q, k, m, n, torch.as_tensor(shifts), inv_freq=inv, layout=layout).numpy()
    figure = shift_figure(shifts, shifted, m=m, n=n, lecture=lecture)
    return Chart.of(figure, lambda: columns_csv({"t": shifts, "score": shifted}))


@dataclass(frozen=True)
class RelativeNumbers:
    """The relative property, measured: the numbers above its figures."""

    score: float  # (R_m q) . (R_n k)
    last_shift: int  # the largest shift t drawn
    shifted: float  # (R_{m+t} q) . (R_{n+t} k) at that shift
    gap32: float  # max |R_m^T R_n - R_{n-m}| with float32 matrices
    gap64: float  # the same in float64


def relative_numbers(
    *,
    dim: int,
    base: float,
    method: str,
    factor: float,
    original_max_position: int,
    options: ScalingOptions,
    layout: str,
    seed: int,
    m: int,
    n: int,
    seq_len: int,
) -> RelativeNumbers:
    """The score at ``(m, n)``, at ``(m + t, n + t)`` for the last shift of ``shift``, and ``R_m^T R_n - R_{n-m}``."""
    inv, _ = rope_scaling(
        method, dim, base=base, factor=factor, original_max_position=original_max_position, **dict(options)
    )
    q, k = seeded_qk(dim, seed)
    shifts = shift_values(seq_len)
    kw = dict(layout=layout, inv_freq=inv)
    shifted = rope_shifted_scores(q, k, m, n, torch.as_tensor(shifts), **kw)  # (t,): as the shift figure draws
    return RelativeNumbers(
        score=rope_score(q, k, m, n, **kw),
        last_shift=int(shifts[-1]),
        shifted=float(shifted[-1]),
        gap32=rope_relative_gap(m, n, dim, **kw, dtype=torch.float32),
        gap64=rope_relative_gap(m, n, dim, **kw, dtype=torch.float64),
    )


def decay(
    *,
    dim: int,
    base: float,
    method: str,
    factor: float,
    original_max_position: int,
    options: ScalingOptions,
    layout: str,
    seed: int,
    seq_len: int,
    lecture: bool = False,
) -> Chart:
    """The RoFormer bound and the measured mean ``|q . R_r k|`` of ``DECAY_SAMPLES`` random vectors (seed + 1),
    at distances up to ``seq_len - 1``."""
    inv, _ = rope_scaling(
        method, dim, base=base, factor=factor, original_max_position=original_max_position, **dict(options)
    )
    r = torch.as_tensor(decay_distances(seq_len))
    qs, ks = toy_qk(DECAY_SAMPLES, DECAY_SAMPLES, dim, generator=torch.Generator().manual_seed(seed + 1))
    columns = {
        "distance": r.numpy(),
        "bound": rope_decay_bound(r, inv).numpy(),
        "mean |q.R_r q|": rope_mean_abs_scores(qs, qs, r, inv_freq=inv, layout=layout).numpy(),
        "mean |q.R_r k|": rope_mean_abs_scores(qs, ks, r, inv_freq=inv, layout=layout).numpy(),
    }
    figure = decay_figure(*columns.values(), dim=dim, seq_len=seq_len, samples=DECAY_SAMPLES, lecture=lecture)
    return Chart.of(figure, lambda: columns_csv(columns))


def attention(
    *,
    dim: int,
    base: float,
    method: str,
    factor: float,
    original_max_position: int,
    options: ScalingOptions,
    layout: str,
    seed: int,
    length: int,
    lecture: bool = False,
) -> Chart:
    """(3, length, length) causal weights (seed + 2): the same token without and with RoPE, random q and k with
    RoPE; the method's attention factor multiplies cos and sin."""
    inv, att = rope_scaling(
        method, dim, base=base, factor=factor, original_max_position=original_max_position, **dict(options)
    )
    g = torch.Generator().manual_seed(seed + 2)
    weights = rope_toy_attention(dim, length, inv_freq=inv, attention_factor=att, layout=layout, generator=g).numpy()
    positions = list(range(length))
    titles = [_(t) for t in ATTENTION_TITLES]
    figure = attention_figure(weights, positions=positions, titles=titles, lecture=lecture)
    return Chart.of(figure, lambda: panels_csv(dict(zip(ATTENTION_TITLES, weights, strict=True)), positions, positions))

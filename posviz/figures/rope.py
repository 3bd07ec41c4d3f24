"""Figures for the RoPE explorer: rotations, pairs on circles, the relative property, decay, attention.

The frequency and scaling figures live in ``posviz.figures.rope_scaling`` and are importable from here too.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz.figures.common import (
    DIVERGING,
    MAX_TEXT_CELLS,
    as_array,
    compact,
    finish,
    heatmap,
    heatmap_grid,
    look,
    number,
    subtitle_lines,
)
from posviz.figures.layout import axis_name, on_panel, subplot_grid
from posviz.figures.rope_scaling import (
    FAST,
    GREY,
    SLOW,
    TWO_PI,
    angle_figure,
    f32,
    frequency_figure,
    scaling_freq_figure,
)

__all__ = [
    "angle_figure",
    "attention_figure",
    "decay_figure",
    "frequency_figure",
    "pair_circles_figure",
    "permutation_figure",
    "rotation_matrix_figure",
    "scaling_freq_figure",
    "score_matrix_figure",
    "shift_figure",
]

AT_M, AT_N = "#1f77b4", "#ff7f0e"


def _component_heatmap(z, *, x_title: str, y_title: str, value_name: str, zmin: float, zmax: float, palette: str):
    z = f32(z)
    n_rows, n_cols = z.shape
    extra = {}
    if n_rows <= MAX_TEXT_CELLS and n_cols <= MAX_TEXT_CELLS:
        extra["texttemplate"] = "%{z:.2f}"
    trace = go.Heatmap(
        z=z,
        x=compact(np.arange(n_cols)),
        y=compact(np.arange(n_rows)),
        colorscale=palette,
        zmin=zmin,
        zmax=zmax,
        colorbar=dict(title=dict(text=value_name, side="right")),
        hovertemplate=f"{y_title} = %{{y}}<br>{x_title} = %{{x}}<br>{value_name} = %{{z:.4g}}<extra></extra>",
        **extra,
    )
    fig = go.Figure(trace)
    whole = {"dtick": 1} if max(n_rows, n_cols) <= 12 else {}
    fig.update_xaxes(title_text=x_title, showgrid=False, zeroline=False, **whole)
    fig.update_yaxes(title_text=y_title, autorange="reversed", showgrid=False, zeroline=False, **whole)
    return fig


def rotation_matrix_figure(rot, *, position: int, layout: str, lecture: bool = False) -> go.Figure:
    """``R_m`` (dim x dim) on a diverging scale from −1 to 1."""
    lk = look(lecture)
    fig = _component_heatmap(
        rot,
        x_title="input component",
        y_title="output component",
        value_name="R_m",
        zmin=-1,
        zmax=1,
        palette=DIVERGING,
    )
    where = (
        "2 × 2 blocks [[cos, −sin], [sin, cos]] on the diagonal: pair k is components (2k, 2k+1)"
        if layout == "interleaved"
        else "the same blocks spread out: pair k is components (k, k + d/2), two diagonals of sines"
    )
    side = int(as_array(rot).shape[0])
    return finish(
        fig,
        title=f"Rotation matrix R_m at m = {position} ({layout} layout, {side} × {side})",
        subtitle=subtitle_lines(where, "fast pairs (top left) have turned far; slow ones are still near the identity"),
        lecture=lecture,
        height=max(lk.height, 560) if side > 16 else lk.height,
    )


def permutation_figure(perm, *, lecture: bool = False) -> go.Figure:
    """The permutation matrix ``P[i, perm[i]] = 1``: half-split component ``i`` is interleaved ``perm[i]``."""
    perm = as_array(perm).astype(np.int64)
    dim = len(perm)
    p = np.zeros((dim, dim), dtype=np.int8)
    p[np.arange(dim), perm] = 1
    fig = _component_heatmap(
        p,
        x_title="interleaved component",
        y_title="half-split component",
        value_name="P",
        zmin=0,
        zmax=1,
        palette="Greys",
    )
    fig.update_traces(texttemplate=None, showscale=False)
    return finish(
        fig,
        title="The permutation between the layouts",
        subtitle=subtitle_lines(
            "perm = [0, 2, …, d−2, 1, 3, …, d−1]: every pair's first component, then every second one",
            "R_half = P R_interleaved Pᵀ, and HF(x[perm]) = Meta(x)[perm]",
        ),
        lecture=lecture,
    )


def _circle(steps: int = 97) -> tuple[np.ndarray, np.ndarray]:
    t = np.linspace(0, TWO_PI, steps)
    return np.cos(t).astype(np.float32), np.sin(t).astype(np.float32)


def pair_circles_figure(
    at_zero,
    at_m,
    at_n,
    *,
    pairs,
    inv_freq,
    m: int,
    n: int,
    lecture: bool = False,
) -> go.Figure:
    """Each shown 2-D pair of a vector as an arrow on its unit circle at positions 0, ``m`` and ``n``.

    Args:
        at_zero, at_m, at_n: (pairs, 2) the pairs, normalised to length 1, at positions 0, m, n.
        pairs: (pairs,) the pair indices shown.
        inv_freq: (pairs,) their frequencies.
    """
    lk = look(lecture)
    pairs = as_array(pairs).astype(np.int64)
    inv = as_array(inv_freq).astype(np.float64)
    count = len(pairs)
    cols = min(count, 4 if lecture else 6)  # 6: two full rows of the 12 pairs shown at d = 64
    rows = -(-count // cols)
    layout = subplot_grid(
        rows,
        cols,
        titles=[f"k = {k}<br>θ = {number(t, 2)}" for k, t in zip(pairs, inv, strict=True)],  # two lines: no run-ons
        horizontal_spacing=0.02,
        vertical_spacing=0.16 / max(rows - 1, 1) if rows > 1 else 0.0,
    )
    cx, cy = _circle()
    traces = []
    for i in range(count):
        on = on_panel(i + 1)
        circle = dict(color="#cccccc", width=1)
        traces.append(
            dict(type="scatter", x=cx, y=cy, mode="lines", line=circle, hoverinfo="skip", showlegend=False, **on)
        )
        for vec, pos, color, name, dash in (
            (at_zero, 0, GREY, "position 0", "dot"),
            (at_m, m, AT_M, f"position m = {m}", "solid"),
            (at_n, n, AT_N, f"position n = {n}", "solid"),
        ):
            x, y = f32(as_array(vec)[i])
            turned = np.degrees((pos * inv[i]) % TWO_PI)
            traces.append(
                dict(
                    type="scatter",
                    x=np.array([0.0, x], dtype=np.float32),
                    y=np.array([0.0, y], dtype=np.float32),
                    mode="lines+markers",
                    line=dict(color=color, width=lk.line, dash=dash),
                    marker=dict(
                        symbol=["circle", "arrow"], size=[0, 4 * lk.line + 6], angleref="previous", color=color
                    ),
                    name=name,
                    legendgroup=name,
                    showlegend=i == 0,
                    hovertemplate=f"pair {pairs[i]}<br>{name}<br>turned by {pos}·θ = {turned:.1f}° (mod 360)"
                    "<extra></extra>",
                    **on,
                )
            )
    bare = dict(range=[-1.25, 1.25], showticklabels=False, showgrid=False, zeroline=False)
    for name in layout:
        if name.startswith(("xaxis", "yaxis")):
            layout[name].update(bare)
    for i in range(count):  # equal aspect in every panel
        layout[axis_name("y", i + 1)].update(scaleanchor=on_panel(i + 1)["xaxis"], scaleratio=1)
    fig = dict(data=traces, layout=layout)
    panel = 230 if lecture else 150
    fig = finish(
        fig,
        title=f"Each pair of the vector on its circle at positions 0, m = {m} and n = {n}",
        subtitle=subtitle_lines(
            "pair k turns by the angle m·θ_k: the fast pairs (left) spin, the slow ones (right) barely move",
            "each pair drawn at unit length (its length never changes)",
        ),
        lecture=lecture,
        height=panel * rows + 190,
    )
    return fig


def score_matrix_figure(scores, *, positions, lecture: bool = False) -> go.Figure:
    """``(R_i q) . (R_j k)`` for every query and key position: constant along each diagonal."""
    pos = as_array(positions)
    return heatmap(
        scores,
        q_pos=pos,
        k_pos=pos,
        title="(R_i q) · (R_j k) for one q and one k at every pair of positions",
        value_name="score",
        palette="diverging",
        subtitle="constant along each diagonal: the score depends on j − i only",
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
            name="score",
            hovertemplate="t = %{x}<br>score = %{y:.6g}<extra></extra>",
        )
    )
    spread = float(y.max() - y.min()) if y.size else 0.0
    fig.update_xaxes(title_text="shift t (both positions move by t)", type="log" if t.min() > 0 else "linear")
    fig.update_yaxes(title_text="(R_(m+t) q) · (R_(n+t) k)", exponentformat="none")
    pad = max(abs(float(y.mean())) * 0.05, 1e-3) if y.size else 1.0
    fig.update_yaxes(range=[float(y.mean()) - pad, float(y.mean()) + pad])
    return finish(
        fig,
        title=f"Shifting both positions: m + t = {m} + t, n + t = {n} + t",
        subtitle=f"largest minus smallest score over these shifts: {number(spread, 3)} (float64 rounding)",
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
        (rel["b"], "RoFormer bound (1/(d/2)) Σ|S_j|", "#444444", "solid", lk.line),
        (envelope, "its envelope (max at this distance or beyond)", "#444444", "dash", 1),
        (rel["a"], "mean |q · R_r q| (k = q)", SLOW, "solid", lk.line),
        (rel["i"], "mean |q · R_r k| (independent q, k)", FAST, "solid", lk.line),
    ):
        fig.add_trace(
            go.Scatter(
                x=compact(r[keep]),
                y=f32(y[keep]),
                mode="lines",
                line=dict(color=color, dash=dash, width=width),
                name=name,
                hovertemplate="distance r = %{x}<br>relative to r = 0: %{y:.3g}<extra>" + name + "</extra>",
            )
        )
    fig.update_xaxes(title_text="distance r = n − m (log)", type="log")
    fig.update_yaxes(title_text="relative to distance 0", rangemode="tozero")
    return finish(
        fig,
        title=f"Long-term decay, d = {dim}, distances up to {seq_len - 1}",
        subtitle=subtitle_lines(
            f"an envelope, not a monotone curve: the bound rises again at {rises} of {int(keep.sum()) - 1} steps "
            f"between the {int(keep.sum())} distances drawn",
            f"measured over {samples} random standard-normal vectors; "
            "independent q and k show no decay: it needs q and k to agree",
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
        title="Attention on a toy sequence, causal, with and without RoPE on q and k",
        subtitle="same token: every position holds the same vector, so only RoPE can tell them apart; "
        "colour: log scale",
        value_name="weight",
        palette="sequential",
        cols=len(titles),
        lecture=lecture,
        mask=pos[None, :] > pos[:, None],
        mask_label="future keys j > i: masked",
        log_scale=True,
    )

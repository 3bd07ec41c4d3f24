"""Figures for the RoPE explorer: frequencies, rotations, pairs on circles, decay, scaling."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

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

TWO_PI = 2 * np.pi
FAST, SLOW, GREY = "#1f77b4", "#d62728", "#7f7f7f"
AT_M, AT_N = "#1f77b4", "#ff7f0e"
METHOD_COLORS = {
    "default": "#444444",
    "linear": "#1f77b4",
    "dynamic": "#2ca02c",
    "yarn": "#d62728",
    "llama3": "#9467bd",
}


def _f32(x) -> np.ndarray:
    return as_array(x).astype(np.float32)


def frequency_figure(
    inv_freq,
    *,
    seq_len: int,
    default_inv_freq=None,
    original_max_position: int | None = None,
    method: str = "default",
    lecture: bool = False,
) -> go.Figure:
    """``theta_k`` and the wavelength ``2 pi / theta_k`` of every pair on log axes, the context marked.

    Pairs whose wavelength exceeds ``seq_len`` never complete a turn inside the context (red).
    """
    lk = look(lecture)
    inv = as_array(inv_freq).astype(np.float64)
    pairs = np.arange(len(inv))
    wave = TWO_PI / inv
    slow = wave > seq_len
    turns = seq_len / wave
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=["frequency θ_k (radians per token)", "wavelength 2π / θ_k (tokens)"],
        horizontal_spacing=0.1,
    )
    hover = "pair k = %{x}<br>θ_k = %{customdata[0]:.4g}<br>wavelength = %{customdata[1]:.4g} tokens"
    hover += f"<br>turns in {seq_len} tokens = %{{customdata[2]:.3g}}<extra>%{{fullData.name}}</extra>"
    custom = np.stack([inv, wave, turns], axis=1).astype(np.float32)
    if default_inv_freq is not None and method != "default":
        d = as_array(default_inv_freq).astype(np.float64)
        for col, y in ((1, d), (2, TWO_PI / d)):
            fig.add_trace(
                go.Scatter(
                    x=compact(pairs),
                    y=_f32(y),
                    mode="lines",
                    line=dict(color=GREY, dash="dot", width=lk.line),
                    name="default (no scaling)",
                    legendgroup="default",
                    showlegend=col == 1,
                    hovertemplate="pair k = %{x}<br>default = %{y:.4g}<extra></extra>",
                ),
                row=1,
                col=col,
            )
    for col, y in ((1, inv), (2, wave)):
        for mask, name, color in ((~slow, "completes a turn", FAST), (slow, "never completes a turn", SLOW)):
            if not mask.any():
                continue
            fig.add_trace(
                go.Scatter(
                    x=compact(pairs[mask]),
                    y=_f32(y[mask]),
                    customdata=custom[mask],
                    mode="markers",
                    marker=dict(color=color, size=lk.line * 3 + 2),
                    name=f"{name} in {seq_len} tokens",
                    legendgroup=name,
                    showlegend=col == 2,
                    hovertemplate=hover,
                ),
                row=1,
                col=col,
            )
    fig.add_hline(
        y=seq_len,
        row=1,
        col=2,
        line=dict(color=SLOW, dash="dash"),
        annotation_text=f"seq_len = {seq_len}",
        annotation_position="top left",
    )
    if original_max_position is not None and method != "default" and original_max_position != seq_len:
        fig.add_hline(
            y=original_max_position,
            row=1,
            col=2,
            line=dict(color=GREY, dash="dot"),
            annotation_text=f"original context = {original_max_position}",
            annotation_position="bottom right",
        )
    fig.update_yaxes(type="log", exponentformat="power")
    fig.update_yaxes(title_text="θ_k (log)", row=1, col=1)
    fig.update_yaxes(title_text="tokens per turn (log)", row=1, col=2)
    fig.update_xaxes(title_text="pair k")
    n_slow = int(slow.sum())
    return finish(
        fig,
        title="Frequencies and wavelengths of the pairs",
        subtitle=subtitle_lines(
            f"θ_k = base^(−2k/d); {n_slow} of {len(inv)} pairs never complete a turn within seq_len = {seq_len} (red)",
            f"frequencies of the {method} method" if method != "default" else None,
        ),
        lecture=lecture,
        height=int(lk.height * 1.05),
    )


def _component_heatmap(z, *, x_title: str, y_title: str, value_name: str, zmin: float, zmax: float, palette: str):
    z = _f32(z)
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
    cols = min(count, 4 if lecture else 8)
    rows = -(-count // cols)
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[f"k = {k}, θ = {number(t, 2)}" for k, t in zip(pairs, inv, strict=True)],
        horizontal_spacing=0.02,
        vertical_spacing=0.12 / max(rows - 1, 1) if rows > 1 else 0.0,
    )
    cx, cy = _circle()
    for i in range(count):
        row, col = i // cols + 1, i % cols + 1
        fig.add_trace(
            go.Scatter(
                x=cx, y=cy, mode="lines", line=dict(color="#cccccc", width=1), hoverinfo="skip", showlegend=False
            ),
            row=row,
            col=col,
        )
        for vec, pos, color, name, dash in (
            (at_zero, 0, GREY, "position 0", "dot"),
            (at_m, m, AT_M, f"position m = {m}", "solid"),
            (at_n, n, AT_N, f"position n = {n}", "solid"),
        ):
            x, y = _f32(as_array(vec)[i])
            turned = np.degrees((pos * inv[i]) % TWO_PI)
            fig.add_trace(
                go.Scatter(
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
                ),
                row=row,
                col=col,
            )
    fig.update_xaxes(range=[-1.25, 1.25], showticklabels=False, showgrid=False, zeroline=False)
    fig.update_yaxes(range=[-1.25, 1.25], showticklabels=False, showgrid=False, zeroline=False)
    for i in range(count):  # equal aspect in every panel
        suffix = "" if i == 0 else str(i + 1)
        fig.update_layout({f"yaxis{suffix}": dict(scaleanchor=f"x{suffix}", scaleratio=1)})
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
                y=_f32(y[keep]),
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


def scaling_freq_figure(
    ratios: dict[str, np.ndarray],
    attention: dict[str, float],
    *,
    chosen: str,
    factor: float,
    lecture: bool = False,
) -> go.Figure:
    """Every method's ``inv_freq / default inv_freq`` per pair, the chosen one bold."""
    lk = look(lecture)
    fig = go.Figure()
    for name, ratio in ratios.items():
        ratio = as_array(ratio).astype(np.float64)
        bold = name == chosen
        fig.add_trace(
            go.Scatter(
                x=compact(np.arange(len(ratio))),
                y=_f32(ratio),
                mode="lines+markers" if bold else "lines",
                line=dict(
                    color=METHOD_COLORS.get(name, GREY),
                    width=lk.line * (2 if bold else 1),
                    dash=None if bold else "dot",
                ),
                marker=dict(size=lk.line * 2 + 2),
                name=f"{name} (attention factor {number(attention[name])})",
                hovertemplate="pair k = %{x}<br>inv_freq / default = %{y:.4g}<extra>" + name + "</extra>",
            )
        )
    fig.update_xaxes(title_text="pair k (fast → slow)")
    fig.update_yaxes(title_text="inv_freq / default (log)", type="log")
    return finish(
        fig,
        title=f"What each method does to each pair (factor = {number(factor)})",
        subtitle=subtitle_lines(
            f"1: the pair is left alone; 1/{number(factor)}: the pair turns {number(factor)} times slower "
            "(interpolated)",
            f"bold: {chosen}; dynamic is drawn at the page's seq_len",
        ),
        lecture=lecture,
    )


def angle_figure(
    positions,
    default_angles,
    scaled_angles,
    *,
    pairs,
    trained,
    original_max_position: int,
    method: str,
    lecture: bool = False,
) -> go.Figure:
    """Rotation angle (in turns) of chosen pairs against position, default dashed and scaled solid.

    Args:
        positions: (p,) positions.
        default_angles, scaled_angles: (p, pairs) angles in radians.
        pairs: (pairs,) the pair indices.
        trained: (pairs,) radians: the largest angle each pair reaches in the original context.
    """
    lk = look(lecture)
    pairs = as_array(pairs).astype(np.int64)
    pos = as_array(positions)
    dflt = as_array(default_angles).astype(np.float64) / TWO_PI
    scl = as_array(scaled_angles).astype(np.float64) / TWO_PI
    fig = make_subplots(rows=1, cols=len(pairs), subplot_titles=[f"pair {k}" for k in pairs], horizontal_spacing=0.07)
    for i, k in enumerate(pairs):
        seen = float(as_array(trained)[i]) / TWO_PI
        curves = [(dflt[:, i], "default", "dot", GREY)]
        if method != "default":
            curves.append((scl[:, i], method, "solid", SLOW))
        for y, name, dash, color in curves:
            fig.add_trace(
                go.Scatter(
                    x=compact(pos),
                    y=_f32(y),
                    mode="lines",
                    line=dict(color=color, dash=dash, width=lk.line),
                    name=name,
                    legendgroup=name,
                    showlegend=i == 0,
                    hovertemplate=f"pair {k}<br>position = %{{x}}<br>angle = %{{y:.4g}} turns<extra>{name}</extra>",
                ),
                row=1,
                col=i + 1,
            )
        fig.add_hline(y=seen, line=dict(color="#2ca02c", dash="dash", width=1), row=1, col=i + 1)
        fig.add_vline(x=original_max_position, line=dict(color="#555", dash="dot"), row=1, col=i + 1)
    fig.update_xaxes(title_text="position (log)", type="log")
    fig.update_yaxes(type="log", exponentformat="power")
    fig.update_yaxes(title_text="angle (turns, log)", row=1, col=1)
    fig = finish(
        fig,
        title="Rotation angle against position, fast, middle and slow pairs",
        subtitle=subtitle_lines(
            f"dotted vertical: the original context ({original_max_position}); "
            "dashed green: the largest angle the pair reached in training",
            "a curve above the green line shows the model angles it never saw",
        ),
        lecture=lecture,
        height=int(lk.height * 0.9),
    )
    return fig


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

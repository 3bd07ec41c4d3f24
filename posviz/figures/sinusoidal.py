"""Figures for the sinusoidal (and learned absolute) position page."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from posviz.figures.common import (
    DIVERGING,
    MASK_COLOR,
    Panel,
    as_array,
    compact,
    finish,
    heatmap,
    heatmap_row,
    look,
    mask_traces,
    number,
    ordinal,
    subtitle_lines,
)

LAYOUT_NAMES = {
    "interleaved": "interleaved [sin₀, cos₀, sin₁, cos₁, …]",
    "concat": "concat [sin₀, sin₁, …, cos₀, cos₁, …]",
}
WAVE_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


def _stride_note(positions, seq_len: int) -> str | None:
    pos = as_array(positions)
    if len(pos) >= seq_len:
        return None
    stride = int(pos[1] - pos[0]) if len(pos) > 1 else seq_len
    return f"Strided sample: {len(pos)} of {seq_len} positions (every {ordinal(stride)}, plus the last)"


def _component_trace(table, positions, *, name: str, coloraxis: str = "coloraxis") -> go.Heatmap:
    z = as_array(table).astype(np.float32)
    return go.Heatmap(
        z=z,
        x=compact(np.arange(z.shape[1])),
        y=compact(as_array(positions)),
        coloraxis=coloraxis,
        name=name,
        hovertemplate="position p = %{y}<br>component %{x}<br>value = %{z:.3f}<extra>" + name + "</extra>",
    )


def _stride(positions) -> int:
    pos = as_array(positions)
    return int(pos[1] - pos[0]) if len(pos) > 1 else 1


def component_wavelengths(components, dim: int, *, base: float, layout: str) -> np.ndarray:
    """Wavelength ``2 pi / theta_k`` (tokens) of each component: (len(components),) float64."""
    comps = as_array(components).astype(np.int64)
    pair = comps // 2 if layout == "interleaved" else comps % (dim // 2)
    return 2 * np.pi * base ** (2.0 * pair / dim)


def aliased(wavelengths, stride: int) -> np.ndarray:
    """Components a sample every ``stride`` positions cannot show: wavelength below two strides (Nyquist)."""
    return as_array(wavelengths) < 2 * stride if stride > 1 else np.zeros(len(as_array(wavelengths)), dtype=bool)


def table_figure(table, *, positions, seq_len: int, layout: str, base: float, lecture: bool = False) -> go.Figure:
    """The table ``(positions shown, dim)`` as a heatmap: position down, component across.

    In a strided sample, a component whose wavelength is below two strides would
    draw aliasing noise, not its wave: its column is left out (grey, with a legend entry).
    """
    z = as_array(table).astype(np.float32)
    dim = z.shape[1]
    stride = _stride(positions)
    bad = aliased(component_wavelengths(np.arange(dim), dim, base=base, layout=layout), stride)
    fig = go.Figure(_component_trace(np.where(bad[None, :], np.nan, z), positions, name=layout))
    fig.update_traces(hoverongaps=False)
    fig.update_layout(coloraxis=dict(colorscale=DIVERGING, cmin=-1, cmax=1, cmid=0, colorbar=dict(title="PE")))
    fig.update_xaxes(
        title_text="component (fast → slow)" if layout == "interleaved" else "component: sin | cos", showgrid=False
    )
    fig.update_yaxes(title_text="position p", autorange="reversed", showgrid=False)
    if layout == "concat":
        fig.add_vline(x=dim / 2 - 0.5, line=dict(color="#111", dash="dash", width=look(lecture).line))
    note = None
    if bad.any():
        label = f"λ < 2 × stride ({2 * stride}): aliased in this sample, not drawn"
        mask = np.broadcast_to(bad[None, :], z.shape)
        for trace in mask_traces(mask, positions, np.arange(dim), label=label, lecture=lecture):
            fig.add_trace(trace)
        fig.update_layout(plot_bgcolor=MASK_COLOR)
        note = f"{int(bad.sum())} of {dim} components repeat faster than every {2 * stride} tokens: grey"
    return finish(
        fig,
        title=f"The sinusoidal table, {LAYOUT_NAMES[layout]}",
        subtitle=subtitle_lines(
            f"PE(p, 2k) = sin(p θ_k), PE(p, 2k+1) = cos(p θ_k), θ_k = {number(base)}^(−2k/{dim}); "
            "left columns change every token, right ones hardly at all",
            _stride_note(positions, seq_len),
            note,
        ),
        lecture=lecture,
    )


DENSE_PX = 12  # a wave with less than 12 px per period reads as a solid band


def waves_figure(
    positions,
    values,
    *,
    components,
    labels: list[str],
    seq_len: int,
    lecture: bool = False,
    wavelengths=None,
) -> go.Figure:
    """Chosen components as waves against position.

    Args:
        values: (positions shown, len(components)).
        labels: a legend entry per component (its pair, sin or cos, and wavelength).
        wavelengths: (len(components),) tokens per period (:func:`component_wavelengths`); with them, a
            component whose wavelength is below two display strides (aliased in the sample) is drawn
            as the band it fills, -1 to 1, not as the noise its samples make.
    """
    lk = look(lecture)
    pos = as_array(positions)
    vals = as_array(values).astype(np.float32)
    comps = as_array(components)
    stride = _stride(pos)
    waves = None if wavelengths is None else as_array(wavelengths).astype(np.float64)
    bad = aliased(waves, stride) if waves is not None else np.zeros(len(comps), dtype=bool)
    span = float(pos.max() - pos.min()) if len(pos) else 1.0
    dense = waves is not None and bool((span / waves[~bad] > lk.width / DENSE_PX).any())
    fig = go.Figure()
    for c, (comp, label) in enumerate(zip(comps.tolist(), labels, strict=True)):
        color = WAVE_COLORS[c % len(WAVE_COLORS)]
        if bad[c]:  # its samples are aliasing noise: draw the range it fills instead
            fig.add_trace(
                go.Scatter(
                    x=np.array([pos[0], pos[-1], pos[-1], pos[0]], dtype=np.float32),
                    y=np.array([1, 1, -1, -1], dtype=np.float32),
                    fill="toself",
                    mode="lines",
                    line=dict(width=0, color=color),
                    fillcolor=color,
                    opacity=0.2,
                    name=f"{label}: aliased at this stride, its range ±1 shown",
                    hovertemplate=f"component {comp}: wavelength {number(waves[c])} < 2 × stride {stride}"
                    "<extra></extra>",
                )
            )
            continue
        fig.add_trace(
            go.Scatter(
                x=compact(pos),
                y=vals[:, c],
                mode="lines",
                name=label,
                line=dict(width=lk.line, color=color),
                hovertemplate=f"component {comp}<br>position = %{{x}}<br>PE = %{{y:.3f}}<extra></extra>",
            )
        )
    fig.update_xaxes(title_text="position p")
    fig.update_yaxes(title_text="PE(p, component)", range=[-1.1, 1.1])
    stride_note = _stride_note(pos, seq_len)
    return finish(
        fig,
        title="Chosen components against position: one wave per frequency",
        subtitle=subtitle_lines(
            "a component with wavelength λ repeats every λ tokens; together they give every position its own pattern",
            stride_note and stride_note + "; waves shorter than twice the stride are aliased",
            "shaded: aliased components, drawn as the band they fill" if bad.any() else None,
            "the fastest waves fill a solid band at this length: drag a box to zoom in" if dense else None,
        ),
        lecture=lecture,
    )


def similarity_figure(sim, *, positions, seq_len: int, dim: int, lecture: bool = False) -> go.Figure:
    """``PE_i . PE_j`` for the positions shown, each cell the mean over the block it starts
    (:mod:`posviz.encodings.pooling`: a strided sample of these waves would draw false stripes)."""
    pos = as_array(positions)
    return heatmap(
        sim,
        q_pos=pos,
        k_pos=pos,
        q_len=seq_len,
        k_len=seq_len,
        title="Similarity PE_i · PE_j: constant along each diagonal j − i",
        subtitle=f"the diagonal is |PE|² = d/2 = {dim // 2}; the same in both layouts (a permutation keeps dots)",
        value_name="PE_i · PE_j",
        palette="diverging",
        lecture=lecture,
        pooled=True,
    )


def profile_figure(distances, closed, measured: dict[str, np.ndarray], *, dim: int, lecture: bool = False) -> go.Figure:
    """``PE_p . PE_(p+r)`` against ``r``: the closed form and measurements from several starting positions."""
    lk = look(lecture)
    r = as_array(distances)
    fig = go.Figure(
        go.Scatter(
            x=compact(r),
            y=as_array(closed).astype(np.float32),
            mode="lines",
            name="Σ_k cos(r θ_k)",
            line=dict(width=lk.line, color="#444"),
            hovertemplate="r = %{x}<br>Σ cos(r θ_k) = %{y:.4f}<extra></extra>",
        )
    )
    for (name, y), color in zip(measured.items(), WAVE_COLORS, strict=False):
        fig.add_trace(
            go.Scatter(
                x=compact(r),
                y=as_array(y).astype(np.float32),
                mode="markers",
                name=name,
                marker=dict(size=lk.line * 2 + 2, color=color, symbol="circle-open"),
                hovertemplate=f"{name}<br>r = %{{x}}<br>PE_p · PE_(p+r) = %{{y:.4f}}<extra></extra>",
            )
        )
    fig.update_xaxes(title_text="distance r (log)", type="log" if r.min() > 0 else "linear")
    fig.update_yaxes(title_text="PE_p · PE_(p+r)")
    return finish(
        fig,
        title="The similarity depends on the distance only",
        subtitle=subtitle_lines(
            f"measured from different p, every marker lands on the same curve; {dim // 2} at r = 0, "
            "falling and oscillating with distance",
            "it is even in r: PE alone cannot tell a key before from a key after",
        ),
        lecture=lecture,
    )


def layouts_figure(interleaved, concat, perm, *, positions, lecture: bool = False) -> go.Figure:
    """Both layouts side by side, and the permutation matrix between them."""
    dim = as_array(interleaved).shape[1]
    fig = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=["interleaved (the paper)", "concat (Transformer-XL)", "P: concat = interleaved · P"],
        horizontal_spacing=0.08,
    )
    fig.add_trace(_component_trace(interleaved, positions, name="interleaved"), row=1, col=1)
    fig.add_trace(_component_trace(concat, positions, name="concat"), row=1, col=2)
    perm = as_array(perm).astype(np.int64)
    p = np.zeros((dim, dim), dtype=np.int8)
    p[perm, np.arange(dim)] = 1  # column c of concat is column perm[c] of interleaved
    fig.add_trace(
        go.Heatmap(
            z=p,
            x=compact(np.arange(dim)),
            y=compact(np.arange(dim)),
            colorscale="Greys",
            zmin=0,
            zmax=1,
            showscale=False,
            hovertemplate="interleaved component %{y}<br>concat component %{x}<br>P = %{z}<extra></extra>",
        ),
        row=1,
        col=3,
    )
    fig.update_layout(coloraxis=dict(colorscale=DIVERGING, cmin=-1, cmax=1, cmid=0, colorbar=dict(title="PE")))
    for c in (1, 2):
        fig.update_xaxes(title_text="component", row=1, col=c)
    fig.update_xaxes(title_text="concat component", row=1, col=3)
    fig.update_yaxes(title_text="position p", row=1, col=1)
    fig.update_yaxes(title_text="interleaved component", row=1, col=3)
    fig.update_yaxes(autorange="reversed", showgrid=False, zeroline=False)
    fig.update_xaxes(showgrid=False, zeroline=False)
    fig = finish(
        fig,
        title="The two layouts are one permutation apart",
        subtitle=subtitle_lines(
            "perm = [0, 2, …, d−2, 1, 3, …, d−1]: every sin, then every cos",
            "a checkpoint trained in one layout needs its input rows permuted to run in the other",
        ),
        lecture=lecture,
    )
    return fig


def learned_figure(sinusoidal_cos, learned_cos, *, positions, seq_len: int, lecture: bool = False) -> go.Figure:
    """Cosine similarity of the sinusoidal table next to a learned table at initialisation, one scale."""
    pos = as_array(positions)
    return heatmap_row(
        [
            Panel(sinusoidal_cos, "sinusoidal: bands along the diagonals", "cosine", "diverging", -1, 1),
            Panel(learned_cos, "learned, at initialisation: no structure", "cosine", "diverging", -1, 1),
        ],
        q_pos=pos,
        k_pos=pos,
        q_len=seq_len,
        k_len=seq_len,
        title="Cosine similarity of position vectors: sinusoidal against learned (BERT/GPT style)",
        subtitle="learned table seeded N(0, 0.02²) as BERT and GPT-2 initialise it; training has to discover any order",
        shared_scale=True,
        lecture=lecture,
    )

"""RoPE's frequencies: each pair's speed and wavelength, and what context-extension scaling does to them.

``frequencies``, ``scaling_frequencies`` and ``angles`` are what the page (and a notebook) calls, each a
function of plain arguments: ``dim``, ``base``, the chosen ``method``, its ``factor`` and
``original_max_position``, and ``options``, the method's own options (Hugging Face names, None for
unset) as sorted ``(name, value)`` pairs (``ROPE_SCALING``); dynamic NTK's is ``seq_len``. The
``*_figure`` builders turn arrays into specs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

from posviz.encodings.positions import curve_positions
from posviz.encodings.rope import rope_angles, rope_inv_freq, rope_never_turning, rope_speed_ratio, rope_wavelengths
from posviz.encodings.rope_scaling import METHODS, ROPE_SCALING, ScalingOptions, rope_scaling
from posviz.figures.chart import Chart
from posviz.figures.common import as_array, compact, finish, look, number, subtitle_lines
from posviz.figures.csv import columns_csv
from posviz.figures.layout import axis_name, on_panel, subplot_grid
from posviz.figures.marks import Mark, add_marks
from posviz.i18n import _

ANGLE_POINTS = 400  # log-spaced positions of the angle curves
TWO_PI = 2 * np.pi
FAST, SLOW, GREY = "#1f77b4", "#d62728", "#7f7f7f"
METHOD_COLORS = {
    "default": "#444444",
    "linear": "#1f77b4",
    "dynamic": "#2ca02c",
    "yarn": "#d62728",
    "llama3": "#9467bd",
}


def f32(x) -> np.ndarray:
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
    titles = [_("frequency θ_k (radians per token)"), _("wavelength 2π / θ_k (tokens)")]
    layout = subplot_grid(1, 2, titles=titles, horizontal_spacing=0.1)
    traces = []
    hover = _("pair k = %{x}<br>θ_k = %{customdata[0]:.4g}<br>wavelength = %{customdata[1]:.4g} tokens")
    hover += "<br>" + _("turns in {seq_len} tokens").format(seq_len=seq_len)
    hover += " = %{customdata[2]:.3g}<extra>%{fullData.name}</extra>"
    custom = np.stack([inv, wave, turns], axis=1).astype(np.float32)
    if default_inv_freq is not None and method != "default":
        d = as_array(default_inv_freq).astype(np.float64)
        for col, y in ((1, d), (2, TWO_PI / d)):
            traces.append(
                dict(
                    type="scatter",
                    x=compact(pairs),
                    y=f32(y),
                    mode="lines",
                    line=dict(color=GREY, dash="dot", width=lk.line),
                    name=_("default (no scaling)"),
                    legendgroup="default",
                    showlegend=col == 1,
                    hovertemplate=_("pair k = %{x}<br>default = %{y:.4g}") + "<extra></extra>",
                    **on_panel(col),
                )
            )
    for col, y in ((1, inv), (2, wave)):
        for mask, group, name, color in (
            (~slow, "completes a turn", _("completes a turn in {seq_len} tokens"), FAST),
            (slow, "never completes a turn", _("never completes a turn in {seq_len} tokens"), SLOW),
        ):
            if not mask.any():
                continue
            traces.append(
                dict(
                    type="scatter",
                    x=compact(pairs[mask]),
                    y=f32(y[mask]),
                    customdata=custom[mask],
                    mode="markers",
                    marker=dict(color=color, size=lk.line * 3 + 2),
                    name=name.format(seq_len=seq_len),
                    legendgroup=group,
                    showlegend=col == 2,
                    hovertemplate=hover,
                    **on_panel(col),
                )
            )
    marks = [(seq_len, f"seq_len = {seq_len}", SLOW, "dash", "top left")]
    if original_max_position is not None and method != "default" and original_max_position != seq_len:
        marks.append(
            (
                original_max_position,
                _("original context = {original_max_position}").format(original_max_position=original_max_position),
                GREY,
                "dot",
                "bottom right",
            )
        )
    fig = dict(data=traces, layout=layout)
    for y, text, color, dash, where in marks:
        add_marks(fig, [Mark(y, text, where)], vertical=False, line=dict(color=color, dash=dash), panel=2, log=True)
    for panel, title in ((1, _("θ_k (log)")), (2, _("tokens per turn (log)"))):
        layout[axis_name("y", panel)].update(type="log", exponentformat="power", title=dict(text=title))
        layout[axis_name("x", panel)]["title"] = dict(text=_("pair k"))
    n_slow = int(slow.sum())
    return finish(
        fig,
        title=_("Frequencies and wavelengths of the pairs"),
        subtitle=subtitle_lines(
            _(
                "θ_k = base^(−2k/d); {slow} of {pairs} pairs never complete a turn within seq_len = {seq_len} (red)"
            ).format(slow=n_slow, pairs=len(inv), seq_len=seq_len),
            _("frequencies of the {method} method").format(method=method) if method != "default" else None,
        ),
        lecture=lecture,
        height=int(lk.height * 1.05),
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
                y=f32(ratio),
                mode="lines+markers" if bold else "lines",
                line=dict(
                    color=METHOD_COLORS.get(name, GREY),
                    width=lk.line * (2 if bold else 1),
                    dash=None if bold else "dot",
                ),
                marker=dict(size=lk.line * 2 + 2),
                name=_("{method} (attention factor {factor})").format(method=name, factor=number(attention[name])),
                hovertemplate=_("pair k = %{x}<br>inv_freq / default = %{y:.4g}") + "<extra>" + name + "</extra>",
            )
        )
    fig.update_xaxes(title_text=_("pair k (fast → slow)"))
    fig.update_yaxes(title_text=_("inv_freq / default (log)"), type="log")
    return finish(
        fig,
        title=_("What each method does to each pair (factor = {factor})").format(factor=number(factor)),
        subtitle=subtitle_lines(
            _("1: the pair is left alone; 1/{factor}: the pair turns {factor} times slower (interpolated)").format(
                factor=number(factor)
            ),
            _("bold: {chosen}; dynamic is drawn at the page's seq_len").format(chosen=chosen),
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
    fig = make_subplots(
        rows=1, cols=len(pairs), subplot_titles=[_("pair {k}").format(k=k) for k in pairs], horizontal_spacing=0.07
    )
    for i, k in enumerate(pairs):
        seen = float(as_array(trained)[i]) / TWO_PI
        curves = [(dflt[:, i], _("default"), "dot", GREY)]
        if method != "default":
            curves.append((scl[:, i], method, "solid", SLOW))
        for y, name, dash, color in curves:
            fig.add_trace(
                go.Scatter(
                    x=compact(pos),
                    y=f32(y),
                    mode="lines",
                    line=dict(color=color, dash=dash, width=lk.line),
                    name=name,
                    legendgroup=name,
                    showlegend=i == 0,
                    hovertemplate=_("pair {k}").format(k=k)
                    + "<br>"
                    + _("position = %{x}<br>angle = %{y:.4g} turns")
                    + f"<extra>{name}</extra>",
                ),
                row=1,
                col=i + 1,
            )
        fig.add_hline(y=seen, line=dict(color="#2ca02c", dash="dash", width=1), row=1, col=i + 1)
        fig.add_vline(x=original_max_position, line=dict(color="#555", dash="dot"), row=1, col=i + 1)
    fig.update_xaxes(title_text=_("position (log)"), type="log")
    fig.update_yaxes(type="log", exponentformat="power")
    fig.update_yaxes(title_text=_("angle (turns, log)"), row=1, col=1)
    fig = finish(
        fig,
        title=_("Rotation angle against position, fast, middle and slow pairs"),
        subtitle=subtitle_lines(
            _(
                "dotted vertical: the original context ({original_max_position}); "
                "dashed green: the largest angle the pair reached in training"
            ).format(original_max_position=original_max_position),
            _("a curve above the green line shows the model angles it never saw"),
        ),
        lecture=lecture,
        height=int(lk.height * 0.9),
    )
    return fig


# --- the figures, by plain arguments ---------------------------------------------------------------


def angle_pairs(dim: int) -> list[int]:
    """Fast, middle and slow pair (fewer when dim is small)."""
    half = dim // 2
    return sorted({0, half // 2, half - 1})


def angle_positions(seq_len: int) -> np.ndarray:
    """(p,) int64: positions of the angle curves, log-spaced from 1 to ``seq_len - 1`` (the axes are logarithmic)."""
    return curve_positions(max(seq_len - 1, 1), dense=0, points=ANGLE_POINTS, start=1).numpy()


def default_options(method: str, *, seq_len: int) -> dict[str, Any]:
    """A method's own options at Hugging Face's defaults (the page shows only the chosen method's options);
    ``seq_len`` for the one that reads the current length."""
    return {o.name: seq_len if o.name == "seq_len" else o.default for o in ROPE_SCALING[method].options}


def frequencies(
    *,
    dim: int,
    base: float,
    method: str,
    factor: float,
    original_max_position: int,
    options: ScalingOptions,
    seq_len: int,
    lecture: bool = False,
) -> Chart:
    """``theta_k`` and the wavelength of every pair under ``method``, the default dotted, ``seq_len`` marked."""
    inv, _ = rope_scaling(
        method, dim, base=base, factor=factor, original_max_position=original_max_position, **dict(options)
    )
    figure = frequency_figure(
        inv.numpy(),
        seq_len=seq_len,
        default_inv_freq=rope_inv_freq(dim, base=base).numpy(),
        original_max_position=original_max_position,
        method=method,
        lecture=lecture,
    )
    columns = {"pair k": range(len(inv)), "theta_k": inv.numpy(), "wavelength": rope_wavelengths(inv).numpy()}
    return Chart.of(figure, lambda: columns_csv(columns))


def scaling_frequencies(
    *,
    dim: int,
    base: float,
    method: str,
    factor: float,
    original_max_position: int,
    options: ScalingOptions,
    seq_len: int,
    lecture: bool = False,
) -> Chart:
    """Every method's ``inv_freq / default`` per pair (``method`` with ``options``, the others at their
    defaults, dynamic NTK at ``seq_len``); a method whose own rules refuse these settings is left out."""
    default = rope_inv_freq(dim, base=base)
    ratios, attention = {}, {}
    for t in METHODS:
        own = dict(options) if t == method else default_options(t, seq_len=seq_len)
        try:
            inv, att = rope_scaling(
                t, dim, base=base, factor=factor, original_max_position=original_max_position, **own
            )
        except ValueError:  # another method's rule (dynamic at dim 2): left out of the comparison
            continue
        ratios[t], attention[t] = rope_speed_ratio(inv, default).numpy(), att
    figure = scaling_freq_figure(ratios, attention, chosen=method, factor=factor, lecture=lecture)
    return Chart.of(figure, lambda: columns_csv({"pair k": range(dim // 2), **ratios}))


def angles(
    *,
    dim: int,
    base: float,
    method: str,
    factor: float,
    original_max_position: int,
    options: ScalingOptions,
    seq_len: int,
    lecture: bool = False,
) -> Chart:
    """Rotation angle of a fast, a middle and a slow pair against position (up to ``seq_len - 1``),
    default and under ``method``, with the largest angle each reached in the original context."""
    inv, _ = rope_scaling(
        method, dim, base=base, factor=factor, original_max_position=original_max_position, **dict(options)
    )
    default = rope_inv_freq(dim, base=base)
    pos = angle_positions(seq_len)
    pairs = angle_pairs(dim)
    kk = torch.tensor(pairs)
    default_angles = rope_angles(torch.as_tensor(pos), default[kk]).numpy()  # (p, pairs) radians
    scaled_angles = rope_angles(torch.as_tensor(pos), inv[kk]).numpy()
    trained = rope_angles(torch.tensor([original_max_position - 1]), default[kk])[0].numpy()
    figure = angle_figure(
        pos,
        default_angles,
        scaled_angles,
        pairs=pairs,
        trained=trained,
        original_max_position=original_max_position,
        method=method,
        lecture=lecture,
    )
    columns = {
        "position": pos,
        **{f"pair {p} default": default_angles[:, i] for i, p in enumerate(pairs)},
        **{f"pair {p} {method}": scaled_angles[:, i] for i, p in enumerate(pairs)},
    }
    return Chart.of(figure, lambda: columns_csv(columns))


@dataclass(frozen=True)
class FrequencyNotes:
    """The numbers the page writes about the chosen method's frequencies."""

    fastest_wavelength: float  # tokens per turn of pair 0
    slowest_wavelength: float  # of the last pair
    never_turning: int  # pairs that never complete a turn within seq_len
    pairs: int
    fastest_ratio: float  # pair 0's frequency against its default
    slowest_ratio: float
    attention_factor: float


def frequency_notes(
    *,
    dim: int,
    base: float,
    method: str,
    factor: float,
    original_max_position: int,
    options: ScalingOptions,
    seq_len: int,
) -> FrequencyNotes:
    """The range of wavelengths, the pairs slower than ``seq_len``, and what ``method`` did to the ends."""
    inv, att = rope_scaling(
        method, dim, base=base, factor=factor, original_max_position=original_max_position, **dict(options)
    )
    wave = rope_wavelengths(inv)
    ratio = rope_speed_ratio(inv, rope_inv_freq(dim, base=base))
    return FrequencyNotes(
        fastest_wavelength=float(wave[0]),
        slowest_wavelength=float(wave[-1]),
        never_turning=rope_never_turning(inv, seq_len),
        pairs=len(inv),
        fastest_ratio=float(ratio[0]),
        slowest_ratio=float(ratio[-1]),
        attention_factor=float(att),
    )

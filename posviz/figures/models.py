"""Figures for real models: the layer strip, frequencies and wavelengths per attention kind, reach, masks.

Plain Plotly, usable in a notebook::

    mp = model_positions(config)
    layer_strip_figure(mp.layers, model="Gemma 3 27B")
    inv, _ = mp.rope("full"); spec = mp.rope_spec("full")
    wavelength_figure(inv, spec.default_inv_freq(), trained=spec.trained_context, extended=spec.extended_context)
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz.encodings.model_hf import KINDS
from posviz.encodings.model_layers import Layer
from posviz.figures.common import MASK_COLOR, as_array, compact, finish, look, number, sample_note, subtitle_lines
from posviz.i18n import N_, _, ngettext

TWO_PI = 2 * np.pi
# Okabe-Ito, colourblind-safe: one colour per attention kind, and the position-encoding row.
KIND_COLORS = {"full": "#0072B2", "sliding": "#E69F00", "chunked": "#009E73"}
KIND_COLORS |= {  # kinds of 2025-26 (Tol's muted scheme, also colourblind-safe); no attention position: earthy
    "indexed": "#56B4E9", "minimax_m3_sparse": "#56B4E9", "compressed_sparse": "#332288",
    "heavily_compressed": "#117733", "hybrid": "#882255", "hybrid_sliding": "#AA4499", "reference_sliding": "#E69F00",
    "window": "#009E73", "linear": "#44AA99", "conv": "#999933", "mlp": "#AAAAAA", "moe": "#888888",
}  # fmt: skip
ROPE_COLORS = {True: "#CC79A7", False: "#DDDDDD"}
CATEGORIES = (*KINDS, "RoPE", "NoPE")  # z codes of the strip
SCALED, DEFAULT, SLOW = "#D55E00", "#7f7f7f", "#D55E00"
TEXT_CELLS = 32  # write each layer's window in its cell up to this many layers
STACKS = (N_("encoder"), N_("decoder"))  # a layer's stack, named in its hover text


def _short(n: int) -> str:
    """4096 -> '4k', 1024 -> '1k', 128 -> '128', 8192 -> '8k', 262144 -> '256k'."""
    return f"{n // 1024}k" if n >= 1024 and n % 1024 == 0 else f"{n:,}"


def _label(layer: Layer) -> str:
    if layer.window is None:
        return layer.attention.replace("_", " ")
    return f"{layer.attention.replace('_', ' ')} ({_short(layer.window)})"


def _direction(layer: Layer) -> str:
    return "" if layer.causal else _(", bidirectional")


def _discrete_scale() -> list:
    colors = [KIND_COLORS[k] for k in KINDS] + [ROPE_COLORS[True], ROPE_COLORS[False]]
    n = len(colors)
    scale = []
    for i, c in enumerate(colors):
        scale += [[i / n, c], [(i + 1) / n, c]]
    return scale


def layer_strip_figure(layers: tuple[Layer, ...], *, model: str, lecture: bool = False) -> go.Figure:
    """Every layer's attention kind (top row) and whether it has RoPE (bottom row), layer 1 on the left.

    Args:
        layers: one :class:`Layer` per layer (encoder layers first for encoder-decoder models).
        model: the model's name, for the title.

    Returns:
        A heatmap of z (2, layers) int8 codes into ``CATEGORIES``, plus legend-only squares per category.
    """
    lk = look(lecture)
    n = len(layers)
    kind_code = {k: i for i, k in enumerate(KINDS)}
    rope, nope_code = len(KINDS), len(KINDS) + 1
    z = np.array(
        [[kind_code[x.attention] for x in layers], [rope if x.rope else nope_code for x in layers]], dtype=np.int8
    )
    x = np.arange(1, n + 1, dtype=np.int16)
    attention_hover, position_hover = _("layer {i} ({stack})<br>{kind} attention{direction}"), _("layer {i}<br>{what}")
    hover = [
        [
            attention_hover.format(i=i + 1, stack=_(x_.stack), kind=_label(x_), direction=_direction(x_))
            for i, x_ in enumerate(layers)
        ],
        [
            position_hover.format(i=i + 1, what="RoPE" if x_.rope else _("no position encoding"))
            for i, x_ in enumerate(layers)
        ],
    ]
    text = None
    if n <= (TEXT_CELLS // 2 if lecture else TEXT_CELLS):
        text = [[_short(x_.window) if x_.window else "" for x_ in layers], ["" for _ in layers]]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=x,
            y=[_("attention"), _("position")],
            customdata=hover,
            hovertemplate="%{customdata}<extra></extra>",
            colorscale=_discrete_scale(),
            zmin=-0.5,
            zmax=len(CATEGORIES) - 0.5,
            showscale=False,
            xgap=2 if n <= 80 else 0,
            ygap=4,
            text=text,
            texttemplate="%{text}" if text else None,
        )
    )
    present = sorted({(x_.attention, x_.window) for x_ in layers}, key=lambda a: (kind_code[a[0]], a[1] or 0))

    def counted(count: int) -> str:
        return _("{n} layers").format(n=count)

    legend = [
        (f"{_label(Layer(a, w, True))}: {counted(sum(1 for l_ in layers if l_.attention == a))}", KIND_COLORS[a])
        for a, w in present
    ]
    nope = sum(1 for x_ in layers if not x_.rope)
    legend += [(f"RoPE: {counted(n - nope)}", ROPE_COLORS[True])]
    if nope:
        legend += [(_("no position encoding (NoPE): {layers}").format(layers=counted(nope)), ROPE_COLORS[False])]
    for name, color in legend:
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=name,
                hoverinfo="skip",
                marker=dict(symbol="square", size=lk.font, color=color, line=dict(color="#555", width=1)),
            )
        )
    stacks = [x_.stack for x_ in layers]
    if "encoder" in stacks and "decoder" in stacks:
        cut = stacks.index("decoder") + 0.5
        fig.add_vline(x=cut, line=dict(color="#222", width=lk.line))
        fig.add_annotation(x=cut, y=1.0, yref="paper", text=_("encoder | decoder"), showarrow=False, yanchor="bottom")
    dtick = 1 if n <= 32 else 5 if n <= 80 else 10
    fig.update_xaxes(title_text=_("layer (1 = first)"), dtick=dtick, showgrid=False, zeroline=False)
    fig.update_yaxes(showgrid=False, zeroline=False, autorange="reversed")
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.35, x=0), plot_bgcolor="white")
    kinds = ", ".join(
        f"{sum(1 for l_ in layers if l_.attention == a)} {a}" for a in KINDS if any(l_.attention == a for l_ in layers)
    )
    return finish(
        fig,
        title=_("{model}: attention and position encoding in each of its {n} layers").format(model=model, n=n),
        subtitle=subtitle_lines(
            _("{kinds}; {rope} with RoPE, {nope} without").format(kinds=kinds, rope=n - nope, nope=nope),
            _("hover a cell for the layer"),
        ),
        lecture=lecture,
        height=int(lk.height * 0.6),
    )


def _pairs_trace(y, *, name: str, color: str, dash: str | None, width: int, hover: str) -> go.Scatter:
    y = as_array(y).astype(np.float32)
    return go.Scatter(
        x=compact(np.arange(len(y))),
        y=y,
        mode="lines+markers" if dash is None else "lines",
        name=name,
        line=dict(color=color, dash=dash, width=width),
        marker=dict(size=width * 2 + 2),
        hovertemplate=_("pair k = %{x}<br>") + hover + " = %{y:.4g}<extra>" + name + "</extra>",
    )


def _pairs_axes(fig: go.Figure, y_title: str) -> None:
    """The per-pair axes: pairs fast to slow along x, a log y titled ``y_title``, the legend below."""
    fig.update_xaxes(title_text=_("pair k (fast → slow)"))
    fig.update_yaxes(title_text=y_title, type="log", exponentformat="power")
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.22, x=0))


def inv_freq_figure(
    inv_freq,
    default_inv_freq,
    *,
    method: str,
    attention: str,
    model: str,
    other=None,
    other_name: str = "",
    lecture: bool = False,
) -> go.Figure:
    """``inv_freq`` of every pair of one attention kind against the unscaled RoPE of the same base.

    Args:
        inv_freq, default_inv_freq: (pairs,) radians per token.
        other: optional (pairs,) second set (LongRoPE's other factors), named ``other_name``.
    """
    lk = look(lecture)
    inv = as_array(inv_freq).astype(np.float64)
    still = inv == 0  # proportional RoPE: pairs that keep their place in the head but never turn
    inv_freq = np.where(still, np.nan, inv)  # a log axis has no 0: those pairs are left out and counted
    fig = go.Figure()
    fig.add_trace(
        _pairs_trace(
            default_inv_freq,
            name=_("unscaled (rope_theta alone)"),
            color=DEFAULT,
            dash="dot",
            width=lk.line,
            hover="θ_k",
        )
    )
    if other is not None:
        fig.add_trace(_pairs_trace(other, name=other_name, color="#56B4E9", dash="dash", width=lk.line, hover="θ_k"))
    fig.add_trace(
        _pairs_trace(
            inv_freq,
            name=_("{method} (this model)").format(method=method),
            color=SCALED,
            dash=None,
            width=lk.line,
            hover="θ_k",
        )
    )
    ratio = (inv / as_array(default_inv_freq).astype(np.float64))[~still]  # (turning pairs,)
    changed = int(np.sum(~np.isclose(ratio, 1.0, rtol=1e-9)))
    said = _("{changed} of {pairs} pairs changed; slowest turning pair divided by {factor}").format(
        changed=changed, pairs=len(inv), factor=number(1 / ratio[-1], 3)
    )
    if still.any():
        said = _("{turning} of {pairs} pairs turn, as in a full-width head; {still} never turn (θ = 0)").format(
            turning=len(ratio), pairs=len(inv), still=int(still.sum())
        )
    _pairs_axes(fig, _("inv_freq θ_k, radians per token (log)"))
    return finish(
        fig,
        title=_("{model}, {attention} layers: inv_freq per pair, {method} against unscaled RoPE").format(
            model=model, attention=attention, method=method
        ),
        subtitle=subtitle_lines(said, _("log scale: equal steps are equal ratios")),
        lecture=lecture,
    )


def wavelength_figure(
    inv_freq,
    default_inv_freq,
    *,
    trained: int | None,
    extended: int,
    attention: str,
    model: str,
    lecture: bool = False,
) -> go.Figure:
    """Wavelength ``2 pi / theta_k`` of every pair against the trained and the extended context.

    A pair whose wavelength exceeds the extended context never completes a turn inside it (marked).
    """
    lk = look(lecture)
    inv = as_array(inv_freq).astype(np.float64)
    still = inv == 0  # proportional RoPE's pairs that never turn: no wavelength
    wave = TWO_PI / np.where(still, np.nan, inv)
    wave0 = TWO_PI / as_array(default_inv_freq).astype(np.float64)
    slow = np.nan_to_num(wave, nan=0.0) > extended
    fig = go.Figure()
    said_wave = _("wavelength")
    fig.add_trace(_pairs_trace(wave0, name=_("unscaled"), color=DEFAULT, dash="dot", width=lk.line, hover=said_wave))
    fig.add_trace(_pairs_trace(wave, name=_("this model"), color=SCALED, dash=None, width=lk.line, hover=said_wave))
    if slow.any():
        k = np.flatnonzero(slow)
        fig.add_trace(
            go.Scatter(
                x=compact(k),
                y=wave[k].astype(np.float32),
                mode="markers",
                name=_("never completes a turn"),
                marker=dict(symbol="x", size=lk.font, color="#000"),
                hovertemplate=_("pair k = %{x}<br>wavelength = %{y:.4g} tokens")
                + "<extra>"
                + _("never completes a turn")
                + "</extra>",
            )
        )
    lines = [(extended, _("extended context"), "solid", "bottom"), (trained, _("trained context"), "dash", "top")]
    if trained == extended:  # one line, one label (two labels on one line overlap)
        lines = [(extended, _("trained = extended context"), "solid", "bottom")]
    for value, name, dash, side in lines:  # extended labelled above its line, trained below: never on each other
        if value:
            fig.add_hline(y=value, line=dict(color="#333", dash=dash, width=lk.line / 2))
            fig.add_annotation(
                x=1.0,
                xref="paper",
                y=float(np.log10(value)),
                text=f"{name} {value:,}",
                showarrow=False,
                xanchor="right",
                yanchor=side,
                font_size=lk.font - 2,
            )
    _pairs_axes(fig, _("wavelength 2π / θ_k, tokens (log)"))
    said = _("{slow} of {pairs} pairs never complete a turn within {extended:,} tokens").format(
        slow=int(slow.sum()), pairs=len(wave), extended=extended
    )
    if still.any():
        said += _("; {still} never turn at all (θ = 0)").format(still=int(still.sum()))
    return finish(
        fig,
        title=_("{model}, {attention} layers: wavelength of each pair against the context").format(
            model=model, attention=attention
        ),
        subtitle=said,
        lecture=lecture,
    )


def reach_figure(
    reach, layers: tuple[Layer, ...], *, position: int, model: str, windowed=None, lecture: bool = False
) -> go.Figure:
    """How many tokens back information can come from, for the token at ``position``, after n layers.

    Args:
        reach: (layers + 1,) ints, ``position - reach_start(layers[:n], position)`` for n = 0 .. layers.
        windowed: optional (layers + 1,) ints, the same counting only the sliding and chunked layers.
    """
    lk = look(lecture)
    reach = as_array(reach).astype(np.int64)
    n = np.arange(len(reach))
    kinds = [_("(input)")] + [_label(x) for x in layers]
    fig = go.Figure(
        go.Scatter(
            x=compact(n),
            y=compact(reach),
            mode="lines+markers",
            name=_("all layers"),
            line=dict(shape="hv", width=lk.line),
            customdata=kinds,
            hovertemplate=_("after %{x} layers (last: %{customdata})<br>%{y:,} tokens back") + "<extra></extra>",
        )
    )
    if windowed is not None:
        fig.add_trace(
            go.Scatter(
                x=compact(n),
                y=compact(as_array(windowed).astype(np.int64)),
                mode="lines",
                name=_("windowed layers alone"),
                line=dict(shape="hv", width=lk.line, dash="dot", color=KIND_COLORS["sliding"]),
                hovertemplate=_("windowed layers alone, after %{x} layers<br>%{y:,} tokens back") + "<extra></extra>",
            )
        )
    fig.add_hline(y=position, line=dict(color="#333", dash="dash", width=lk.line / 2))
    fig.add_annotation(
        x=0,
        xref="paper",
        y=position,
        text=_("all {position:,} earlier tokens").format(position=position),
        showarrow=False,
        xanchor="left",
        xshift=lk.font // 2,  # clear of the y axis line
        yanchor="bottom",
        font_size=lk.font - 2,
    )
    full = next((i for i, r in enumerate(reach) if r == position), None)
    said = (
        ngettext("everything after {n} layer", "everything after {n} layers", full).format(n=full)
        if full
        else _("never everything")
    )
    fig.update_xaxes(
        title_text=_("layers passed, n"), dtick=1 if len(layers) <= 32 else 5, range=[-0.5, len(layers) + 0.5]
    )
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.22, x=0))
    fig.update_yaxes(title_text=_("tokens back reachable"), rangemode="tozero")
    return finish(
        fig,
        title=_("{model}: how far back information can reach the token at position {position:,}").format(
            model=model, position=position
        ),
        subtitle=subtitle_lines(
            _(
                "{said}; a sliding window of W moves information W − 1 tokens per layer, a chunk never past its start"
            ).format(said=said),
        ),
        lecture=lecture,
    )


def mask_figure(masks, k_pos, *, labels: list[str], position: int, model: str, lecture: bool = False) -> go.Figure:
    """Which keys the token at ``position`` attends to, one row per attention kind.

    Args:
        masks: (kinds, k) bool, from ``attention_mask`` with the single query ``position``.
        k_pos: (k,) int64 key positions shown (a strided or a windowed sample of 0 .. position).
        labels: one row label per kind ("sliding (window 128)").
    """
    lk = look(lecture)
    z = as_array(masks).astype(np.int8)  # (kinds, k)
    k = as_array(k_pos).astype(np.int64)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=compact(k),
            y=labels,
            colorscale=[[0, MASK_COLOR], [1, KIND_COLORS["full"]]],
            zmin=0,
            zmax=1,
            showscale=False,
            xgap=0,
            ygap=3,
            hovertemplate=_("%{y}<br>key j = %{x}<br>%{z}: 1 attended, 0 not") + "<extra></extra>",
        )
    )
    shown = _("{label}: {count} of {keys} shown keys")
    seen = [shown.format(label=label, count=int(row.sum()), keys=len(k)) for label, row in zip(labels, z, strict=True)]
    fig.update_xaxes(title_text=_("key position j"), showgrid=False, zeroline=False)
    fig.update_yaxes(showgrid=False, zeroline=False, autorange="reversed")
    note = sample_note(np.array([position]), k, 1, int(k[-1] - k[0]) + 1 if len(k) else 0)
    if len(k) and k[0] > 0:
        note = subtitle_lines(
            note, _("window view: keys {first:,} to {last:,}").format(first=int(k[0]), last=int(k[-1]))
        )
    return finish(
        fig,
        title=_("{model}: keys the token at position {position:,} attends to, per layer kind").format(
            model=model, position=position
        ),
        subtitle=subtitle_lines(_("; ").join(seen), _("blue: attended, grey: masked"), note),
        lecture=lecture,
        height=int(lk.height * (0.45 + 0.08 * len(labels))),
    )

"""The sinusoidal table itself: its rows as a heatmap, a few of its columns as waves, and its two layouts.

``heatmap``, ``waves`` and ``layouts`` are what the page (and a notebook) calls, each a function of plain
arguments returning a :class:`Chart`; the ``*_figure`` builders turn arrays into specs. No figure builds the
whole ``(seq_len, dim)`` table: only the rows drawn.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import torch
from plotly.subplots import make_subplots

from posviz.encodings.positions import all_positions, display_positions, display_stride
from posviz.encodings.sinusoidal import (
    concat_permutation,
    sinusoidal_component_wavelengths,
    sinusoidal_table,
    sinusoidal_unfinished_pairs,
    sinusoidal_wavelengths,
)
from posviz.figures.chart import Chart
from posviz.figures.colors import scale_stops
from posviz.figures.common import (
    DIVERGING,
    MASK_COLOR,
    as_array,
    compact,
    finish,
    look,
    mask_traces,
    number,
    ordinal,
    subtitle_lines,
)
from posviz.figures.csv import columns_csv, matrix_csv
from posviz.figures.marks import Mark, add_marks
from posviz.i18n import DEFAULT, N_, _, current

TABLE_POINTS = 192  # rows of the table heatmap
WAVE_POINTS = 1000
LAYOUT_POSITIONS = 48  # rows of the side-by-side layouts
LAYOUT_NAMES = {
    "interleaved": N_("interleaved [sin₀, cos₀, sin₁, cos₁, …]"),
    "concat": N_("concat [sin₀, sin₁, …, cos₀, cos₁, …]"),
}
WAVE_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


def _nth(n: int) -> str:
    """``n`` as an English ordinal ("3rd"); another language writes the bare number into its sentence."""
    return ordinal(n) if current() == DEFAULT else str(n)


def _stride_note(positions, seq_len: int) -> str | None:
    pos = as_array(positions)
    if len(pos) >= seq_len:
        return None
    stride = int(pos[1] - pos[0]) if len(pos) > 1 else seq_len
    return _("Strided sample: {shown} of {total} positions (every {nth}, plus the last)").format(
        shown=len(pos), total=seq_len, nth=_nth(stride)
    )


def _component_trace(table, positions, *, name: str, coloraxis: str = "coloraxis") -> dict:
    z = as_array(table).astype(np.float32)
    return dict(
        type="heatmap",
        z=z,
        x=compact(np.arange(z.shape[1])),
        y=compact(as_array(positions)),
        coloraxis=coloraxis,
        name=name,
        hovertemplate=_("position p = %{y}<br>component %{x}<br>value = %{z:.3f}") + "<extra>" + name + "</extra>",
    )


def _stride(positions) -> int:
    pos = as_array(positions)
    return int(pos[1] - pos[0]) if len(pos) > 1 else 1


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
    lengths = sinusoidal_component_wavelengths(torch.arange(dim), dim, base=base, layout=layout).numpy()  # (dim,)
    bad = aliased(lengths, stride)
    trace = _component_trace(np.where(bad[None, :], np.nan, z), positions, name=layout)
    trace["hoverongaps"] = False
    axis_title = _("component (fast → slow)") if layout == "interleaved" else _("component: sin | cos")
    spec = dict(  # plain data: built once, by finish
        data=[trace],
        layout=dict(
            coloraxis=dict(
                colorscale=scale_stops(DIVERGING), cmin=-1, cmax=1, cmid=0, colorbar=dict(title=dict(text="PE"))
            ),
            xaxis=dict(title=dict(text=axis_title), showgrid=False),
            yaxis=dict(title=dict(text=_("position p")), autorange="reversed", showgrid=False),
        ),
    )
    if layout == "concat":
        add_marks(spec, [Mark(dim / 2 - 0.5)], line=dict(color="#111", dash="dash", width=look(lecture).line))
    note = None
    if bad.any():
        label = _("λ < 2 × stride ({twice}): aliased in this sample, not drawn").format(twice=2 * stride)
        mask = np.broadcast_to(bad[None, :], z.shape)
        spec["data"] += mask_traces(mask, positions, np.arange(dim), label=label, lecture=lecture)
        spec["layout"]["plot_bgcolor"] = MASK_COLOR
        note = _("{bad} of {dim} components repeat faster than every {twice} tokens: grey").format(
            bad=int(bad.sum()), dim=dim, twice=2 * stride
        )
    return finish(
        spec,
        title=_("The sinusoidal table, {layout}").format(layout=_(LAYOUT_NAMES[layout])),
        subtitle=subtitle_lines(
            _(
                "PE(p, 2k) = sin(p θ_k), PE(p, 2k+1) = cos(p θ_k), θ_k = {base}^(−2k/{dim}); "
                "left columns change every token, right ones hardly at all"
            ).format(base=number(base), dim=dim),
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
        wavelengths: (len(components),) tokens per period (``sinusoidal_component_wavelengths``); with them, a
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
    traces = []  # plain data: built once, by finish
    for c, (comp, label) in enumerate(zip(comps.tolist(), labels, strict=True)):
        color = WAVE_COLORS[c % len(WAVE_COLORS)]
        if bad[c]:  # its samples are aliasing noise: draw the range it fills instead
            traces.append(
                dict(
                    type="scatter",
                    x=np.array([pos[0], pos[-1], pos[-1], pos[0]], dtype=np.float32),
                    y=np.array([1, 1, -1, -1], dtype=np.float32),
                    fill="toself",
                    mode="lines",
                    line=dict(width=0, color=color),
                    fillcolor=color,
                    opacity=0.2,
                    name=_("{label}: aliased at this stride, its range ±1 shown").format(label=label),
                    hovertemplate=_("component {comp}: wavelength {wavelength} < 2 × stride {stride}").format(
                        comp=comp, wavelength=number(waves[c]), stride=stride
                    )
                    + "<extra></extra>",
                )
            )
            continue
        traces.append(
            dict(
                type="scatter",
                x=compact(pos),
                y=vals[:, c],
                mode="lines",
                name=label,
                line=dict(width=lk.line, color=color),
                hovertemplate=_("component {comp}").format(comp=comp)
                + "<br>"
                + _("position = %{x}")
                + "<br>PE = %{y:.3f}<extra></extra>",
            )
        )
    axes = dict(
        xaxis=dict(title=dict(text=_("position p"))),
        yaxis=dict(title=dict(text=_("PE(p, component)")), range=[-1.1, 1.1]),
    )
    stride_note = _stride_note(pos, seq_len)
    return finish(
        dict(data=traces, layout=axes),
        title=_("Chosen components against position: one wave per frequency"),
        subtitle=subtitle_lines(
            _(
                "a component with wavelength λ repeats every λ tokens; "
                "together they give every position its own pattern"
            ),
            stride_note and stride_note + _("; waves shorter than twice the stride are aliased"),
            _("shaded: aliased components, drawn as the band they fill") if bad.any() else None,
            _("the fastest waves fill a solid band at this length: drag a box to zoom in") if dense else None,
        ),
        lecture=lecture,
    )


def layouts_figure(interleaved, concat, perm, *, positions, lecture: bool = False) -> go.Figure:
    """Both layouts side by side, and the permutation matrix between them."""
    dim = as_array(interleaved).shape[1]
    fig = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=[_("interleaved (the paper)"), _("concat (Transformer-XL)"), "P: concat = interleaved · P"],
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
            hovertemplate=_("interleaved component %{y}<br>concat component %{x}") + "<br>P = %{z}<extra></extra>",
        ),
        row=1,
        col=3,
    )
    fig.update_layout(coloraxis=dict(colorscale=DIVERGING, cmin=-1, cmax=1, cmid=0, colorbar=dict(title="PE")))
    for c in (1, 2):
        fig.update_xaxes(title_text=_("component"), row=1, col=c)
    fig.update_xaxes(title_text=_("concat component"), row=1, col=3)
    fig.update_yaxes(title_text=_("position p"), row=1, col=1)
    fig.update_yaxes(title_text=_("interleaved component"), row=1, col=3)
    fig.update_yaxes(autorange="reversed", showgrid=False, zeroline=False)
    fig.update_xaxes(showgrid=False, zeroline=False)
    fig = finish(
        fig,
        title=_("The two layouts are one permutation apart"),
        subtitle=subtitle_lines(
            _("perm = [0, 2, …, d−2, 1, 3, …, d−1]: every sin, then every cos"),
            _("a checkpoint trained in one layout needs its input rows permuted to run in the other"),
        ),
        lecture=lecture,
    )
    return fig


# --- the figures, by plain arguments ---------------------------------------------------------------


def table_stride(seq_len: int) -> int:
    """The stride of the table's rows drawn (1: every row)."""
    return display_stride(seq_len, TABLE_POINTS)


def wave_components(dim: int, layout: str) -> tuple[list[int], list[str]]:
    """sin and cos of the fastest pair, then the sin of a middle and of the slowest pair: components and labels."""
    half = dim // 2
    pairs = sorted({0, half // 4, half // 2, half - 1})
    comps, labels = [], []
    for k in pairs:
        for kind in ("sin", "cos") if k == 0 else ("sin",):
            if layout == "interleaved":
                comps.append(2 * k + (kind == "cos"))
            else:
                comps.append(k + half * (kind == "cos"))
            labels.append(_("component {comp}: {kind}(p θ_{k})").format(comp=comps[-1], kind=kind, k=k))
    return comps, labels


def heatmap(*, seq_len: int, dim: int, base: float, layout: str, lecture: bool = False) -> Chart:
    """The rows drawn (at most ``TABLE_POINTS``) of the ``(seq_len, dim)`` table in ``layout``."""
    pos = display_positions(seq_len, TABLE_POINTS)
    table = sinusoidal_table(pos, dim, base=base, layout=layout).numpy()  # (n, dim) float32
    figure = table_figure(table, positions=pos.numpy(), seq_len=seq_len, layout=layout, base=base, lecture=lecture)
    return Chart.of(figure, lambda: matrix_csv(table, pos.numpy(), range(dim)))


def waves(*, seq_len: int, dim: int, base: float, layout: str, lecture: bool = False) -> Chart:
    """A few components (:func:`wave_components`) against position, at most ``WAVE_POINTS`` positions."""
    pos = display_positions(seq_len, WAVE_POINTS).numpy()
    comps, labels = wave_components(dim, layout)
    lengths = sinusoidal_component_wavelengths(torch.tensor(comps), dim, base=base, layout=layout).numpy()  # (c,)
    # the same rounding as the figure's notes: number(), never 4.712e+04
    labels = [f"{lab}, λ = {number(lam)}" for lab, lam in zip(labels, lengths, strict=True)]
    values = sinusoidal_table(torch.as_tensor(pos), dim, base=base, layout=layout)[:, comps].numpy()  # (w, c)
    figure = waves_figure(
        pos,
        values,
        components=comps,
        labels=labels,
        seq_len=seq_len,
        lecture=lecture,
        wavelengths=lengths,  # with these the figure marks the components a strided sample would alias
    )
    columns = {"position": pos, **{f"component {c}": values[:, i] for i, c in enumerate(comps)}}
    return Chart.of(figure, lambda: columns_csv(columns))


def wavelength_span(*, seq_len: int, dim: int, base: float) -> tuple[float, float, int]:
    """The shortest and the longest wavelength (tokens), and how many pairs never complete a period in ``seq_len``."""
    lengths = sinusoidal_wavelengths(dim, base=base)  # (dim/2,) float64
    return float(lengths[0]), float(lengths[-1]), sinusoidal_unfinished_pairs(seq_len, dim, base=base)


def layouts(*, seq_len: int, dim: int, base: float, lecture: bool = False) -> Chart:
    """The first rows (at most ``LAYOUT_POSITIONS``) in both layouts, and the permutation between them."""
    pos = all_positions(min(seq_len, LAYOUT_POSITIONS))
    interleaved = sinusoidal_table(pos, dim, base=base).numpy()
    concat = sinusoidal_table(pos, dim, base=base, layout="concat").numpy()
    perm = concat_permutation(dim).numpy()
    figure = layouts_figure(interleaved, concat, perm, positions=pos.numpy(), lecture=lecture)
    return Chart.of(figure, lambda: columns_csv({"concat component": range(dim), "interleaved component": perm}))

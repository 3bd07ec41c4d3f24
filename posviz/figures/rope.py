"""RoPE's rotation: the rotation matrix in both layouts, ``freqs_cis``, and a vector's pairs on their circles.

``rotation``, ``permutation``, ``circles``, ``cis_table`` and ``layout_gap`` are what the page (and a
notebook) calls, each a function of plain arguments (the frequencies' arguments as in
``posviz.figures.rope_scaling``); the ``*_figure`` builders turn arrays into specs. The relative
property, decay and attention are in ``posviz.figures.rope_scores``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import torch

from posviz.encodings.positions import all_positions, display_positions
from posviz.encodings.rope import (
    freqs_cis,
    layout_permutation,
    rope_layout_gap,
    rope_pair_points,
    rope_rotation_matrix,
    seeded_qk,
)
from posviz.encodings.rope_scaling import ScalingOptions, rope_scaling
from posviz.figures.chart import Chart
from posviz.figures.colors import scale_stops
from posviz.figures.common import DIVERGING, MAX_TEXT_CELLS, as_array, compact, finish, look, number, subtitle_lines
from posviz.figures.csv import columns_csv, matrix_csv
from posviz.figures.layout import axis_name, on_panel, subplot_grid
from posviz.figures.rope_scaling import GREY, TWO_PI, f32
from posviz.i18n import N_, _

CIRCLE_PAIRS = 16  # pairs drawn on circles
CIS_POSITIONS, CIS_PAIRS = 8, 8  # the freqs_cis table

AT_M, AT_N = "#1f77b4", "#ff7f0e"
LAYOUT_WORDS = {"interleaved": N_("interleaved"), "half": N_("half")}  # a layout in a title: "({layout} layout"


def _component_heatmap(
    z, *, x_title: str, y_title: str, value_name: str, zmin: float, zmax: float, palette: str
) -> dict:
    z = f32(z)
    n_rows, n_cols = z.shape
    extra = {}
    if n_rows <= MAX_TEXT_CELLS and n_cols <= MAX_TEXT_CELLS:
        extra["texttemplate"] = "%{z:.2f}"
    trace = dict(
        type="heatmap",
        z=z,
        x=compact(np.arange(n_cols)),
        y=compact(np.arange(n_rows)),
        colorscale=scale_stops(palette),  # as a validated figure spells a named scale out
        zmin=zmin,
        zmax=zmax,
        colorbar=dict(title=dict(text=value_name, side="right")),
        hovertemplate=f"{y_title} = %{{y}}<br>{x_title} = %{{x}}<br>{value_name} = %{{z:.4g}}<extra></extra>",
        **extra,
    )
    whole = {"dtick": 1} if max(n_rows, n_cols) <= 12 else {}
    axes = dict(showgrid=False, zeroline=False, **whole)
    layout = dict(
        xaxis=dict(title=dict(text=x_title), **axes),
        yaxis=dict(title=dict(text=y_title), autorange="reversed", **axes),
    )
    return dict(data=[trace], layout=layout)  # plain data: built once, by finish


def rotation_matrix_figure(rot, *, position: int, layout: str, lecture: bool = False) -> go.Figure:
    """``R_m`` (dim x dim) on a diverging scale from −1 to 1."""
    lk = look(lecture)
    fig = _component_heatmap(
        rot,
        x_title=_("input component"),
        y_title=_("output component"),
        value_name="R_m",
        zmin=-1,
        zmax=1,
        palette=DIVERGING,
    )
    where = (
        _("2 × 2 blocks [[cos, −sin], [sin, cos]] on the diagonal: pair k is components (2k, 2k+1)")
        if layout == "interleaved"
        else _("the same blocks spread out: pair k is components (k, k + d/2), two diagonals of sines")
    )
    side = int(as_array(rot).shape[0])
    return finish(
        fig,
        title=_("Rotation matrix R_m at m = {m} ({layout} layout, {side} × {side})").format(
            m=position, layout=_(LAYOUT_WORDS.get(layout, layout)), side=side
        ),
        subtitle=subtitle_lines(
            where, _("fast pairs (top left) have turned far; slow ones are still near the identity")
        ),
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
        x_title=_("interleaved component"),
        y_title=_("half-split component"),
        value_name="P",
        zmin=0,
        zmax=1,
        palette="Greys",
    )
    (trace,) = fig["data"]
    trace.pop("texttemplate", None)
    trace["showscale"] = False
    return finish(
        fig,
        title=_("The permutation between the layouts"),
        subtitle=subtitle_lines(
            _("perm = [0, 2, …, d−2, 1, 3, …, d−1]: every pair's first component, then every second one"),
            _("R_half = P R_interleaved Pᵀ, and HF(x[perm]) = Meta(x)[perm]"),
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
            (at_zero, 0, GREY, _("position 0"), "dot"),
            (at_m, m, AT_M, _("position m = {m}").format(m=m), "solid"),
            (at_n, n, AT_N, _("position n = {n}").format(n=n), "solid"),
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
                    hovertemplate=_("pair {k}<br>{name}<br>turned by {pos}·θ = {angle}° (mod 360)").format(
                        k=pairs[i], name=name, pos=pos, angle=f"{turned:.1f}"
                    )
                    + "<extra></extra>",
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
        title=_("Each pair of the vector on its circle at positions 0, m = {m} and n = {n}").format(m=m, n=n),
        subtitle=subtitle_lines(
            _("pair k turns by the angle m·θ_k: the fast pairs (left) spin, the slow ones (right) barely move"),
            _("each pair drawn at unit length (its length never changes)"),
        ),
        lecture=lecture,
        height=panel * rows + 190,
    )
    return fig


# --- the figures, by plain arguments ---------------------------------------------------------------


def shown_pairs(dim: int, count: int) -> np.ndarray:
    """(p,) int64: at most ``count`` pair indices, evenly spread, always the fastest (0) and the slowest."""
    return display_positions(dim // 2, count).numpy()


def rotation(
    *,
    dim: int,
    base: float,
    method: str,
    factor: float,
    original_max_position: int,
    options: ScalingOptions,
    layout: str,
    m: int,
    lecture: bool = False,
) -> Chart:
    """``R_m`` (dim, dim) in ``layout``, drawn in float32."""
    inv, _ = rope_scaling(
        method, dim, base=base, factor=factor, original_max_position=original_max_position, **dict(options)
    )
    rot = rope_rotation_matrix(m, dim, layout=layout, inv_freq=inv, dtype=torch.float32).numpy()
    figure = rotation_matrix_figure(rot, position=m, layout=layout, lecture=lecture)
    return Chart.of(figure, lambda: matrix_csv(rot, range(dim), range(dim)))


def layout_gap(
    *, dim: int, base: float, method: str, factor: float, original_max_position: int, options: ScalingOptions, m: int
) -> float:
    """``max |R_half - P R_interleaved P^T|`` at ``m``: the layouts are one relabelling apart (0 up to rounding)."""
    inv, _ = rope_scaling(
        method, dim, base=base, factor=factor, original_max_position=original_max_position, **dict(options)
    )
    return rope_layout_gap(m, dim, inv_freq=inv)


def permutation(*, dim: int, lecture: bool = False) -> Chart:
    """The permutation matrix between the layouts: half-split component ``i`` is interleaved ``perm[i]``."""
    perm = layout_permutation(dim).numpy()
    figure = permutation_figure(perm, lecture=lecture)
    return Chart.of(figure, lambda: columns_csv({"half-split component": range(dim), "interleaved component": perm}))


def cis_frame(cis, pairs) -> pd.DataFrame:
    """``freqs_cis`` (positions, dim/2) complex, the columns ``pairs``, as text ``a+bj`` (4 decimals, as the
    seed prints them); its headers in the run's language (a table to read, never a CSV)."""
    rows = {}
    for k in pairs:
        col = cis[:, int(k)]
        rows[_("pair {k}").format(k=int(k))] = [f"{z.real:+.4f}{z.imag:+.4f}j" for z in col.tolist()]
    frame = pd.DataFrame(rows)
    frame.index.name = _("position m")
    return frame


def cis_table(
    *, dim: int, base: float, method: str, factor: float, original_max_position: int, options: ScalingOptions
) -> pd.DataFrame:
    """``freqs_cis`` of the first ``CIS_POSITIONS`` positions and ``CIS_PAIRS`` pairs."""
    inv, _ = rope_scaling(
        method, dim, base=base, factor=factor, original_max_position=original_max_position, **dict(options)
    )
    return cis_frame(freqs_cis(all_positions(CIS_POSITIONS), inv), shown_pairs(dim, CIS_PAIRS))


def circles(
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
    lecture: bool = False,
) -> Chart:
    """The seed's random ``q``: each of ``CIRCLE_PAIRS`` pairs on its unit circle at positions 0, ``m`` and ``n``."""
    inv, _ = rope_scaling(
        method, dim, base=base, factor=factor, original_max_position=original_max_position, **dict(options)
    )
    pairs = shown_pairs(dim, CIRCLE_PAIRS)
    q, _ = seeded_qk(dim, seed)
    xy = rope_pair_points(q, torch.tensor([0, m, n]), torch.as_tensor(pairs), inv_freq=inv, layout=layout).numpy()
    figure = pair_circles_figure(
        xy[0], xy[1], xy[2], pairs=pairs, inv_freq=inv.numpy()[pairs], m=m, n=n, lecture=lecture
    )

    def csv() -> str:
        columns = {"pair k": pairs}
        for where, at in (("0", xy[0]), ("m", xy[1]), ("n", xy[2])):
            columns |= {f"x at {where}": at[:, 0], f"y at {where}": at[:, 1]}
        return columns_csv(columns)

    return Chart.of(figure, csv)

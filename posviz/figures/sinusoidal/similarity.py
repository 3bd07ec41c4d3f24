"""How alike two sinusoidal position vectors are: ``PE_i . PE_j`` over a grid, against the distance, and the
cosine similarity of the sinusoidal table next to a learned table's.

``matrix``, ``profile`` and ``learned`` are what the page (and a notebook) calls, each a function of plain
arguments returning a :class:`Chart`; the ``*_figure`` builders turn arrays into specs.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import torch

from posviz.encodings.attention import cosine_similarities
from posviz.encodings.pooling import block_edges, relative_block_means
from posviz.encodings.positions import curve_positions, display_positions, display_stride
from posviz.encodings.sinusoidal import (
    learned_table,
    sinusoidal_profile_gap,
    sinusoidal_similarity,
    sinusoidal_similarity_from,
    sinusoidal_table,
)
from posviz.figures.chart import Chart
from posviz.figures.common import Panel, as_array, compact, finish, heatmap, heatmap_row, look, subtitle_lines
from posviz.figures.csv import columns_csv, matrix_csv, panels_csv
from posviz.figures.sinusoidal.table import WAVE_COLORS
from posviz.i18n import _

SIM_POINTS = 128  # per axis of the similarity heatmaps
PROFILE_POINTS = 400  # log-spaced distances of the profile past the dense ones


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
        title=_("Similarity PE_i · PE_j: constant along each diagonal j − i"),
        subtitle=_("the diagonal is |PE|² = d/2 = {half}; the same in both layouts (a permutation keeps dots)").format(
            half=dim // 2
        ),
        value_name="PE_i · PE_j",
        palette="diverging",
        lecture=lecture,
        pooled=True,
    )


def profile_figure(distances, closed, measured: dict[str, np.ndarray], *, dim: int, lecture: bool = False) -> go.Figure:
    """``PE_p . PE_(p+r)`` against ``r``: the closed form and measurements from several starting positions."""
    lk = look(lecture)
    r = as_array(distances)
    traces = [  # plain data: built once, by finish
        dict(
            type="scatter",
            x=compact(r),
            y=as_array(closed).astype(np.float32),
            mode="lines",
            name="Σ_k cos(r θ_k)",
            line=dict(width=lk.line, color="#444"),
            hovertemplate="r = %{x}<br>Σ cos(r θ_k) = %{y:.4f}<extra></extra>",
        )
    ]
    for (name, y), color in zip(measured.items(), WAVE_COLORS, strict=False):
        traces.append(
            dict(
                type="scatter",
                x=compact(r),
                y=as_array(y).astype(np.float32),
                mode="markers",
                name=name,
                marker=dict(size=lk.line * 2 + 2, color=color, symbol="circle-open"),
                hovertemplate=f"{name}<br>r = %{{x}}<br>PE_p · PE_(p+r) = %{{y:.4f}}<extra></extra>",
            )
        )
    layout = dict(
        xaxis=dict(title=dict(text=_("distance r (log)")), type="log" if r.min() > 0 else "linear"),
        yaxis=dict(title=dict(text="PE_p · PE_(p+r)")),
    )
    return finish(
        dict(data=traces, layout=layout),
        title=_("The similarity depends on the distance only"),
        subtitle=subtitle_lines(
            _(
                "measured from different p, every marker lands on the same curve; {half} at r = 0, "
                "falling and oscillating with distance"
            ).format(half=dim // 2),
            _("it is even in r: PE alone cannot tell a key before from a key after"),
        ),
        lecture=lecture,
    )


def learned_figure(sinusoidal_cos, learned_cos, *, positions, seq_len: int, lecture: bool = False) -> go.Figure:
    """Cosine similarity of the sinusoidal table next to a learned table at initialisation, one scale."""
    pos = as_array(positions)
    return heatmap_row(
        [
            Panel(sinusoidal_cos, _("sinusoidal: bands along the diagonals"), _("cosine"), "diverging", -1, 1),
            Panel(learned_cos, _("learned, at initialisation: no structure"), _("cosine"), "diverging", -1, 1),
        ],
        q_pos=pos,
        k_pos=pos,
        q_len=seq_len,
        k_len=seq_len,
        title=_("Cosine similarity of position vectors: sinusoidal against learned (BERT/GPT style)"),
        subtitle=_(
            "learned table seeded N(0, 0.02²) as BERT and GPT-2 initialise it; training has to discover any order"
        ),
        shared_scale=True,
        lecture=lecture,
    )


# --- the figures, by plain arguments ---------------------------------------------------------------


def sim_stride(seq_len: int) -> int:
    """The stride of the positions drawn on each axis of a similarity heatmap of ``seq_len`` positions."""
    return display_stride(seq_len, SIM_POINTS)


def profile_distances(seq_len: int) -> torch.Tensor:
    """Every distance from 1 up to 128, then log-spaced up to ``seq_len - 1``: (r,) int64."""
    return curve_positions(max(seq_len - 1, 1), points=PROFILE_POINTS, start=1)


def profile_starts(seq_len: int) -> tuple[int, ...]:
    """The positions ``p`` the profile measures ``PE_p . PE_(p + r)`` from: the first, and one a third in."""
    return tuple(sorted({0, (seq_len - 1) // 3}))


def matrix(*, seq_len: int, dim: int, base: float, lecture: bool = False) -> Chart:
    """``PE_i . PE_j`` on at most ``SIM_POINTS`` positions per axis, each cell the mean over the blocks its
    positions start: ``(n, n)``. The same in both layouts (a permutation keeps dot products)."""
    pos = display_positions(seq_len, SIM_POINTS)
    edges = block_edges(pos)  # each shown position stands for the block up to the next one
    sim = relative_block_means(lambda d: sinusoidal_similarity(d, dim, base=base), edges, edges).numpy()  # (n, n)
    figure = similarity_figure(sim, positions=pos.numpy(), seq_len=seq_len, dim=dim, lecture=lecture)
    return Chart.of(figure, lambda: matrix_csv(sim, pos.numpy(), pos.numpy()))


def profile(*, seq_len: int, dim: int, base: float, layout: str, lecture: bool = False) -> Chart:
    """``PE_p . PE_(p + r)`` measured from the table (in ``layout``) from :func:`profile_starts`, and the closed
    form ``sum_k cos(r theta_k)``, against the distances (r,) of :func:`profile_distances`."""
    r = profile_distances(seq_len)
    closed = sinusoidal_similarity(r, dim, base=base).numpy()  # (r,)
    starts = profile_starts(seq_len)
    measured = {  # (r,) each, NaN past the sequence; the CSV's columns, in English
        f"measured from p = {p}": sinusoidal_similarity_from(
            p, r, dim, base=base, layout=layout, length=seq_len
        ).numpy()
        for p in starts
    }
    named = {_("measured from p = {p}").format(p=p): y for p, y in zip(starts, measured.values(), strict=True)}
    figure = profile_figure(r.numpy(), closed, named, dim=dim, lecture=lecture)
    columns = {"distance r": r.numpy(), "sum cos(r theta_k)": closed, **measured}
    return Chart.of(figure, lambda: columns_csv(columns))


def profile_gap(*, seq_len: int, dim: int, base: float, layout: str) -> float:
    """The largest gap between the profile's measured dot products and the closed form (float64 rounding)."""
    return sinusoidal_profile_gap(
        profile_starts(seq_len), profile_distances(seq_len), dim, base=base, layout=layout, length=seq_len
    )


def learned_stride(learned_len: int) -> int:
    """The stride of the rows of the learned table drawn."""
    return sim_stride(learned_len)


def learned(*, learned_len: int, dim: int, base: float, seed: int, lecture: bool = False) -> Chart:
    """Cosine similarity of the first ``learned_len`` positions' vectors, on at most ``SIM_POINTS`` of them:
    the sinusoidal table's, and a learned table's as initialised from ``seed``."""
    pos = display_positions(learned_len, SIM_POINTS)
    table = learned_table(learned_len, dim, generator=torch.Generator().manual_seed(seed))  # (learned_len, dim)
    sinusoidal_cos = cosine_similarities(sinusoidal_table(pos, dim, base=base, dtype=torch.float64)).numpy()
    learned_cos = cosine_similarities(table[pos]).numpy()  # (n, n) each
    figure = learned_figure(sinusoidal_cos, learned_cos, positions=pos.numpy(), seq_len=learned_len, lecture=lecture)
    panels = {"sinusoidal": sinusoidal_cos, "learned": learned_cos}
    return Chart.of(figure, lambda: panels_csv(panels, pos.numpy(), pos.numpy()))

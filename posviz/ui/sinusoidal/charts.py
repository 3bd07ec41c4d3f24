"""The sinusoidal page's figures, cached process-wide by exactly the arguments they are built from.

Each takes the narrowest key that determines it and lecture mode: moving the
seed rebuilds the learned-table figure only, the layout leaves the side-by-side
layouts alone.
"""

from __future__ import annotations

import plotly.graph_objects as go

from posviz.figures import sinusoidal as fig
from posviz.ui.cache import cached_figure
from posviz.ui.sinusoidal.settings import LayoutsKey, LearnedKey, TableKey
from posviz.ui.sinusoidal.views import layouts_view, learned_view, similarity_view, table_view


@cached_figure
def table(k: TableKey, lecture: bool) -> go.Figure:
    v = table_view(k)
    return fig.table_figure(
        v.table, positions=v.positions, seq_len=k.seq_len, layout=k.layout, base=k.base, lecture=lecture
    )


@cached_figure
def waves(k: TableKey, lecture: bool) -> go.Figure:
    v = table_view(k)
    return fig.waves_figure(
        v.wave_positions,
        v.waves,
        components=v.components,
        labels=v.labels,
        seq_len=k.seq_len,
        lecture=lecture,
        wavelengths=v.component_wavelengths,  # with these the figure marks the components a strided sample would alias
    )


@cached_figure
def similarity(k: TableKey, lecture: bool) -> go.Figure:
    v = similarity_view(k)
    return fig.similarity_figure(v.sim, positions=v.positions, seq_len=k.seq_len, dim=k.dim, lecture=lecture)


@cached_figure
def profile(k: TableKey, lecture: bool) -> go.Figure:
    v = similarity_view(k)
    return fig.profile_figure(v.distances, v.closed, v.measured, dim=k.dim, lecture=lecture)


@cached_figure
def layouts(k: LayoutsKey, lecture: bool) -> go.Figure:
    v = layouts_view(k)
    return fig.layouts_figure(v.interleaved, v.concat, v.perm, positions=v.positions, lecture=lecture)


@cached_figure
def learned(k: LearnedKey, lecture: bool) -> go.Figure:
    v = learned_view(k)
    return fig.learned_figure(
        v.sinusoidal_cos, v.learned_cos, positions=v.positions, seq_len=k.learned_len, lecture=lecture
    )

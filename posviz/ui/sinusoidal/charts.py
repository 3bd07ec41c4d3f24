"""The sinusoidal page's figures, each with its CSV, cached process-wide by exactly the arguments they are built from.

Each takes the narrowest key that determines it and lecture mode: moving the
seed rebuilds the learned-table figure only, the layout leaves the side-by-side
layouts alone.
"""

from __future__ import annotations

from posviz.figures import sinusoidal as fig
from posviz.figures.csv import columns_csv, matrix_csv, panels_csv
from posviz.ui.cache import Chart, cached_figure
from posviz.ui.sinusoidal.settings import LayoutsKey, LearnedKey, TableKey
from posviz.ui.sinusoidal.views import layouts_view, learned_view, similarity_view, table_view


@cached_figure
def table(k: TableKey, lecture: bool) -> Chart:
    v = table_view(k)
    figure = fig.table_figure(
        v.table, positions=v.positions, seq_len=k.seq_len, layout=k.layout, base=k.base, lecture=lecture
    )
    return Chart(figure, lambda: matrix_csv(v.table, v.positions, range(k.dim)))


@cached_figure
def waves(k: TableKey, lecture: bool) -> Chart:
    v = table_view(k)
    figure = fig.waves_figure(
        v.wave_positions,
        v.waves,
        components=v.components,
        labels=v.labels,
        seq_len=k.seq_len,
        lecture=lecture,
        wavelengths=v.component_wavelengths,  # with these the figure marks the components a strided sample would alias
    )
    columns = {"position": v.wave_positions, **{f"component {c}": v.waves[:, i] for i, c in enumerate(v.components)}}
    return Chart(figure, lambda: columns_csv(columns))


@cached_figure
def similarity(k: TableKey, lecture: bool) -> Chart:
    v = similarity_view(k)
    figure = fig.similarity_figure(v.sim, positions=v.positions, seq_len=k.seq_len, dim=k.dim, lecture=lecture)
    return Chart(figure, lambda: matrix_csv(v.sim, v.positions, v.positions))


@cached_figure
def profile(k: TableKey, lecture: bool) -> Chart:
    v = similarity_view(k)
    figure = fig.profile_figure(v.distances, v.closed, v.measured, dim=k.dim, lecture=lecture)
    columns = {"distance r": v.distances, "sum cos(r theta_k)": v.closed, **v.measured}
    return Chart(figure, lambda: columns_csv(columns))


@cached_figure
def layouts(k: LayoutsKey, lecture: bool) -> Chart:
    v = layouts_view(k)
    figure = fig.layouts_figure(v.interleaved, v.concat, v.perm, positions=v.positions, lecture=lecture)
    return Chart(figure, lambda: columns_csv({"concat component": range(len(v.perm)), "interleaved component": v.perm}))


@cached_figure
def learned(k: LearnedKey, lecture: bool) -> Chart:
    v = learned_view(k)
    figure = fig.learned_figure(
        v.sinusoidal_cos, v.learned_cos, positions=v.positions, seq_len=k.learned_len, lecture=lecture
    )
    panels = {"sinusoidal": v.sinusoidal_cos, "learned": v.learned_cos}
    return Chart(figure, lambda: panels_csv(panels, v.positions, v.positions))

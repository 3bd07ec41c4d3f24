"""The compare page's figures, each with its CSV, cached process-wide by the settings and lecture mode.

Every figure reads the one compare view (:func:`posviz.ui.compare.views.compare_view`); its CSV
is built from the same arrays, once per view (:func:`posviz.ui.cache.cached_figure`).
"""

from __future__ import annotations

from posviz.figures import compare as fig
from posviz.figures.csv import columns_csv, panels_csv
from posviz.ui.cache import Chart, cached_figure
from posviz.ui.compare.settings import CompareSettings
from posviz.ui.compare.views import CompareView, compare_view


@cached_figure
def term_profile(s: CompareSettings, lecture: bool) -> Chart:
    v = compare_view(s)
    figure = fig.term_profile_figure(
        v.terms, names=v.names, positions=v.positions, causal=s.causal, colours=v.colours, lecture=lecture
    )
    return Chart(figure, lambda: term_profile_csv(v))


@cached_figure
def term_grid(s: CompareSettings, lecture: bool) -> Chart:
    v = compare_view(s)
    figure = fig.term_grid_figure(v.terms, names=v.names, positions=v.positions, causal=s.causal, lecture=lecture)
    return Chart(figure, lambda: panels_csv(dict(zip(v.names, v.terms, strict=True)), v.positions, v.positions))


@cached_figure
def attention_grid(s: CompareSettings, lecture: bool) -> Chart:
    v = compare_view(s)
    figure = fig.attention_grid_figure(
        v.weights, names=v.names, positions=v.positions, causal=s.causal, lecture=lecture
    )
    return Chart(figure, lambda: panels_csv(dict(zip(v.names, v.weights, strict=True)), v.positions, v.positions))


@cached_figure
def attention_row(s: CompareSettings, lecture: bool) -> Chart:
    v = compare_view(s)
    figure = fig.attention_row_figure(
        v.weights, names=v.names, positions=v.positions, colours=v.colours, lecture=lecture
    )
    return Chart(figure, lambda: attention_row_csv(v))


# The data behind a figure as CSV: the last query's row, one column per scheme.
def term_profile_csv(v: CompareView) -> str:
    pos, last = v.positions, len(v.positions) - 1
    return columns_csv(
        {"key j": pos, "distance i - j": last - pos, **dict(zip(v.names, v.terms[:, last], strict=True))}
    )


def attention_row_csv(v: CompareView) -> str:
    pos, last = v.positions, len(v.positions) - 1
    return columns_csv({"key j": pos, **dict(zip(v.names, v.weights[:, last], strict=True))})

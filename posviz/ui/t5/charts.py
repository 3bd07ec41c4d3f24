"""The T5 page's figures, each with its CSV, cached process-wide by exactly the arguments they are built from.

Each takes the narrowest key that determines it, plus lecture mode and, past
the bucket sections, the bias table's bytes: moving ``head`` rebuilds the
head's figures only, never the buckets.
"""

from __future__ import annotations

from collections.abc import Callable

from posviz.figures import t5 as fig
from posviz.figures.axes import figure_args
from posviz.figures.csv import columns_csv, matrix_csv, panels_csv
from posviz.figures.t5 import pipeline_matrix
from posviz.ui.cache import Chart, cached_figure
from posviz.ui.t5.notes import last_bucket_start
from posviz.ui.t5.settings import AttentionKey, BucketKey, GridKey, HeadKey
from posviz.ui.t5.views import (
    attention_view,
    bucket_view,
    grid_axes,
    grid_view,
    head_view,
    main_axes,
    pair_axes,
    pitfall_axes,
    pitfall_view,
    profile_csv,
)


def _on_main_axes(matrix_of: Callable[[], object], k: BucketKey) -> Callable[[], str]:
    """The CSV of a matrix on the page's main axes; ``matrix_of()`` reads it from the cache on click."""
    return lambda: matrix_csv(matrix_of(), main_axes(k).q_pos, main_axes(k).k_pos)


@cached_figure
def relative_positions(k: BucketKey, lecture: bool) -> Chart:
    figure = fig.relative_position_figure(
        bucket_view(k).steps.relative_position, **figure_args(main_axes(k), k, lecture)
    )
    return Chart(figure, _on_main_axes(lambda: bucket_view(k).steps.relative_position, k))


@cached_figure(max_entries=64)  # six steps of a few views
def pipeline_step(k: BucketKey, step: int, lecture: bool) -> Chart:
    figure = fig.pipeline_figure(
        bucket_view(k).steps,
        step,
        num_buckets=k.num_buckets,
        bidirectional=k.bidirectional,
        **figure_args(main_axes(k), k, lecture),
    )
    return Chart(figure, _on_main_axes(lambda: pipeline_matrix(bucket_view(k).steps, step), k))


@cached_figure
def buckets(k: BucketKey, lecture: bool) -> Chart:
    figure = fig.bucket_figure(
        bucket_view(k).steps.bucket, num_buckets=k.num_buckets, **figure_args(main_axes(k), k, lecture)
    )
    return Chart(figure, _on_main_axes(lambda: bucket_view(k).steps.bucket, k))


@cached_figure
def bucket_profile(k: BucketKey, lecture: bool) -> Chart:
    v = bucket_view(k)
    figure = fig.bucket_profile_figure(
        v.profile_r,
        v.profile_bucket,
        max_exact=v.max_exact,
        max_distance=k.max_distance,
        bidirectional=k.bidirectional,
        last_start=last_bucket_start(v.ranges),
        view_r=(v.r_min, v.r_max),
        lecture=lecture,
    )
    return Chart(figure, lambda: profile_csv(k))


@cached_figure
def head_bias(k: HeadKey, table: bytes, lecture: bool) -> Chart:
    figure = fig.bias_figure(head_view(k, table), head=k.head, **figure_args(main_axes(k), k, lecture))
    return Chart(figure, _on_main_axes(lambda: head_view(k, table), k))


@cached_figure
def bias_grid(k: GridKey, table: bytes, lecture: bool) -> Chart:
    figure = fig.bias_grid_figure(grid_view(k, table), **figure_args(grid_axes(k), k, lecture))
    return Chart(figure, lambda: grid_csv(k, table))


@cached_figure
def attention(k: AttentionKey, table: bytes, lecture: bool) -> Chart:
    """``k`` is the toy key (lengths capped)."""
    without, with_bias = attention_view(k, table)
    figure = fig.attention_figure(without, with_bias, head=k.head, **figure_args(pair_axes(k), k, lecture))
    return Chart(figure, lambda: attention_csv(k, table))


def middle_query(k: AttentionKey) -> tuple[int, int]:
    """Row index and position of the query whose attention row is drawn: the middle shown query."""
    px = pair_axes(k)
    mid = len(px.q_pos) // 2
    return mid, int(px.q_pos[mid])


@cached_figure
def attention_row(k: AttentionKey, table: bytes, lecture: bool) -> Chart:
    """``k`` is the toy key (lengths capped)."""
    without, with_bias = attention_view(k, table)
    mid, query = middle_query(k)
    figure = fig.attention_row_figure(
        without[mid], with_bias[mid], query=query, k_pos=pair_axes(k).k_pos, k_len=k.k_len, lecture=lecture
    )
    return Chart(figure, lambda: attention_row_csv(k, table))


@cached_figure
def pitfall(k: HeadKey, table: bytes, lecture: bool) -> Chart:
    correct, transposed = pitfall_view(k, table)
    figure = fig.pitfall_figure(correct, transposed, head=k.head, **figure_args(pitfall_axes(k), k, lecture))
    return Chart(figure, lambda: pitfall_csv(k, table))


# The data behind a figure as CSV, built when its download is clicked.
def attention_csv(k: AttentionKey, table: bytes) -> str:
    without, with_bias = attention_view(k, table)
    px = pair_axes(k)
    return panels_csv({"without bias": without, "with bias": with_bias}, px.q_pos, px.k_pos)


def attention_row_csv(k: AttentionKey, table: bytes) -> str:
    without, with_bias = attention_view(k, table)
    mid, _ = middle_query(k)
    return columns_csv({"key j": pair_axes(k).k_pos, "without bias": without[mid], "with bias": with_bias[mid]})


def pitfall_csv(k: HeadKey, table: bytes) -> str:
    correct, transposed = pitfall_view(k, table)
    px = pitfall_axes(k)
    return panels_csv({"permute(2, 0, 1)": correct, "transpose(0, 2)": transposed}, px.q_pos, px.k_pos)


def grid_csv(k: GridKey, table: bytes) -> str:
    gx = grid_axes(k)
    return panels_csv({f"head {h}": z for h, z in enumerate(grid_view(k, table))}, gx.q_pos, gx.k_pos)

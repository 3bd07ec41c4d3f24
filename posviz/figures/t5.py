"""The T5 page's position and bucket figures, each one function of plain arguments returning a :class:`Chart`.

``relative_positions``, ``buckets``, ``bucket_profile`` and the table ``bucket_table`` are what the page
(and a notebook) calls; the ``*_figure`` builders below them turn arrays into specs. The walk-through
between them is :mod:`posviz.figures.t5_pipeline`, the bias and its effect :mod:`posviz.figures.t5_bias`.
Every matrix is drawn on at most ``MAIN_POINTS`` positions per axis, inside the zoom window if any.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import torch

from posviz.encodings.positions import relative_positions as relative_position_matrix
from posviz.encodings.positions import signed_distances
from posviz.encodings.t5 import T5BucketRange, t5_bucket, t5_bucket_ranges, t5_max_exact
from posviz.figures.axes import Axes, Window, axes
from posviz.figures.chart import Chart
from posviz.figures.common import as_array, compact, finish, heatmap, look, subtitle_lines
from posviz.figures.csv import columns_csv, matrix_csv
from posviz.figures.marks import Mark, add_marks
from posviz.i18n import N_, _, ngettext

MAIN_POINTS = 192  # per axis for single heatmaps: 192^2 cells stay under 1 MB of chart data


# --- the positions drawn -------------------------------------------------------------------------


def shown_axes(
    *,
    q_len: int,
    k_len: int,
    align: str,
    window: int = 0,
    q_start: int = 0,
    k_start: int = 0,
    points: int = MAIN_POINTS,
) -> Axes:
    """The shown queries and keys of the page's matrices: at most ``points`` per axis, inside the zoom window."""
    return axes(q_len, k_len, align, points, window=Window(q_start, k_start, window))


def on_axes(ax: Axes, q_len: int, k_len: int, lecture: bool) -> dict[str, Any]:
    """The keyword arguments of a matrix figure drawn on ``ax``: the shown positions, the lengths, lecture mode."""
    return dict(q_pos=ax.q_pos, k_pos=ax.k_pos, q_len=q_len, k_len=k_len, lecture=lecture)


def view_range(*, q_len: int, k_len: int, align: str, window: int = 0, q_start: int = 0, k_start: int = 0):
    """``(r_min, r_max)``: the relative positions ``r = j - i`` the shown queries reach over every key."""
    ax = shown_axes(q_len=q_len, k_len=k_len, align=align, window=window, q_start=q_start, k_start=k_start)
    return -int(ax.q_pos[-1]), k_len - 1 - int(ax.q_pos[0])


def profile_distances(max_distance: int) -> torch.Tensor:
    """(2 reach + 1,) int64: the ``r`` of the bucket profile, a little past ``max_distance`` on both sides,
    where every distance has joined the last bucket (a decoder's future is all bucket 0)."""
    return signed_distances(max(int(1.5 * max_distance), 16))


def profile_range(max_distance: int) -> tuple[int, int]:
    """The first and last ``r`` of the bucket profile."""
    r = profile_distances(max_distance)
    return int(r[0]), int(r[-1])


# --- the figures, by plain arguments ---------------------------------------------------------------


def relative_positions(
    *, q_len: int, k_len: int, align: str, window: int = 0, q_start: int = 0, k_start: int = 0, lecture: bool = False
) -> Chart:
    """The matrix ``r = j - i`` on the shown cells."""
    ax = shown_axes(q_len=q_len, k_len=k_len, align=align, window=window, q_start=q_start, k_start=k_start)
    rel = relative_position_matrix(torch.as_tensor(ax.q_pos), torch.as_tensor(ax.k_pos)).numpy()  # (q, k)
    figure = relative_position_figure(rel, **on_axes(ax, q_len, k_len, lecture))
    return Chart.of(figure, lambda: matrix_csv(rel, ax.q_pos, ax.k_pos))


def buckets(
    *,
    q_len: int,
    k_len: int,
    align: str,
    bidirectional: bool,
    num_buckets: int,
    max_distance: int,
    window: int = 0,
    q_start: int = 0,
    k_start: int = 0,
    lecture: bool = False,
) -> Chart:
    """The bucket of every shown (query, key) pair."""
    ax = shown_axes(q_len=q_len, k_len=k_len, align=align, window=window, q_start=q_start, k_start=k_start)
    rel = relative_position_matrix(torch.as_tensor(ax.q_pos), torch.as_tensor(ax.k_pos))  # (q shown, k shown)
    bucket = t5_bucket(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance).numpy()
    figure = bucket_figure(bucket, num_buckets=num_buckets, **on_axes(ax, q_len, k_len, lecture))
    return Chart.of(figure, lambda: matrix_csv(bucket, ax.q_pos, ax.k_pos))


def bucket_profile(
    *,
    q_len: int,
    k_len: int,
    align: str,
    bidirectional: bool,
    num_buckets: int,
    max_distance: int,
    window: int = 0,
    q_start: int = 0,
    k_start: int = 0,
    lecture: bool = False,
) -> Chart:
    """The bucket against ``r`` (:func:`profile_distances`), the range of ``r`` this view reaches shaded."""
    kw = dict(bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    r = profile_distances(max_distance)
    bucket = t5_bucket(r, **kw).numpy()
    figure = bucket_profile_figure(
        r.numpy(),
        bucket,
        max_exact=t5_max_exact(num_buckets, bidirectional=bidirectional),
        max_distance=max_distance,
        bidirectional=bidirectional,
        last_start=last_bucket_start(t5_bucket_ranges(**kw)),
        view_r=view_range(q_len=q_len, k_len=k_len, align=align, window=window, q_start=q_start, k_start=k_start),
        lecture=lecture,
    )
    return Chart.of(figure, lambda: columns_csv({"r = j - i": r.numpy(), "bucket": bucket}))


# --- what each bucket covers -----------------------------------------------------------------------


def bucket_table(
    *,
    q_len: int,
    k_len: int,
    align: str,
    bidirectional: bool,
    num_buckets: int,
    max_distance: int,
    window: int = 0,
    q_start: int = 0,
    k_start: int = 0,
) -> pd.DataFrame:
    """The bucket table of these settings (:func:`ranges_frame`), "reached" in this view."""
    ranges = t5_bucket_ranges(bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    r_min, r_max = view_range(q_len=q_len, k_len=k_len, align=align, window=window, q_start=q_start, k_start=k_start)
    return ranges_frame(ranges, r_min=r_min, r_max=r_max, max_distance=max_distance)


def bucket_table_and_notes(**settings: Any) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """:func:`bucket_table` (same arguments) and the notes listed above it, one line per distinct note:
    what the page reads of the table on every run, in one cached read."""
    frame = bucket_table(**settings)
    return shown_headers(frame), tuple(bucket_notes(frame))


def shown_headers(frame: pd.DataFrame) -> pd.DataFrame:
    """The bucket table with its headers in the run's language (the code reads the English ones)."""
    headers = {
        "direction": _("direction"),
        "covers": _("covers"),
        "distances": _("distances"),
        "kind": _("kind"),
        "reached in this view": _("reached in this view"),
        "note": _("note"),
    }
    return frame.rename(columns=headers).rename_axis(_("bucket"))


# The words of the table's cells, by the English value the code computes with.
DIRECTIONS = {
    "past": N_("past"),
    "future": N_("future"),
    "self": N_("self"),
    "none": N_("none"),
    "self and future": N_("self and future"),
}
KINDS = {"exact": N_("exact"), "log": N_("log"), "unused": N_("unused")}


def ranges_frame(ranges: list[T5BucketRange], *, r_min: int, r_max: int, max_distance: int) -> pd.DataFrame:
    """The bucket table: what each bucket covers, how many distances, exact or log."""
    rows = []
    for rg in ranges:
        if rg.kind == "unused":
            covers, count, used = _("nothing"), 0, False
        elif rg.direction == "self and future":
            covers, count, used = _("r ≥ 0 (self and every future key)"), _("all"), r_max >= 0
        elif rg.last is None:
            covers = f"r ≤ {rg.first}" if rg.first < 0 else f"r ≥ {rg.first}"
            count = _("all beyond")
            used = r_min <= rg.first if rg.first < 0 else r_max >= rg.first
        else:
            lo, hi = sorted((rg.first, rg.last))
            covers = f"r = {lo}" if lo == hi else f"{lo} ≤ r ≤ {hi}"
            count, used = rg.count, lo <= r_max and hi >= r_min
        note = ""
        if rg.kind == "unused":
            note = _("never used: {why}").format(why=_(rg.why))
        elif rg.last is None and rg.direction in ("past", "future"):
            start = abs(rg.first)
            last = (
                _("the last past bucket starts at distance {start}")
                if rg.direction == "past"
                else _("the last future bucket starts at distance {start}")
            )
            note = last.format(start=start) + (
                _(", not at max_distance = {max_distance}").format(max_distance=max_distance)
                if start != max_distance
                else ""
            )
        rows.append(
            dict(
                bucket=rg.bucket,
                direction=_(DIRECTIONS[rg.direction]),
                covers=covers,
                distances=str(count),
                kind=_(KINDS[rg.kind]),
                **{"reached in this view": _("yes") if used else _("no")},
                note=note,
            )
        )
    return pd.DataFrame(rows).set_index("bucket")


def last_bucket_start(ranges: list[T5BucketRange]) -> int | None:
    """Distance where the last past bucket begins (the same for the future side)."""
    return next((abs(rg.first) for rg in ranges if rg.direction == "past" and rg.last is None), None)


def int_ranges(values: list[int]) -> str:
    """[1, 2, 3, 7, 9, 10] -> '1–3, 7, 9–10'."""
    runs: list[list[int]] = []
    for v in sorted(values):
        if runs and v == runs[-1][1] + 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    return ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in runs)


def bucket_notes(frame: pd.DataFrame) -> list[str]:
    """The table's notes, one line per distinct note, naming its buckets."""
    noted = frame[frame["note"] != ""]
    return [
        ngettext("bucket {buckets}: {note}", "buckets {buckets}: {note}", len(group)).format(
            buckets=int_ranges(group.index.tolist()), note=note
        )
        for note, group in noted.groupby("note", sort=False)
    ]


# --- the builders: arrays in, specs out ------------------------------------------------------------


def relative_position_figure(rel, *, q_pos, k_pos, q_len: int, k_len: int, lecture: bool = False) -> go.Figure:
    """The matrix ``r = j - i`` on a diverging scale centred at 0."""
    return heatmap(
        rel,
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=q_len,
        k_len=k_len,
        lecture=lecture,
        title=_("Relative position r = j − i"),
        value_name="r",
        palette="diverging",
        value_format="d",
        subtitle=_("negative (blue): the key is in the query's past; 0 on the query's own position"),
    )


def bucket_figure(
    bucket,
    *,
    q_pos,
    k_pos,
    q_len: int,
    k_len: int,
    num_buckets: int,
    lecture: bool = False,
) -> go.Figure:
    """The final bucket matrix on a fixed 0 .. num_buckets − 1 scale."""
    return heatmap(
        bucket,
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=q_len,
        k_len=k_len,
        lecture=lecture,
        title=_("Bucket index of every (query, key) pair"),
        value_name=_("bucket"),
        zmin=0,
        zmax=num_buckets - 1,
        value_format="d",
        subtitle=_("constant along each diagonal: the bucket depends on r = j − i only"),
    )


def step_points(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The corners of a step function sampled at every ``x``: where ``y`` changes, plus the ends."""
    keep = np.ones(len(y), dtype=bool)
    keep[1:-1] = y[1:-1] != y[:-2]
    return compact(x[keep]), compact(y[keep])


def bucket_profile_figure(
    r,
    bucket,
    *,
    max_exact: int,
    max_distance: int,
    bidirectional: bool,
    last_start: int | None = None,
    view_r: tuple[int, int] | None = None,
    lecture: bool = False,
) -> go.Figure:
    """Bucket against relative position, with max_exact, the last bucket's start and max_distance marked.

    ``view_r``, the range of ``r`` the current sequence reaches, is shaded.

    Only the points where the bucket changes (and the last one) are sent: with
    ``shape="hv"`` that draws the same steps exactly, in at most a few hundred
    points however long the range of ``r``.
    """
    lk = look(lecture)
    r, b = step_points(as_array(r), as_array(bucket))
    line = dict(
        type="scatter",
        x=r,
        y=b,
        mode="lines",
        line=dict(shape="hv", width=lk.line),
        name=_("bucket"),
        hovertemplate=_("r = %{x}<br>bucket = %{y}") + "<extra></extra>",
    )
    layout = dict(
        xaxis=dict(title=dict(text=_("relative position r = j − i"))), yaxis=dict(title=dict(text=_("bucket")))
    )
    spec = dict(data=[line], layout=layout)  # plain data: finish() builds the figure once
    marks = [(-max_exact, "−max_exact", "top left"), (-max_distance, "−max_distance", "top left")]
    if bidirectional:
        marks += [(max_exact, "max_exact", "bottom right"), (max_distance, "max_distance", "bottom right")]
    if last_start is not None and last_start != max_distance:
        marks.append((-last_start, _("last bucket"), "bottom left"))
        if bidirectional:
            marks.append((last_start, _("last bucket"), "top right"))
    if view_r is not None:
        lo, hi = max(view_r[0], int(r.min())), min(view_r[1], int(r.max()))
        shade = dict(type="rect", x0=lo, x1=hi, xref="x", y0=0, y1=1, yref="y domain", line=dict(width=0))
        layout["shapes"] = [dict(shade, fillcolor="#4c78a8", opacity=0.08)]
    seen = [Mark(x, label, where) for x, label, where in marks if r.min() <= x <= r.max()]
    add_marks(spec, seen, line=dict(dash="dot", color="#555"))
    return finish(
        spec,
        title=_("Bucket as a function of distance"),
        subtitle=subtitle_lines(
            _("one step per distance up to max_exact, then logarithmically wider steps"),
            _("shaded: the distances this sequence reaches") if view_r is not None else None,
        ),
        lecture=lecture,
        height=int(lk.height * 0.8),
    )

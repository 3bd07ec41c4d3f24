"""The T5 bucket pipeline, step by step: the walk-through between ``r = j - i`` and the final bucket.

``pipeline_step`` is what the page (and a notebook) calls, one step at a time; ``pipeline_figure``
draws a step from :class:`posviz.encodings.t5.T5BucketSteps`.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import torch

from posviz.encodings.positions import relative_positions
from posviz.encodings.t5 import T5BucketSteps, t5_bucket_steps, t5_half
from posviz.figures.chart import Chart
from posviz.figures.common import as_array, heatmap
from posviz.figures.csv import matrix_csv
from posviz.figures.layout import WALK_LECTURE_HEIGHT
from posviz.figures.t5 import on_axes, shown_axes
from posviz.i18n import N_, _

# The walk-through, in the order the seed notebooks take it: (key, title).
# It starts from r = j - i (the figure above it) and ends one step before the final
# bucket (the figure below it), which adds the direction offset.
PIPELINE_STEPS = (
    ("n", N_("Step 1 · distance n")),
    ("is_small", N_("Step 2 · is_small = n < max_exact")),
    ("log", N_("Step 3 · val_if_large as a float")),
    ("long", N_("Step 4 · val_if_large after .long()")),
    ("clamp", N_("Step 5 · val_if_large clamped to the last bucket")),
    ("within", N_("Step 6 · torch.where(is_small, n, val_if_large)")),
)


def pipeline_matrix(steps: T5BucketSteps, step: int) -> np.ndarray:
    """The exact values step ``step`` (1-based) draws: ``-inf`` and int64 garbage included."""
    key = PIPELINE_STEPS[step - 1][0]
    if key == "log":
        return steps.max_exact + as_array(steps.log_ratio)
    field = {"n": "n", "is_small": "is_small", "long": "val_if_large_raw", "clamp": "val_if_large", "within": "within"}[
        key
    ]
    return as_array(getattr(steps, field))


INT64_MIN = np.iinfo(np.int64).min


def pipeline_figure(
    steps: T5BucketSteps,
    step: int,
    *,
    q_pos,
    k_pos,
    q_len: int,
    k_len: int,
    bidirectional: bool,
    num_buckets: int,
    lecture: bool = False,
) -> go.Figure:
    """One step (1-based) of the bucket pipeline as a heatmap of the shown cells."""
    key, title = PIPELINE_STEPS[step - 1]
    half = t5_half(num_buckets, bidirectional=bidirectional)
    height = WALK_LECTURE_HEIGHT if lecture else None  # fits a projector below the step buttons
    common = dict(q_pos=q_pos, k_pos=k_pos, q_len=q_len, k_len=k_len, lecture=lecture, title=_(title), height=height)
    values = pipeline_matrix(steps, step)
    if key == "n":
        sub = (
            _("n = |r|; future keys (r > 0) will be offset by {half} into the upper half of the buckets").format(
                half=half
            )
            if bidirectional
            else _("n = max(−r, 0): every future key gets n = 0")
        )
        return heatmap(values, value_name="n", subtitle=sub, value_format="d", **common)
    if key == "is_small":
        sub = _("max_exact = {max_exact}: distances below it are their own bucket (1 = small)").format(
            max_exact=steps.max_exact
        )
        return heatmap(values, value_name="is_small", subtitle=sub, zmin=0, zmax=1, value_format="d", **common)
    if key == "log":
        sub = "max_exact + log(n / max_exact) / log(max_distance / max_exact) · (half − max_exact)"
        return heatmap(
            values,
            value_name="val_if_large",
            subtitle=sub,
            value_format=".4g",
            mask=~np.isfinite(values),
            mask_label=_("−inf, from log(0) where n = 0"),
            **common,
        )
    if key in ("long", "clamp"):
        garbage = values < -(2**62)  # int64 min + max_exact, from (-inf).long()
        sub = "max_exact + trunc(·)" if key == "long" else f"torch.min(·, {half - 1})"
        label = _("{garbage} = int64 min + max_exact, from (−inf).long()").format(
            garbage=INT64_MIN + steps.max_exact
        ) + ("" if key == "long" else _(", still there"))
        return heatmap(
            np.where(garbage, 0, values),
            value_name="val_if_large",
            subtitle=sub,
            value_format="d",
            mask=garbage,
            mask_label=label,
            **common,
        )
    sub = _("the bucket within its direction's half, 0 .. {last}; the garbage sat where n is small: gone").format(
        last=half - 1
    )
    if bidirectional:
        sub += "<br>" + _("future keys still get + {half} (next figure)").format(half=half)
    return heatmap(
        values, value_name=_("bucket in half"), subtitle=sub, zmin=0, zmax=half - 1, value_format="d", **common
    )


def pipeline_step(
    *,
    q_len: int,
    k_len: int,
    align: str,
    bidirectional: bool,
    num_buckets: int,
    max_distance: int,
    step: int,
    window: int = 0,
    q_start: int = 0,
    k_start: int = 0,
    lecture: bool = False,
) -> Chart:
    """Step ``step`` (1-based, :data:`PIPELINE_STEPS`) of the bucket pipeline on the shown cells; its CSV
    holds the exact values, ``-inf`` and int64 garbage included."""
    ax = shown_axes(q_len=q_len, k_len=k_len, align=align, window=window, q_start=q_start, k_start=k_start)
    rel = relative_positions(torch.as_tensor(ax.q_pos), torch.as_tensor(ax.k_pos))  # (q shown, k shown)
    steps = t5_bucket_steps(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    figure = pipeline_figure(
        steps, step, bidirectional=bidirectional, num_buckets=num_buckets, **on_axes(ax, q_len, k_len, lecture)
    )
    return Chart.of(figure, lambda: matrix_csv(pipeline_matrix(steps, step), ax.q_pos, ax.k_pos))

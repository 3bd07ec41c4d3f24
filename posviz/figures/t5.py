"""Figures for the T5 relative-bias explorer."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz.encodings.t5 import T5BucketSteps, t5_half
from posviz.figures.common import as_array, compact, finish, heatmap, heatmap_grid, look, sample_note, subtitle_lines
from posviz.figures.layout import WALK_LECTURE_HEIGHT
from posviz.figures.marks import Mark, add_marks

# The walk-through, in the order the seed notebooks take it: (key, title).
# It starts from r = j - i (the figure above it) and ends one step before the final
# bucket (the figure below it), which adds the direction offset.
PIPELINE_STEPS = (
    ("n", "Step 1 · distance n"),
    ("is_small", "Step 2 · is_small = n < max_exact"),
    ("log", "Step 3 · val_if_large as a float"),
    ("long", "Step 4 · val_if_large after .long()"),
    ("clamp", "Step 5 · val_if_large clamped to the last bucket"),
    ("within", "Step 6 · torch.where(is_small, n, val_if_large)"),
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
    common = dict(q_pos=q_pos, k_pos=k_pos, q_len=q_len, k_len=k_len, lecture=lecture, title=title, height=height)
    values = pipeline_matrix(steps, step)
    if key == "n":
        sub = (
            f"n = |r|; future keys (r > 0) will be offset by {half} into the upper half of the buckets"
            if bidirectional
            else "n = max(−r, 0): every future key gets n = 0"
        )
        return heatmap(values, value_name="n", subtitle=sub, value_format="d", **common)
    if key == "is_small":
        sub = f"max_exact = {steps.max_exact}: distances below it are their own bucket (1 = small)"
        return heatmap(values, value_name="is_small", subtitle=sub, zmin=0, zmax=1, value_format="d", **common)
    if key == "log":
        sub = "max_exact + log(n / max_exact) / log(max_distance / max_exact) · (half − max_exact)"
        return heatmap(
            values,
            value_name="val_if_large",
            subtitle=sub,
            value_format=".4g",
            mask=~np.isfinite(values),
            mask_label="−inf, from log(0) where n = 0",
            **common,
        )
    if key in ("long", "clamp"):
        garbage = values < -(2**62)  # int64 min + max_exact, from (-inf).long()
        sub = "max_exact + trunc(·)" if key == "long" else f"torch.min(·, {half - 1})"
        label = f"{INT64_MIN + steps.max_exact} = int64 min + max_exact, from (−inf).long()" + (
            "" if key == "long" else ", still there"
        )
        return heatmap(
            np.where(garbage, 0, values),
            value_name="val_if_large",
            subtitle=sub,
            value_format="d",
            mask=garbage,
            mask_label=label,
            **common,
        )
    sub = f"the bucket within its direction's half, 0 .. {half - 1}; the garbage sat where n is small: gone"
    if bidirectional:
        sub += f"<br>future keys still get + {half} (next figure)"
    return heatmap(values, value_name="bucket in half", subtitle=sub, zmin=0, zmax=half - 1, value_format="d", **common)


def relative_position_figure(rel, *, q_pos, k_pos, q_len: int, k_len: int, lecture: bool = False) -> go.Figure:
    """The matrix ``r = j - i`` on a diverging scale centred at 0."""
    return heatmap(
        rel,
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=q_len,
        k_len=k_len,
        lecture=lecture,
        title="Relative position r = j − i",
        value_name="r",
        palette="diverging",
        value_format="d",
        subtitle="negative (blue): the key is in the query's past; 0 on the query's own position",
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
        title="Bucket index of every (query, key) pair",
        value_name="bucket",
        zmin=0,
        zmax=num_buckets - 1,
        value_format="d",
        subtitle="constant along each diagonal: the bucket depends on r = j − i only",
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
        name="bucket",
        hovertemplate="r = %{x}<br>bucket = %{y}<extra></extra>",
    )
    layout = dict(xaxis=dict(title=dict(text="relative position r = j − i")), yaxis=dict(title=dict(text="bucket")))
    spec = dict(data=[line], layout=layout)  # plain data: finish() builds the figure once
    marks = [(-max_exact, "−max_exact", "top left"), (-max_distance, "−max_distance", "top left")]
    if bidirectional:
        marks += [(max_exact, "max_exact", "bottom right"), (max_distance, "max_distance", "bottom right")]
    if last_start is not None and last_start != max_distance:
        marks.append((-last_start, "last bucket", "bottom left"))
        if bidirectional:
            marks.append((last_start, "last bucket", "top right"))
    if view_r is not None:
        lo, hi = max(view_r[0], int(r.min())), min(view_r[1], int(r.max()))
        shade = dict(type="rect", x0=lo, x1=hi, xref="x", y0=0, y1=1, yref="y domain", line=dict(width=0))
        layout["shapes"] = [dict(shade, fillcolor="#4c78a8", opacity=0.08)]
    seen = [Mark(x, label, where) for x, label, where in marks if r.min() <= x <= r.max()]
    add_marks(spec, seen, line=dict(dash="dot", color="#555"))
    return finish(
        spec,
        title="Bucket as a function of distance",
        subtitle=subtitle_lines(
            "one step per distance up to max_exact, then logarithmically wider steps",
            "shaded: the distances this sequence reaches" if view_r is not None else None,
        ),
        lecture=lecture,
        height=int(lk.height * 0.8),
    )


def bias_figure(bias_h, *, head: int, q_pos, k_pos, q_len: int, k_len: int, lecture: bool = False) -> go.Figure:
    """One head's additive bias ``bias[0, head]`` on a diverging scale."""
    return heatmap(
        bias_h,
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=q_len,
        k_len=k_len,
        lecture=lecture,
        title=f"Bias added to head {head}'s logits",
        value_name="bias",
        palette="diverging",
        subtitle="scale · table[bucket(j − i), head]",
    )


def bias_grid_figure(bias, *, q_pos, k_pos, q_len: int, k_len: int, lecture: bool = False) -> go.Figure:
    """Every head's bias, small multiples on one shared diverging scale; each cell the mean over the block
    of positions it starts (:mod:`posviz.encodings.pooling`: a strided sample aliases)."""
    heads = bias.shape[0]
    return heatmap_grid(
        bias,
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=q_len,
        k_len=k_len,
        lecture=lecture,
        titles=[f"head {h}" for h in range(heads)],
        value_name="bias",
        title=f"All {heads} heads of the bias tensor (1, {heads}, q_len, k_len)",
        cols=4 if heads <= 16 else 8,
        pooled=True,
    )


def attention_figure(
    without, with_bias, *, head: int, q_pos, k_pos, q_len: int, k_len: int, lecture: bool = False
) -> go.Figure:
    """Toy attention weights without and with the bias, on one scale."""
    both = np.stack([as_array(without), as_array(with_bias)])
    return heatmap_grid(
        both,
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=q_len,
        k_len=k_len,
        lecture=lecture,
        titles=["softmax(q kᵀ / √d)", f"softmax(q kᵀ / √d + bias[{head}])"],
        title=f"Attention weights of head {head}, without and with the position bias",
        subtitle="colour: log scale (most weights are tiny, a few large)",
        value_name="weight",
        palette="sequential",
        cols=2,
        log_scale=True,
    )


def attention_row_figure(
    without, with_bias, *, query: int, k_pos, k_len: int | None = None, lecture: bool = False
) -> go.Figure:
    """One query's attention over the keys, without and with the bias."""
    lk = look(lecture)
    k = compact(as_array(k_pos))
    rel = compact(as_array(k_pos).astype(np.int64) - query)  # r = j - i for the hover
    fig = go.Figure()
    for y, name, dash in ((without, "without bias", "dot"), (with_bias, "with bias", "solid")):
        fig.add_trace(
            go.Scatter(
                x=k,
                y=as_array(y).astype(np.float32),
                customdata=rel,
                name=name,
                mode="lines",
                line=dict(width=lk.line, dash=dash),
                hovertemplate="key j = %{x}<br>r = j − i = %{customdata}<br>weight = %{y:.3g}"
                f"<extra>{name}</extra>",
            )
        )
    fig.add_vline(x=query, line=dict(dash="dot", color="#555"), annotation_text=f"i = {query}")
    fig.update_xaxes(title_text="key position j", automargin=True)
    fig.update_yaxes(title_text="attention weight", automargin=True, rangemode="tozero")
    return finish(
        fig,
        title=f"Query i = {query}: where its attention goes",
        lecture=lecture,
        subtitle=subtitle_lines(
            "the same random q and k; only the position bias differs",
            sample_note([query], k_pos, 1, k_len or len(k)),
        ),
        height=int(lk.height * 0.8),
    )


def pitfall_figure(
    correct,
    transposed,
    *,
    head: int,
    q_pos,
    k_pos,
    q_len: int | None = None,
    k_len: int | None = None,
    lecture: bool = False,
) -> go.Figure:
    """``permute(2, 0, 1)`` against the seeds' ``transpose(0, 2)`` for a square bias."""
    correct, transposed = as_array(correct), as_array(transposed)
    return heatmap_grid(
        np.stack([correct, transposed, transposed - correct]),
        q_pos=q_pos,
        k_pos=k_pos,
        titles=["permute(2, 0, 1)", "transpose(0, 2)", "difference"],
        title=f"Head {head}: the same tensor, two reshapes",
        subtitle=subtitle_lines(
            "left: correct; middle: what transpose(0, 2) adds at (i, j); right: middle − left",
            "transpose(0, 2) swaps queries and keys: it adds bias(i − j) instead of bias(j − i)",
        ),
        value_name="bias",
        palette="diverging",
        cols=3,
        q_len=q_len,
        k_len=k_len,
        lecture=lecture,
    )

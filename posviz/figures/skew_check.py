"""Steps 5 and 6 of the skew walk-through: the skew's result against the direct gather.

``check`` and the page's numbers ``check_summary`` are functions of plain arguments; they read the
skew run the steps share (:func:`posviz.figures.skew.walkthrough`). The colouring plays no part.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz.figures.chart import Chart
from posviz.figures.common import Panel, as_array, heatmap_row, number
from posviz.figures.skew import step_csv, step_titles, walkthrough
from posviz.i18n import _


def skew_check_figure(
    result, gather, valid, step: int, *, variant: str, max_diff: float, lecture: bool = False
) -> go.Figure:
    """Step 5 (garbage marked) or 6 (masked, with the difference) of the walk-through.

    Args:
        result: (L, K) the skew's output; gather: (L, K) the direct ``q_i . Er[...]``;
        valid: (L, K) bool, pairs the gather defines (``j <= i`` when masked).
    """
    result, gather, valid = as_array(result), as_array(gather), as_array(valid).astype(bool)
    rows, cols = result.shape
    q_pos, k_pos = np.arange(rows), np.arange(cols)
    bound = float(np.abs(result[valid]).max()) if valid.any() else 1.0
    if step == 5:
        panels = [
            Panel(result, _("the skew's result"), _("score"), "diverging", -bound, bound),
            Panel(
                gather, _("direct gather q_i · Er[j − i + L − 1]"), _("score"), "diverging", -bound, bound, mask=~valid
            ),
        ]
        sub = _("the ✕ cells are garbage: values of the next row and the pad, no distance of their own")
    else:
        diff = np.where(valid, np.abs(result - gather), np.nan)
        panels = [
            Panel(result, _("the skew's result, masked"), _("score"), "diverging", -bound, bound, mask=~valid),
            Panel(
                diff, "|skew − gather|", _("difference"), "sequential", 0.0, max(max_diff, 1e-12), ".1e", mask=~valid
            ),
        ]
        sub = _("largest difference on the kept entries: {max_diff} (float32 rounding)").format(
            max_diff=number(max_diff, 3)
        )
    fig = heatmap_row(
        panels,
        q_pos=q_pos,
        k_pos=k_pos,
        title=step_titles(variant)[step - 1],
        subtitle=sub,
        lecture=lecture,
        mask_label=_("outside the causal part (no relative embedding)") if (~valid).any() else None,
    )
    if step == 5 and (~valid).any():
        ys, xs = np.nonzero(~valid)
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="markers",
                marker=dict(symbol="x-thin", size=max(4, min(14, 320 // max(rows, cols))), line=dict(width=2)),
                marker_color="#111",
                name=_("garbage"),
                hovertemplate=_("garbage: no relative embedding for key %{x} of query %{y}") + "<extra></extra>",
                showlegend=False,
            ),
        )  # on the first panel
    return fig


def check(
    *, seq_len: int, dim: int, seed: int, variant: str, mem_len: int = 0, number: int, lecture: bool = False
) -> Chart:
    """Step ``number`` (5 or 6): the skew's result against the direct gather (the colouring plays no part)."""
    w = walkthrough(seq_len, dim, seed, variant, mem_len)
    sliced = as_array(w.steps.sliced)
    figure = skew_check_figure(
        sliced, as_array(w.gather), as_array(w.valid), number, variant=variant, max_diff=w.max_diff, lecture=lecture
    )
    return Chart.of(figure, lambda: step_csv(sliced))


def check_summary(*, seq_len: int, dim: int, seed: int, variant: str, mem_len: int = 0) -> tuple[int, float]:
    """The pairs the gather defines and the largest ``|skew - gather|`` on them."""
    w = walkthrough(seq_len, dim, seed, variant, mem_len)
    return w.valid_pairs, w.max_diff

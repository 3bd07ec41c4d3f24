"""The stick-breaking page's figures: one function of plain arguments per figure, each returning a :class:`Chart`."""

from __future__ import annotations

import numpy as np
import torch

from posviz.encodings.attention import toy_qk
from posviz.encodings.stickbreaking import (
    equal_score_weights,
    softmax_causal_weights,
    stickbreaking_remainder,
    stickbreaking_weights,
)
from posviz.figures.chart import Chart
from posviz.figures.common import heatmap_grid
from posviz.figures.csv import columns_csv, panels_csv
from posviz.figures.layout import finish, look, number, subtitle_lines
from posviz.i18n import _

SB_COLOR, LEFT_COLOR = "#17becf", "#bbbbbb"
EQUAL_SCORES = (-2.0, 0.0, 2.0)
EQUAL_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c")
EQUAL_LEN = 33


def _toy(length: int, dim: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    return toy_qk(length, length, dim, generator=torch.Generator().manual_seed(seed))


def weights(*, length: int, dim: int, seed: int, lecture: bool = False) -> Chart:
    """Stick-breaking and causal softmax attention of the same toy queries and keys, side by side."""
    q, k = _toy(length, dim, seed)
    sb, soft = stickbreaking_weights(q, k).numpy(), softmax_causal_weights(q, k).numpy()
    pos = np.arange(length)
    future = pos[None, :] > pos[:, None]
    figure = heatmap_grid(
        np.stack([soft, np.where(future | np.eye(length, dtype=bool), np.nan, sb)]),
        q_pos=pos,
        k_pos=pos,
        titles=[_("causal softmax: rows sum to 1"), _("stick-breaking: keys before i only, rows sum to ≤ 1")],
        title=_("The same scores, two ways to turn them into attention"),
        subtitle=subtitle_lines(
            _("random q and k (seed {seed}), d = {dim}; stick-breaking has no position term and no softmax").format(
                seed=seed, dim=dim
            ),
            _("each key takes σ(q·k/√d) of what the nearer keys left: far keys get little unless the near ones pass"),
        ),
        value_name=_("weight"),
        palette="sequential",
        lecture=lecture,
    )
    return Chart.of(figure, lambda: panels_csv({"softmax": soft, "stick-breaking": sb}, pos, pos))


def row(*, length: int, dim: int, seed: int, query: int, lecture: bool = False) -> Chart:
    """One query's stick: each earlier key's share, nearest first, and what is left over."""
    lk = look(lecture)
    q, k = _toy(length, dim, seed)
    sb = stickbreaking_weights(q, k)
    i = min(max(query, 1), length - 1)
    shares = sb[i, :i].numpy()
    left = float(stickbreaking_remainder(sb)[i])
    keys = [_("key {j}").format(j=j) for j in range(i)]
    left_over = _("left over")
    data = [
        {
            "type": "bar", "x": keys, "y": shares.astype(np.float32), "name": _("A_ij: the share key j took"),
            "marker": {"color": SB_COLOR}, "hovertemplate": "%{x}: %{y:.3g}<extra></extra>",
        },
        {
            "type": "bar", "x": [left_over], "y": np.array([left], dtype=np.float32),
            "name": _("1 − Σ_j A_ij: left over (to the query's own value)"), "marker": {"color": LEFT_COLOR},
            "hovertemplate": left_over + ": %{y:.3g}<extra></extra>",
        },
    ]  # fmt: skip
    layout = {
        "xaxis": {"title": {"text": _("keys before query {i}, the nearest broke first").format(i=i)}},
        "yaxis": {"title": {"text": _("share of the stick")}},
    }
    figure = finish(
        {"data": data, "layout": layout},
        title=_("Query {i}: A_ij = β_ij · Π_(j<k<i) (1 − β_ik), computed in log space").format(i=i),
        subtitle=subtitle_lines(
            _(
                "the shares sum to {taken}; {left} of the stick is left, which the reference gives to the "
                "query's own value"
            ).format(taken=number(1 - left, 3), left=number(left, 3)),
        ),
        lecture=lecture,
        height=int(lk.height * 0.8),
    )
    return Chart.of(figure, lambda: columns_csv({"key": list(range(i)) + ["left over"], "share": [*shares, left]}))


def recency(*, lecture: bool = False) -> Chart:
    """Equal scores everywhere: the weight of the key ``r`` back is ``β (1 − β)^(r − 1)``, recency from the order."""
    lk = look(lecture)
    r = np.arange(1, EQUAL_LEN)
    curves = {z: equal_score_weights(EQUAL_LEN, z).numpy()[1:] for z in EQUAL_SCORES}
    data = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "x": r.astype(np.int32),
            "y": w.astype(np.float32),
            "name": _("every score {score}: β = {beta}").format(score=number(z), beta=number(1 / (1 + np.exp(-z)), 3)),
            "line": {"width": lk.line, "color": color},
            "marker": {"color": color},
            "hovertemplate": _("distance %{x}<br>weight %{y:.3g}") + "<extra></extra>",
        }
        for (z, w), color in zip(curves.items(), EQUAL_COLORS, strict=True)
    ]
    layout = {
        "xaxis": {"title": {"text": _("distance i − j")}},
        "yaxis": {"title": {"text": _("attention weight (log)")}, "type": "log", "range": [-8, 0.1]},
    }
    figure = finish(
        {"data": data, "layout": layout},
        title=_("No position term, yet near keys win: equal scores break the stick geometrically"),
        subtitle=subtitle_lines(
            _("the order of the breaks is the only position there is; content decides how far is far, as in CoPE"),
        ),
        lecture=lecture,
        height=int(lk.height * 0.8),
    )
    return Chart.of(figure, lambda: columns_csv({"distance": r, **{f"score {z:g}": w for z, w in curves.items()}}))


def compare_row(*, seq_len: int, dim: int, base: float, causal: bool) -> tuple[str, str, int, str]:
    """Stick-breaking's row of the compare page's properties table."""
    stops = _("never: a far key gets only what the nearer keys left, and the content decides how much that is")
    return (_("contextual, breaks a stick from the nearest key back"), _("fixed"), 0, stops)

"""The FIRE page's figures: one function of plain arguments per figure, each returning a :class:`Chart`.

The MLP's weights are seeded and illustrative (drawn as ``torch.nn.Linear`` initialises them), not a
trained model's.
"""

from __future__ import annotations

import numpy as np
import torch

from posviz.encodings.fire import (
    COMPARE_HEADS,
    INIT_L,
    fire_bias,
    fire_mlp,
    fire_normalized_distance,
    fire_parameter_count,
)
from posviz.encodings.positions import curve_positions, display_positions
from posviz.figures.chart import Chart
from posviz.figures.common import heatmap
from posviz.figures.csv import columns_csv, matrix_csv
from posviz.figures.layout import finish, look, number, subtitle_lines
from posviz.i18n import _

GRID_POINTS = 64  # per axis of the heatmap of u
CURVE_POINTS = 300
DISTANCES = (16, 64, 256, 1024)  # the distances followed as the query moves on
MLP_POINTS = 101  # u from 0 to 1


def _color(i: int, n: int) -> str:
    return f"hsl({int(240 * i / max(n - 1, 1))}, 70%, 42%)"


def interpolation(*, c: float, threshold: float, seq_len: int, lecture: bool = False) -> Chart:
    """``u`` of a few fixed distances as the query moves on: flat up to ``L``, then falling as ``1 / log i``."""
    lk = look(lecture)
    shown = [r for r in DISTANCES if r < seq_len] or [max(seq_len // 2, 1)]
    q = curve_positions(max(seq_len - 1, 1), dense=64, points=CURVE_POINTS)
    data, rows = [], {"distance": [], "query i": [], "u": []}
    for n, r in enumerate(shown):
        valid = q >= r
        qi = q[valid]
        u = fire_normalized_distance(qi, qi - r, c=c, threshold=threshold).diagonal().numpy()
        rows["distance"] += [r] * len(u)
        rows["query i"] += qi.tolist()
        rows["u"] += u.tolist()
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": qi.numpy().astype(np.int32),
                "y": u.astype(np.float32),
                "name": _("distance i − j = {r}").format(r=r),
                "line": {"width": lk.line, "color": _color(n, len(shown))},
                "hovertemplate": "query i = %{x}<br>u = %{y:.3f}<extra>" + f"r = {r}" + "</extra>",
            }
        )
    layout = {
        "xaxis": {"title": {"text": _("query position i (log)")}, "type": "log"},
        "yaxis": {"title": {"text": "u = ψ(i − j) / ψ(max(i, L))"}, "range": [0, 1.02]},
        "shapes": [
            {
                "type": "line", "x0": max(threshold, 1), "x1": max(threshold, 1), "y0": 0, "y1": 1, "yref": "paper",
                "line": {"dash": "dot", "color": "#555", "width": 1},
            }
        ],
    }  # fmt: skip
    figure = finish(
        {"data": data, "layout": layout},
        title=_("Progressive interpolation: one distance means less as the query moves on"),
        subtitle=subtitle_lines(
            _("ψ(x) = log(|c·x| + 1), c = {c}; below L = {L} (dotted) the normaliser is fixed at ψ(L)").format(
                c=number(c), L=number(threshold)
            ),
            _("past L it is ψ(i): the same distance shrinks towards 0, so every length maps onto [0, 1]"),
        ),
        lecture=lecture,
    )
    return Chart.of(figure, lambda: columns_csv(rows))


def normalized(*, c: float, threshold: float, seq_len: int, lecture: bool = False) -> Chart:
    """The heatmap of ``u[i, j]`` on at most ``GRID_POINTS`` strided positions per axis; future keys masked."""
    pos = display_positions(seq_len, GRID_POINTS)
    u = fire_normalized_distance(pos, pos, c=c, threshold=threshold).numpy()
    future = (pos[None, :] > pos[:, None]).numpy()
    figure = heatmap(
        np.where(future, np.nan, u).astype(np.float32),
        q_pos=pos.numpy(),
        k_pos=pos.numpy(),
        title=_("What the MLP sees: u[i, j], a normalised distance in [0, 1]"),
        subtitle=_("c = {c}, L = {L}; each row is divided by ψ(max(i, L))").format(c=number(c), L=number(threshold)),
        value_name="u",
        q_len=seq_len,
        k_len=seq_len,
        lecture=lecture,
        zmin=0.0,
        zmax=1.0,
        mask=future,
        mask_label=_("future keys j > i (masked)"),
    )
    return Chart.of(figure, lambda: matrix_csv(u, pos.numpy(), pos.numpy()))


def mlp(*, heads: int, seed: int, lecture: bool = False) -> Chart:
    """Each head's bias as a function of ``u`` alone: the MLP ``Linear(1, 32) -> ReLU -> Linear(32, heads)``."""
    lk = look(lecture)
    weights = fire_mlp(heads, generator=torch.Generator().manual_seed(seed))
    u = torch.linspace(0, 1, MLP_POINTS, dtype=torch.float64)
    bias = fire_bias(u[None, :], weights)[:, 0, :].numpy()  # (heads, points)
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": u.numpy().astype(np.float32),
            "y": bias[h].astype(np.float32),
            "name": _("head {h}").format(h=h + 1),
            "line": {"width": lk.line, "color": _color(h, heads)},
            "hovertemplate": _("u = %{x:.2f}<br>bias %{y:.3g}") + f"<extra>{_('head {h}').format(h=h + 1)}</extra>",
        }
        for h in range(heads)
    ]
    layout = {
        "xaxis": {"title": {"text": _("normalised distance u")}},
        "yaxis": {"title": {"text": _("bias b_h(u)")}},
    }
    figure = finish(
        {"data": data, "layout": layout},
        title=_("The learned function: bias against u, one line per head"),
        subtitle=subtitle_lines(
            _("illustrative weights, drawn as torch.nn.Linear starts (seed {seed}); 32 hidden units").format(seed=seed),
            _("training shapes these lines; the input u is what makes them work at any length"),
        ),
        lecture=lecture,
    )
    columns = {"u": u.numpy(), **{f"head {h + 1}": bias[h] for h in range(heads)}}
    return Chart.of(figure, lambda: columns_csv(columns))


def compare_row(*, seq_len: int, dim: int, base: float, causal: bool) -> tuple[str, str, int, str]:
    """FIRE's row of the compare page's properties table: an MLP of 8 heads, ``c`` and ``L``."""
    stops = _("never exactly: ψ(i − j)/ψ(max(i, {context})) puts far distances close together").format(
        context=f"{INIT_L:g}"
    )
    return (_("relative, bias on the logits (an MLP)"), _("learned"), fire_parameter_count(COMPARE_HEADS), stops)

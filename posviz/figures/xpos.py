"""The xPos page's figures: one function of plain arguments per figure, each returning a :class:`Chart`.

Specs are written as plain data (no Plotly objects): traces and layout dicts, arrays as float32.
"""

from __future__ import annotations

import numpy as np
import torch

from posviz.encodings.attention import toy_normal
from posviz.encodings.positions import curve_positions, display_positions
from posviz.encodings.xpos import xpos_decay, xpos_fade_distance, xpos_score_by_distance, xpos_zeta
from posviz.figures.chart import Chart
from posviz.figures.csv import columns_csv
from posviz.figures.layout import finish, look, number, subtitle_lines
from posviz.i18n import _

PAIRS_SHOWN = 6  # decay curves: the fastest pair, the slowest, and evenly between
DENSE, POINTS = 128, 400  # every distance up to 128, then log-spaced
ROPE_COLOR, XPOS_COLOR = "#9467bd", "#2ca02c"


def distances(seq_len: int) -> torch.Tensor:
    """(r,) int64: the distances drawn, every one up to 128, then log-spaced up to ``seq_len - 1``."""
    return curve_positions(max(seq_len - 1, 1), dense=DENSE, points=POINTS)


def shown_pairs(dim: int) -> np.ndarray:
    """(p,) int64: at most ``PAIRS_SHOWN`` pairs, always the fastest (0) and the slowest."""
    return display_positions(dim // 2, PAIRS_SHOWN).numpy()


def _pair_color(i: int, n: int) -> str:
    return f"hsl({int(240 * i / max(n - 1, 1))}, 70%, 42%)"


def decay(*, dim: int, scale_base: float, seq_len: int, lecture: bool = False) -> Chart:
    """Each shown pair's factor ``zeta_k ** (r / scale_base)`` against the distance ``r`` (log axis)."""
    lk = look(lecture)
    r = distances(seq_len)
    pairs = shown_pairs(dim)
    factors = xpos_decay(r, dim, scale_base=scale_base).numpy()[:, pairs]  # (r, p)
    zeta = xpos_zeta(dim).numpy()
    x = r.numpy().astype(np.int32)
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": x[1:],
            "y": factors[1:, i].astype(np.float32),
            "name": _("pair {p}: ζ = {zeta}").format(p=p, zeta=number(zeta[p], 3)),
            "line": {"width": lk.line, "color": _pair_color(i, len(pairs))},
            "hovertemplate": _("distance n − m = %{x}<br>factor %{y:.4g}")
            + f"<extra>{_('pair {p}').format(p=p)}</extra>",
        }
        for i, p in enumerate(pairs.tolist())
    ]
    layout = {
        "xaxis": {"title": {"text": _("distance n − m (log)")}, "type": "log"},
        "yaxis": {"title": {"text": _("factor on the pair's score")}, "range": [0, 1.05]},
    }
    figure = finish(
        {"data": data, "layout": layout},
        title=_("xPos decay per pair: ζ_k^((n − m)/{scale_base})").format(scale_base=number(scale_base)),
        subtitle=subtitle_lines(
            _("ζ_k = (2k + 0.4·d)/(1.4·d) from {first} (pair 0, fastest) to {last}").format(
                first=number(zeta[0], 3), last=number(zeta[-1], 3)
            ),
            _("the fast pairs, whose rotations already average out at a distance, are damped most"),
        ),
        lecture=lecture,
    )
    columns = {"distance": r.numpy(), **{f"pair {p}": factors[:, i] for i, p in enumerate(pairs.tolist())}}
    return Chart.of(figure, lambda: columns_csv(columns))


def scores(*, dim: int, scale_base: float, seq_len: int, seed: int, lecture: bool = False) -> Chart:
    """One query and one key (from ``seed``) scored at every distance, RoPE alone and xPos."""
    lk = look(lecture)
    g = torch.Generator().manual_seed(seed)
    q, k = toy_normal(dim, generator=g), toy_normal(dim, generator=g)
    r = distances(seq_len)
    rope, xpos = (s.numpy() for s in xpos_score_by_distance(q, k, r, scale_base=scale_base))
    x = r.numpy().astype(np.int32)
    lines = ((rope, _("RoPE: q·R_(n−m) k"), ROPE_COLOR), (xpos, _("xPos: the same, each pair decayed"), XPOS_COLOR))
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": x,
            "y": y.astype(np.float32),
            "name": name,
            "line": {"width": lk.line, "color": color},
            "hovertemplate": _("distance %{x}<br>score %{y:.4g}") + "<extra>" + name + "</extra>",
        }
        for y, name, color in lines
    ]
    layout = {
        "xaxis": {"title": {"text": _("distance n − m (log)")}, "type": "log"},
        "yaxis": {"title": {"text": _("score q_n · k_m")}, "zeroline": True},
    }
    figure = finish(
        {"data": data, "layout": layout},
        title=_("The score of one query and one key against their distance"),
        subtitle=subtitle_lines(
            _("random q and k (seed {seed}), d = {dim}; RoPE's score keeps oscillating at any distance").format(
                seed=seed, dim=dim
            ),
            _("xPos damps it: far keys score closer to 0, so attention favours the near ones"),
        ),
        lecture=lecture,
    )
    return Chart.of(figure, lambda: columns_csv({"distance": r.numpy(), "RoPE score": rope, "xPos score": xpos}))


def compare_row(*, seq_len: int, dim: int, base: float, causal: bool) -> tuple[str, str, int, str]:
    """xPos's row of the compare page's properties table (base 10000 and scale_base 512 whatever ``base``)."""
    fade = xpos_fade_distance(dim)
    stops = _("no limit in the rotation; the fastest pair's decay reaches 1/e at distance {distance}").format(
        distance=f"{fade:,.0f}"
    )
    return (_("relative, rotation of q and k with a decay"), _("fixed"), 0, stops)

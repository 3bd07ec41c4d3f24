"""Figures of V2PE: image tokens that advance the position by a fraction.

``ids`` and ``context`` are what the /vision page (and a notebook) calls, each a function of plain
arguments returning a :class:`Chart`; the numbers come from :mod:`posviz.encodings.v2pe`.
"""

from __future__ import annotations

import numpy as np

from posviz.encodings.v2pe import TOKENS_PER_TILE, v2pe_context_used, v2pe_delta, v2pe_position_ids
from posviz.figures.chart import Chart
from posviz.figures.csv import columns_csv
from posviz.figures.data import compact
from posviz.figures.layout import finish, subtitle_lines
from posviz.i18n import _

TEXT_BEFORE, TEXT_AFTER = 8, 8  # the short text around the image
RUNS = (("text", TEXT_BEFORE), ("image", TOKENS_PER_TILE), ("text", TEXT_AFTER))  # one 448 x 448 tile
MAX_TILES = 64  # the long image of the cost figure: up to 64 tiles of 256 tokens
ORDINARY = "#7f7f7f"
V2PE = "#9467bd"


def _delta_text(stride: int) -> str:
    return f"δ = {stride}/{TOKENS_PER_TILE}" if stride < TOKENS_PER_TILE else "δ = 1"


def ids(*, stride: int, lecture: bool = False) -> Chart:
    """Position id of every token of text, one tile's image, text: V2PE at ``stride`` against ordinary ids."""
    ordinary = v2pe_position_ids(RUNS, delta=1.0).numpy()  # (L,)
    fractional = v2pe_position_ids(RUNS, delta=v2pe_delta(stride)).numpy()  # (L,)
    token = np.arange(len(ordinary))
    kind = np.array(["text"] * TEXT_BEFORE + ["image"] * TOKENS_PER_TILE + ["text"] * TEXT_AFTER)
    image = dict(type="rect", xref="x", yref="paper", x0=TEXT_BEFORE - 0.5, x1=TEXT_BEFORE + TOKENS_PER_TILE - 0.5,
                 y0=0, y1=1, fillcolor="rgba(31,119,180,0.12)", line=dict(width=0), layer="below")  # fmt: skip
    data = [
        dict(type="scatter", x=compact(token), y=ordinary.astype(np.float32), mode="lines",
             name=_("ordinary ids (δ = 1)"), line=dict(color=ORDINARY, width=2, dash="dash"),
             hovertemplate=_("token %{x}<br>position %{y}") + "<extra>" + _("ordinary") + "</extra>"),
        dict(type="scatter", x=compact(token), y=fractional.astype(np.float32), mode="lines+markers",
             name=f"V2PE, {_delta_text(stride)}", line=dict(color=V2PE, width=2), marker=dict(size=4),
             hovertemplate=_("token %{x}<br>position %{y:.4f}") + "<extra>V2PE</extra>"),
    ]  # fmt: skip
    resume = fractional[TEXT_BEFORE + TOKENS_PER_TILE]
    last = fractional[TEXT_BEFORE + TOKENS_PER_TILE - 1]
    taken = last - ordinary[TEXT_BEFORE - 1]  # positions between the text before and the image's last token
    layout = dict(
        shapes=[image],
        xaxis=dict(title=dict(text=_("token (text, one tile's 256 image tokens, text)")), zeroline=False),
        yaxis=dict(title=dict(text=_("position id")), rangemode="tozero"),
    )
    figure = finish(
        dict(data=data, layout=layout),
        title=_("V2PE: image tokens step by {delta}").format(delta=_delta_text(stride)),
        subtitle=subtitle_lines(
            _(
                "Shaded: the image; its last token sits at {last}, the text after it resumes at ⌈{last}⌉ + 1 = {resume}"
            ).format(last=f"{last:g}", resume=f"{resume:g}"),
            _("Ordinary ids give the image {tokens} positions; V2PE gives it {taken}").format(
                tokens=TOKENS_PER_TILE, taken=f"{taken:g}"
            ),
        ),
        lecture=lecture,
    )
    columns = {"token": token, "kind": kind, "ordinary id": ordinary, "V2PE id": fractional}
    return Chart.of(figure, lambda: columns_csv(columns))


def context(*, stride: int, lecture: bool = False) -> Chart:
    """Positions a long image of 1 to ``MAX_TILES`` tiles takes from the context, with V2PE at ``stride``
    and without it."""
    tiles = np.arange(1, MAX_TILES + 1)
    tokens = tiles * TOKENS_PER_TILE
    delta = v2pe_delta(stride)
    used = np.array([v2pe_context_used(int(n), delta=delta) for n in tokens])
    plain = np.array([v2pe_context_used(int(n), delta=1.0) for n in tokens])
    data = [
        dict(type="scatter", x=compact(tiles), y=compact(plain), mode="lines", name=_("ordinary ids: one per token"),
             line=dict(color=ORDINARY, width=2, dash="dash"),
             hovertemplate=_("%{x} tiles<br>%{y:,} positions") + "<extra>" + _("ordinary") + "</extra>"),
        dict(type="scatter", x=compact(tiles), y=compact(used), mode="lines+markers",
             name=f"V2PE, {_delta_text(stride)}", line=dict(color=V2PE, width=2), marker=dict(size=5),
             hovertemplate=_("%{x} tiles<br>%{y:,} positions") + "<extra>V2PE</extra>"),
    ]  # fmt: skip
    layout = dict(
        xaxis=dict(title=dict(text=_("tiles of the image (256 tokens each)")), zeroline=False),
        yaxis=dict(title=dict(text=_("positions the image takes")), type="log"),
    )
    figure = finish(
        dict(data=data, layout=layout),
        title=_("What a long image costs the context"),
        subtitle=subtitle_lines(
            _(
                "{tiles} tiles are {tokens} tokens: {plain} positions with ordinary ids, {used} with V2PE at {delta}"
            ).format(
                tiles=MAX_TILES,
                tokens=f"{MAX_TILES * TOKENS_PER_TILE:,}",
                plain=f"{plain[-1]:,}",
                used=f"{used[-1]:,}",
                delta=_delta_text(stride),
            ),
            _("The tokens still all sit in the sequence (memory and compute); V2PE saves positions, not tokens"),
        ),
        lecture=lecture,
    )
    columns = {"tiles": tiles, "image tokens": tokens, "positions, ordinary": plain, "positions, V2PE": used}
    return Chart.of(figure, lambda: columns_csv(columns))

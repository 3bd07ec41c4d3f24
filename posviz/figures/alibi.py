"""The ALiBi page's figures: one function of plain arguments per figure, each returning a :class:`Chart`.

``slopes``, ``interleave``, ``bias_grid`` and ``receptive_field`` are what the page (and a notebook)
calls; the ``*_figure`` builders below them turn arrays into specs. No view builds the whole
``(heads, seq_len, seq_len)`` bias: only the heads and positions drawn.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import torch

from posviz.encodings.alibi import (
    alibi_bias,
    alibi_distance_weights,
    alibi_reach,
    alibi_slope_sources,
    alibi_slopes,
)
from posviz.encodings.positions import curve_positions, display_positions
from posviz.figures.axes import Axes, Window, axes
from posviz.figures.chart import Chart
from posviz.figures.common import as_array, compact, finish, heatmap_grid, look, number, subtitle_lines
from posviz.figures.csv import columns_csv
from posviz.i18n import _

GRID_HEADS = 16  # panels of the bias grid
GRID_POINTS = 40  # per axis of each panel: a zoom window of 40 positions or fewer is drawn cell by cell
CURVE_HEADS = 12  # lines of the receptive-field figure
CURVE_POINTS = 400  # log-spaced distances of the receptive field past the dense ones

BASE_COLOR = "#1f77b4"  # slopes of the closest power of two
EXTRA_COLOR = "#d62728"  # slopes borrowed from twice that many heads
GREY = "#b0b0b0"


def _log2_text(m: float) -> str:
    return f"2^{number(np.log2(m), 3)}"


def slopes_figure(slopes, *, closest: int, lecture: bool = False) -> go.Figure:
    """Each head's slope on a log axis; borrowed slopes (count not a power of two) in another colour."""
    lk = look(lecture)
    m = as_array(slopes).astype(np.float64)
    heads = np.arange(1, len(m) + 1)
    traces = []  # plain data: built once, by finish
    for sel, name, color in (
        (heads <= closest, _("slopes of {n} heads: 2^(−8h/{n})").format(n=closest), BASE_COLOR),
        (heads > closest, _("every other slope of {n} heads").format(n=2 * closest), EXTRA_COLOR),
    ):
        if not sel.any():
            continue
        traces.append(
            dict(
                type="scatter",
                x=compact(heads[sel]),
                y=m[sel].astype(np.float32),
                mode="markers+lines" if len(m) <= 64 else "markers",
                name=name,
                marker=dict(size=lk.line * 3 + 2, color=color),
                line=dict(color=color, width=1),
                customdata=[_log2_text(v) for v in m[sel]],
                hovertemplate=_("head %{x}<br>m = %{y:.6g} = %{customdata}") + "<extra></extra>",
            )
        )
    layout = dict(
        xaxis=dict(title=dict(text=_("head h"))),
        yaxis=dict(title=dict(text=_("slope m (log)")), type="log", exponentformat="power"),
    )
    return finish(
        dict(data=traces, layout=layout),
        title=_("Slopes of {heads} heads: a geometric sequence").format(heads=len(m)),
        subtitle=_("steepest m = {steep} (looks a few tokens back), flattest m = {flat} (sees far)").format(
            steep=number(m.max()), flat=number(m.min())
        ),
        lecture=lecture,
        height=int(lk.height * 0.8),
    )


def interleave_figure(base, doubled, extra, *, heads: int, lecture: bool = False) -> go.Figure:
    """How a count that is not a power of two takes every other slope of the next power."""
    lk = look(lecture)
    base, doubled, extra = (as_array(x).astype(np.float64) for x in (base, doubled, extra))
    p = len(base)
    rows = [_("{n} heads").format(n=n) for n in (p, 2 * p, heads)]
    traces = []  # plain data: built once, by finish
    taken = np.zeros(len(doubled), dtype=bool)
    taken[0::2][: len(extra)] = True
    final = np.concatenate([base, extra])
    kinds = [
        (rows[0], base, [BASE_COLOR] * p, [_("head {h}").format(h=h + 1) for h in range(p)]),
        (
            rows[1],
            doubled,
            [EXTRA_COLOR if t else GREY for t in taken],
            [
                (_("slope {i} of {n} (taken)") if t else _("slope {i} of {n}")).format(i=h + 1, n=2 * p)
                for h, t in enumerate(taken)
            ],
        ),
        (
            rows[2],
            final,
            [BASE_COLOR] * p + [EXTRA_COLOR] * len(extra),
            [_("head {h}").format(h=h + 1) for h in range(len(final))],
        ),
    ]
    for row, values, colors, labels in kinds:
        traces.append(
            dict(
                type="scatter",
                x=values.astype(np.float32),
                y=[row] * len(values),
                mode="markers",
                marker=dict(size=lk.line * 4 + 4, color=colors, line=dict(color="#222", width=1)),
                name=row,
                showlegend=False,
                text=labels,
                hovertemplate="%{text}<br>m = %{x:.6g}<extra>" + row + "</extra>",
            )
        )
    layout = dict(
        xaxis=dict(title=dict(text=_("slope m (log)")), type="log", exponentformat="power"),
        yaxis=dict(title=dict(text=""), categoryorder="array", categoryarray=rows[::-1]),
    )
    if heads == p:
        note = _("{heads} is a power of two: the slopes are 2^(−8h/{heads}) and nothing is borrowed").format(
            heads=heads
        )
    else:
        note = _(
            "{heads} is not a power of two: the {p} slopes of {p} heads, then {extra} of the {doubled} slopes "
            "of {doubled} heads (red: every other one, the first {extra})"
        ).format(heads=heads, p=p, extra=len(extra), doubled=2 * p)
    return finish(
        dict(data=traces, layout=layout),
        title=_("Where each slope comes from (get_slopes)"),
        subtitle=subtitle_lines(note, _("the borrowed slopes fall halfway (in log) between their neighbours")),
        lecture=lecture,
        height=int(lk.height * 0.7),
    )


def bias_grid_figure(
    bias, *, heads_shown, slopes, q_pos, k_pos, seq_len: int, causal: bool, heads: int, lecture: bool = False
) -> go.Figure:
    """The bias of the shown heads as small multiples on one shared, one-sided, logarithmic colour scale.

    Every bias is <= 0, and the heads' slopes span two orders of magnitude or more:
    on a linear scale the flat heads would be blank. The colour is ``log10 |bias|``
    (the bar is labelled in bias values); future keys, masked when causal, have
    their own colour and a legend entry.

    Args:
        bias: (heads shown, len(q_pos), len(k_pos)) bias on the shown positions.
        q_pos, k_pos: the query positions ``i`` and key positions ``j`` drawn: a strided sample of
            ``0 .. seq_len - 1`` or a zoom window (the subtitle states which, and the stride).
    """
    z = as_array(bias).astype(np.float32)
    q, k = as_array(q_pos).astype(np.int64), as_array(k_pos).astype(np.int64)
    future = (k[None, :] > q[:, None]) if causal else None  # (q, k)
    m = as_array(slopes)
    titles = [
        _("head {h}: m = {m}").format(h=int(h) + 1, m=_log2_text(float(m[i])))
        for i, h in enumerate(as_array(heads_shown))
    ]
    shown = (
        _("every head")
        if len(titles) == heads
        else _("{shown} of {heads} heads, evenly spread").format(shown=len(titles), heads=heads)
    )
    if future is not None and future.all():
        shown += _("; every key in this window lies after every query: all masked")
    return heatmap_grid(
        z,
        q_pos=q,
        k_pos=k,
        titles=titles,
        title=_("The bias −m (i − j) per head") if causal else _("The symmetric bias −m |i − j| per head"),
        subtitle=subtitle_lines(
            shown + (_("; future keys masked") if causal else _("; every key visible")),
            _(
                "one colour scale for all heads, logarithmic in |bias|: steep heads turn dark a few tokens from "
                "the diagonal, flat heads only far from it"
            ),
        ),
        value_name=_("bias"),
        q_len=seq_len,
        k_len=seq_len,
        lecture=lecture,
        mask=future,
        mask_label=_("future keys j > i: masked (no bias, no attention)"),
        log_scale=True,
    )


def receptive_field_figure(
    distances, weights, reach, *, heads_shown, slopes, seq_len: int, lecture: bool = False
) -> go.Figure:
    """Attention over distance of a query with no content preference, one line per shown head."""
    lk = look(lecture)
    d = as_array(distances).astype(np.int64)
    w = as_array(weights).astype(np.float64)
    reach = as_array(reach).astype(np.int64)
    m = as_array(slopes).astype(np.float64)
    traces = []  # plain data: built once, by finish
    keep = d > 0
    n = len(as_array(heads_shown))
    for i, h in enumerate(as_array(heads_shown).tolist()):
        color = f"hsl({int(240 * i / max(n - 1, 1))}, 70%, 45%)"
        name = _("head {h}, m = {m}: 90% within {reach}").format(h=h + 1, m=number(m[i], 3), reach=reach[i])
        traces.append(
            dict(
                type="scatter",
                x=compact(d[keep]),
                y=w[i][keep].astype(np.float32),
                mode="lines",
                line=dict(width=lk.line, color=color),
                name=name,
                hovertemplate=_("distance i − j = %{x}<br>weight = %{y:.3g}")
                + f"<extra>{_('head {h}').format(h=h + 1)}</extra>",
            )
        )
    traces.append(
        dict(
            type="scatter",
            x=compact(np.maximum(reach, 1)),
            y=np.full(len(reach), 1e-6, dtype=np.float32),
            mode="markers",
            marker=dict(symbol="triangle-up", size=lk.line * 4 + 4, color="#222"),
            name=_("90% of the attention lies left of the marker"),
            customdata=compact(reach),
            hovertemplate=_("90% of the weight within distance %{customdata}") + "<extra></extra>",
        )
    )
    layout = dict(
        xaxis=dict(title=dict(text=_("distance i − j (log)")), type="log"),
        yaxis=dict(title=dict(text=_("attention weight (log)")), type="log", exponentformat="power", range=[-6.2, 0.1]),
    )
    return finish(
        dict(data=traces, layout=layout),
        title=_("Receptive field: the last of {seq_len} queries, equal content scores").format(seq_len=seq_len),
        subtitle=subtitle_lines(
            _("softmax(−m d) over d = 0 … L − 1: geometric weights e^(−m d); about ln 10 / m tokens hold 90%"),
            _("steep heads look at the last few tokens, flat heads average over the whole context"),
        ),
        lecture=lecture,
        height=int(lk.height * 1.1),
    )


# --- the figures, by plain arguments ---------------------------------------------------------------


def shown_heads(heads: int, count: int) -> np.ndarray:
    """(h,) int64: at most ``count`` heads, evenly spread, always the steepest (0) and the flattest."""
    return display_positions(heads, count).numpy()


def _slopes_csv(heads: int) -> str:
    return columns_csv({"head": range(1, heads + 1), "slope": alibi_slopes(heads).numpy()})


def slopes(*, heads: int, lecture: bool = False) -> Chart:
    """Each of ``heads`` heads' slope ``m_h`` on a log axis."""
    closest = alibi_slope_sources(heads).closest
    return Chart.of(slopes_figure(alibi_slopes(heads), closest=closest, lecture=lecture), lambda: _slopes_csv(heads))


def interleave(*, heads: int, lecture: bool = False) -> Chart:
    """Where each slope comes from when ``heads`` is not a power of two (``get_slopes``)."""
    src = alibi_slope_sources(heads)
    figure = interleave_figure(src.base, src.doubled, src.extra, heads=heads, lecture=lecture)
    return Chart.of(figure, lambda: _slopes_csv(heads))


def bias_axes(*, seq_len: int, window: int = 0, q_start: int = 0, k_start: int = 0) -> Axes:
    """The queries and keys of the bias grid: at most ``GRID_POINTS`` per axis, inside the zoom window if any."""
    return axes(seq_len, seq_len, "start", GRID_POINTS, window=Window(q_start, k_start, window))


def bias_grid(
    *,
    heads: int,
    seq_len: int,
    causal: bool,
    window: int = 0,
    q_start: int = 0,
    k_start: int = 0,
    lecture: bool = False,
) -> Chart:
    """The bias of the shown heads (at most ``GRID_HEADS``) on the shown positions: ``(h, n_q, n_k)``."""
    ax = bias_axes(seq_len=seq_len, window=window, q_start=q_start, k_start=k_start)
    hs = shown_heads(heads, GRID_HEADS)
    bias = alibi_bias(torch.as_tensor(ax.q_pos), torch.as_tensor(ax.k_pos), heads, causal=causal)[hs].numpy()
    m = alibi_slopes(heads)[hs].numpy()
    figure = bias_grid_figure(
        bias, heads_shown=hs, slopes=m, q_pos=ax.q_pos, k_pos=ax.k_pos, seq_len=seq_len, causal=causal, heads=heads,
        lecture=lecture,
    )  # fmt: skip

    def csv() -> str:  # one row per (head, query, key) shown
        n_q, n_k = len(ax.q_pos), len(ax.k_pos)
        return columns_csv(
            {
                "head": np.repeat(hs + 1, n_q * n_k),
                "query i": np.tile(np.repeat(ax.q_pos, n_k), len(hs)),
                "key j": np.tile(ax.k_pos, len(hs) * n_q),
                "bias": bias.ravel(),
            }
        )

    return Chart.of(figure, csv)


def receptive_distances(seq_len: int) -> torch.Tensor:
    """(r,) int64: the distances the last of ``seq_len`` queries sees, dense then log-spaced."""
    return curve_positions(seq_len - 1, points=CURVE_POINTS)


def receptive_field(*, heads: int, seq_len: int, lecture: bool = False) -> Chart:
    """Attention against distance of the last query with equal content scores, one line per shown head."""
    all_slopes = alibi_slopes(heads)
    hs = shown_heads(heads, CURVE_HEADS)
    d = receptive_distances(seq_len)
    weights = alibi_distance_weights(all_slopes[hs], d, seq_len).numpy()
    reach = alibi_reach(all_slopes, seq_len)[hs].numpy()
    figure = receptive_field_figure(
        d.numpy(), weights, reach, heads_shown=hs, slopes=all_slopes[hs].numpy(), seq_len=seq_len, lecture=lecture
    )
    columns = {"distance": d.numpy(), **{f"head {int(h) + 1}": weights[i] for i, h in enumerate(hs)}}
    return Chart.of(figure, lambda: columns_csv(columns))


def slope_table(*, heads: int, seq_len: int) -> pd.DataFrame:
    """Every head: its slope (as the legend writes it), log2, 1/m, and the distance holding 90% of its attention.

    The column headers are in the run's language (a table to read, not a CSV)."""
    m = alibi_slopes(heads).numpy()
    return pd.DataFrame(
        {
            _("head"): np.arange(1, heads + 1),
            _("slope m"): [number(v, 3) for v in m.tolist()],  # as the legend writes it: 0.0312, not 0.0313
            "log2 m": np.log2(m),
            _("1/m (tokens per 1/e)"): 1 / m,
            _("90% of attention within"): alibi_reach(alibi_slopes(heads), seq_len).numpy(),
        }
    )

"""Figures for the ALiBi page."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz.figures.common import as_array, compact, finish, heatmap_grid, look, number, subtitle_lines

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
    fig = go.Figure()
    for sel, name, color in (
        (heads <= closest, f"slopes of {closest} heads: 2^(−8h/{closest})", BASE_COLOR),
        (heads > closest, f"every other slope of {2 * closest} heads", EXTRA_COLOR),
    ):
        if not sel.any():
            continue
        fig.add_trace(
            go.Scatter(
                x=compact(heads[sel]),
                y=m[sel].astype(np.float32),
                mode="markers+lines" if len(m) <= 64 else "markers",
                name=name,
                marker=dict(size=lk.line * 3 + 2, color=color),
                line=dict(color=color, width=1),
                customdata=[_log2_text(v) for v in m[sel]],
                hovertemplate="head %{x}<br>m = %{y:.6g} = %{customdata}<extra></extra>",
            )
        )
    fig.update_xaxes(title_text="head h")
    fig.update_yaxes(title_text="slope m (log)", type="log", exponentformat="power")
    return finish(
        fig,
        title=f"Slopes of {len(m)} heads: a geometric sequence",
        subtitle=f"steepest m = {number(m.max())} (looks a few tokens back), flattest m = {number(m.min())} (sees far)",
        lecture=lecture,
        height=int(lk.height * 0.8),
    )


def interleave_figure(base, doubled, extra, *, heads: int, lecture: bool = False) -> go.Figure:
    """How a count that is not a power of two takes every other slope of the next power."""
    lk = look(lecture)
    base, doubled, extra = (as_array(x).astype(np.float64) for x in (base, doubled, extra))
    p = len(base)
    rows = [f"{p} heads", f"{2 * p} heads", f"{heads} heads"]
    fig = go.Figure()
    taken = np.zeros(len(doubled), dtype=bool)
    taken[0::2][: len(extra)] = True
    final = np.concatenate([base, extra])
    kinds = [
        (rows[0], base, [BASE_COLOR] * p, [f"head {h + 1}" for h in range(p)]),
        (
            rows[1],
            doubled,
            [EXTRA_COLOR if t else GREY for t in taken],
            [f"slope {h + 1} of {2 * p}" + (" (taken)" if t else "") for h, t in enumerate(taken)],
        ),
        (
            rows[2],
            final,
            [BASE_COLOR] * p + [EXTRA_COLOR] * len(extra),
            [f"head {h + 1}" for h in range(len(final))],
        ),
    ]
    for row, values, colors, labels in kinds:
        fig.add_trace(
            go.Scatter(
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
    fig.update_xaxes(title_text="slope m (log)", type="log", exponentformat="power")
    fig.update_yaxes(title_text="", categoryorder="array", categoryarray=rows[::-1])
    if heads == p:
        note = f"{heads} is a power of two: the slopes are 2^(−8h/{heads}) and nothing is borrowed"
    else:
        note = (
            f"{heads} is not a power of two: the {p} slopes of {p} heads, then {len(extra)} of the {2 * p} slopes "
            f"of {2 * p} heads (red: every other one, the first {len(extra)})"
        )
    return finish(
        fig,
        title="Where each slope comes from (get_slopes)",
        subtitle=subtitle_lines(note, "the borrowed slopes fall halfway (in log) between their neighbours"),
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
    titles = [f"head {int(h) + 1}: m = {_log2_text(float(m[i]))}" for i, h in enumerate(as_array(heads_shown))]
    shown = "every head" if len(titles) == heads else f"{len(titles)} of {heads} heads, evenly spread"
    if future is not None and future.all():
        shown += "; every key in this window lies after every query: all masked"
    return heatmap_grid(
        z,
        q_pos=q,
        k_pos=k,
        titles=titles,
        title="The bias −m (i − j) per head" if causal else "The symmetric bias −m |i − j| per head",
        subtitle=subtitle_lines(
            shown + ("; future keys masked" if causal else "; every key visible"),
            "one colour scale for all heads, logarithmic in |bias|: steep heads turn dark a few tokens from "
            "the diagonal, flat heads only far from it",
        ),
        value_name="bias",
        q_len=seq_len,
        k_len=seq_len,
        lecture=lecture,
        mask=future,
        mask_label="future keys j > i: masked (no bias, no attention)",
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
    fig = go.Figure()
    keep = d > 0
    n = len(as_array(heads_shown))
    for i, h in enumerate(as_array(heads_shown).tolist()):
        color = f"hsl({int(240 * i / max(n - 1, 1))}, 70%, 45%)"
        name = f"head {h + 1}, m = {number(m[i], 3)}: 90% within {reach[i]}"
        fig.add_trace(
            go.Scatter(
                x=compact(d[keep]),
                y=w[i][keep].astype(np.float32),
                mode="lines",
                line=dict(width=lk.line, color=color),
                name=name,
                hovertemplate="distance i − j = %{x}<br>weight = %{y:.3g}<extra>" + f"head {h + 1}" + "</extra>",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=compact(np.maximum(reach, 1)),
            y=np.full(len(reach), 1e-6, dtype=np.float32),
            mode="markers",
            marker=dict(symbol="triangle-up", size=lk.line * 4 + 4, color="#222"),
            name="90% of the attention lies left of the marker",
            customdata=compact(reach),
            hovertemplate="90% of the weight within distance %{customdata}<extra></extra>",
        )
    )
    fig.update_xaxes(title_text="distance i − j (log)", type="log")
    fig.update_yaxes(title_text="attention weight (log)", type="log", exponentformat="power", range=[-6.2, 0.1])
    return finish(
        fig,
        title=f"Receptive field: the last of {seq_len} queries, equal content scores",
        subtitle=subtitle_lines(
            "softmax(−m d) over d = 0 … L − 1: geometric weights e^(−m d); about ln 10 / m tokens hold 90%",
            "steep heads look at the last few tokens, flat heads average over the whole context",
        ),
        lecture=lecture,
        height=int(lk.height * 1.1),
    )

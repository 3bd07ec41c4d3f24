"""Figures for the CoPE explorer: gates, contextual positions, interpolation, attention, the mask pitfall.

Token text is user text: it only ever reaches a figure escaped (``&lt;``),
and Plotly shows the escaped characters literally.
"""

from __future__ import annotations

import html

import numpy as np
import plotly.graph_objects as go

from posviz.figures.common import as_array, compact, finish, heatmap, heatmap_grid, look, number, subtitle_lines

TOKEN_TICKS = 40  # label the axes with the tokens up to this many shown positions
TOKEN_CHARS = 12  # characters of a token kept in a tick label or hover


def token_label(token: str) -> str:
    """A token as Plotly may show it: shortened, and escaped so that no text becomes markup."""
    short = token if len(token) <= TOKEN_CHARS else token[: TOKEN_CHARS - 1] + "…"
    return html.escape(short, quote=False)


def _token_ticks(fig: go.Figure, q_pos, k_pos, tokens: list[str] | None) -> None:
    """Tick labels 'position token' on both axes when few enough positions are shown."""
    if tokens is None:
        return
    for update, pos in ((fig.update_xaxes, as_array(k_pos)), (fig.update_yaxes, as_array(q_pos))):
        if len(pos) <= TOKEN_TICKS:
            update(tickvals=compact(pos), ticktext=[f"{p} {token_label(tokens[int(p)])}" for p in pos], tickangle=0)
    if len(as_array(k_pos)) <= TOKEN_TICKS:
        fig.update_xaxes(tickangle=-60)
    rows = len(as_array(q_pos))
    if rows <= TOKEN_TICKS:  # one legible line per token label
        fig.update_layout(height=max(fig.layout.height or 0, 20 * rows + 260))


def gates_figure(
    gates, future, *, q_pos, k_pos, n: int, tokens: list[str] | None, subtitle: str, lecture: bool = False
) -> go.Figure:
    """The gate matrix ``g_ij`` on a fixed 0 .. 1 scale; future keys drawn as masked."""
    fig = heatmap(
        gates,
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=n,
        k_len=n,
        title="Gates g_ij: which keys count for query i",
        value_name="gate",
        zmin=0.0,
        zmax=1.0,
        subtitle=subtitle,
        mask=future,
        mask_label="future keys j > i, masked before the gates: exactly 0",
        lecture=lecture,
    )
    _token_ticks(fig, q_pos, k_pos, tokens)
    return fig


def positions_figure(
    positions,
    future,
    clamped,
    *,
    npos_max: int,
    q_pos,
    k_pos,
    n: int,
    tokens: list[str] | None,
    lecture: bool = False,
) -> go.Figure:
    """Contextual positions ``p_ij`` on ``0`` to the largest shown position; clamped cells carry a cross."""
    clamped = as_array(clamped).astype(bool)
    count = int(clamped.sum())
    fig = heatmap(
        positions,
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=n,
        k_len=n,
        title="Positions p_ij = Σ_{t=j..i} g_it (reverse cumulative sum)",
        value_name="p_ij",
        zmin=0.0,
        zmax=_position_top(positions, future, npos_max),
        value_format=".2f",
        subtitle=subtitle_lines(
            f"clamped to npos_max − 1 = {npos_max - 1}: "
            + (f"× marks the {count} shown cells whose sum was larger" if count else "no shown cell reaches it"),
        ),
        mask=future,
        mask_label="future keys j > i: position 0, never attended",
        lecture=lecture,
    )
    if count:
        rows, cols = np.nonzero(clamped)
        q, k = as_array(q_pos), as_array(k_pos)
        fig.add_trace(
            go.Scatter(
                x=compact(k[cols]),
                y=compact(q[rows]),
                mode="markers",
                marker=dict(symbol="x-thin", size=7 if len(rows) < 2000 else 4, line=dict(width=1.5, color="white")),
                name=f"clamped at {npos_max - 1}",
                hovertemplate=f"query i = %{{y}}<br>key j = %{{x}}<br>clamped to {npos_max - 1}<extra></extra>",
            )
        )
    _token_ticks(fig, q_pos, k_pos, tokens)
    return fig


def _position_top(positions, future, npos_max: int) -> float:
    """The colour scale's top: the largest shown position (at least 1), never beyond the clamp."""
    p = np.where(as_array(future).astype(bool), np.nan, as_array(positions).astype(np.float64))
    top = float(np.nanmax(p)) if np.isfinite(p).any() else 1.0
    return float(min(max(top, 1.0), npos_max - 1))


def interpolation_figure(
    z_row,
    *,
    query: int,
    key: int,
    p: float,
    floor: int,
    ceil: int,
    w: float,
    value: float,
    lecture: bool = False,
) -> go.Figure:
    """``z_i[p] = q_i . e[p]`` at every integer ``p``, and ``z_i[p_ij]`` on the segment between floor and ceil."""
    lk = look(lecture)
    z = as_array(z_row).astype(np.float32)
    ps = compact(np.arange(len(z)))
    fig = go.Figure(
        go.Scatter(
            x=ps,
            y=z,
            mode="lines+markers" if len(z) <= 200 else "lines",
            name="z_i[p] = q_i · e[p], integer p",
            line=dict(width=lk.line, color="#4c78a8"),
            hovertemplate="p = %{x}<br>z_i[p] = %{y:.4f}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=np.array([floor, ceil], dtype=np.float32),
            y=np.array([z[floor], z[ceil]], dtype=np.float32),
            mode="markers",
            marker=dict(size=lk.font, color="#f58518", symbol="square"),
            name=f"floor = {floor}, ceil = {ceil}",
            hovertemplate="p = %{x}<br>z_i[p] = %{y:.4f}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=np.array([p], dtype=np.float32),
            y=np.array([value], dtype=np.float32),
            mode="markers",
            marker=dict(size=lk.font + 6, color="#e45756", symbol="star"),
            name=f"z_i[p_ij] at p_ij = {number(p)}",
            hovertemplate="p_ij = %{x:.4f}<br>z_i[p_ij] = %{y:.4f}<extra></extra>",
        )
    )
    fig.add_vline(x=p, line=dict(dash="dot", color="#555"))
    fig.update_xaxes(title_text="position p")
    fig.update_yaxes(title_text="position logit z_i[p]")
    return finish(
        fig,
        title=f"Query i = {query}, key j = {key}: z_i[p_ij] between two integer positions",
        subtitle=subtitle_lines(
            f"w = p − floor(p) = {number(w)}: z_i[p_ij] = {number(w)} · z_i[{ceil}] + {number(1 - w)} · z_i[{floor}] "
            f"= {number(value)}",
        ),
        lecture=lecture,
        height=int(lk.height * 0.8),
    )


def position_logits_figure(
    logits, future, *, q_pos, k_pos, n: int, tokens: list[str] | None, lecture: bool = False
) -> go.Figure:
    """The CoPE term ``z_i[p_ij]`` added to each attention logit, on a diverging scale."""
    fig = heatmap(
        logits,
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=n,
        k_len=n,
        title="Position logits z_i[p_ij], added to q_i · k_j / √d",
        value_name="z_i[p_ij]",
        palette="diverging",
        subtitle="interpolated between the two integer positions around p_ij",
        mask=future,
        mask_label="future keys j > i: masked",
        lecture=lecture,
    )
    _token_ticks(fig, q_pos, k_pos, tokens)
    return fig


ATTENTION_TITLES = ("no position", "relative: q · e[i − j]", "CoPE: z_i[p_ij]")


def attention_figure(none, relative, cope, *, q_pos, k_pos, n: int, lecture: bool = False) -> go.Figure:
    """Toy causal attention with no position term, plain relative positions, and CoPE, on one scale."""
    return heatmap_grid(
        np.stack([as_array(none), as_array(relative), as_array(cope)]),
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=n,
        k_len=n,
        titles=list(ATTENTION_TITLES),
        title="Attention weights: no position, relative positions, CoPE",
        subtitle="softmax(q_i · k_j / √d + position term) over j ≤ i; the same toy q, k and embeddings e; "
        "colour: log scale",
        value_name="weight",
        palette="sequential",
        cols=3,
        lecture=lecture,
        mask=as_array(k_pos)[None, :] > as_array(q_pos)[:, None],
        mask_label="future keys j > i: masked",
        log_scale=True,
    )


def counting_figure(
    distance,
    positions,
    key_pos,
    key_tokens: list[str],
    *,
    query: int,
    npos_max: int,
    sampled: bool,
    lecture: bool = False,
) -> go.Figure:
    """One query's CoPE positions against token distance ``i - j``: what the gates counted."""
    lk = look(lecture)
    d = compact(as_array(distance))
    p = as_array(positions).astype(np.float32)
    labels = [token_label(t) for t in key_tokens]
    fig = go.Figure(
        go.Bar(
            x=d,
            y=p,
            name="CoPE position p_ij",
            marker_color="#4c78a8",
            customdata=np.stack([as_array(key_pos).astype(object), np.array(labels, dtype=object)], 1),
            hovertemplate="key j = %{customdata[0]} · %{customdata[1]}<br>i − j = %{x}<br>p_ij = %{y:.3f}"
            "<extra></extra>",
        )
    )
    line = np.minimum(d.astype(np.float32) + 1, npos_max - 1)
    fig.add_trace(
        go.Scatter(
            x=d,
            y=line.astype(np.float32),
            mode="lines",
            line=dict(dash="dot", width=lk.line, color="#555"),
            name="every gate 1: i − j + 1 (relative)",
            hoverinfo="skip",
        )
    )
    fig.add_hline(
        y=npos_max - 1,
        line=dict(dash="dash", color="#e45756"),
        annotation_text=f"clamp npos_max − 1 = {npos_max - 1}",
        annotation_position="top left",
    )
    fig.update_xaxes(title_text="token distance i − j")
    fig.update_yaxes(title_text="CoPE position p_ij", rangemode="tozero")
    fig.update_layout(bargap=0.1)
    return finish(
        fig,
        title=f"Query i = {query}: what CoPE counts over the earlier tokens",
        subtitle=subtitle_lines(
            "a step up at each key whose gate fires; the dotted line counts every token",
            f"a strided sample of the {query + 1} keys j ≤ i" if sampled else None,
        ),
        lecture=lecture,
        height=int(lk.height * 0.8),
    )


def pitfall_figure(correct, wrong, *, q_pos, k_pos, n: int, lecture: bool = False) -> go.Figure:
    """Positions with the mask applied before the gates (right) and after them (wrong), on one scale."""
    future = as_array(k_pos)[None, :] > as_array(q_pos)[:, None]
    both = np.stack([as_array(m) for m in (correct, wrong)]).astype(np.float32)
    fig = heatmap_grid(
        both,
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=n,
        k_len=n,
        titles=["mask before the gates (right)", "mask after the gates (wrong)"],
        title="The masking pitfall: future gates leak into every position",
        subtitle="wrong: gates of the future keys t > i are summed into p_ij before the mask removes them",
        value_name="p_ij",
        palette="sequential",
        cols=2,
        lecture=lecture,
        mask=future,
        mask_label="future keys j > i: never attended",
    )
    return fig


def pitfall_difference_figure(diff, *, q_pos, k_pos, n: int, lecture: bool = False) -> go.Figure:
    """Wrong minus right positions on the causal cells: the future gates' sum, row by row."""
    future = as_array(k_pos)[None, :] > as_array(q_pos)[:, None]
    d = as_array(diff)
    return heatmap(
        d,
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=n,
        k_len=n,
        title="Difference: wrong − right positions",
        value_name="leak",
        palette="diverging",
        value_format=".2f",
        subtitle="every earlier key of row i is shifted by the same amount: the sum of row i's future gates, "
        "up to the clamp",
        mask=future,
        mask_label="future keys j > i",
        lecture=lecture,
    )

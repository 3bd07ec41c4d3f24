"""Figures for the compare page: every scheme on one toy sequence, on shared scales."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz.figures.common import as_array, compact, finish, heatmap_grid, look, subtitle_lines

COLORS = {
    "none": "#7f7f7f",
    "sinusoidal": "#1f77b4",
    "learned absolute": "#aec7e8",
    "T5": "#ff7f0e",
    "Shaw": "#2ca02c",
    "ALiBi": "#d62728",
    "RoPE": "#9467bd",
    "CoPE": "#8c564b",
}


def _mode(causal: bool) -> str:
    return "causal (CoPE always)" if causal else "every key visible (CoPE stays causal)"


def term_profile_figure(terms, *, names, positions, causal: bool, lecture: bool = False) -> go.Figure:
    """The last query's position term against distance ``i - j``, one line per scheme, one y axis."""
    lk = look(lecture)
    z = as_array(terms).astype(np.float64)
    pos = as_array(positions).astype(np.int64)
    last = len(pos) - 1
    distance = last - pos  # (L,) i - j for the last query
    order = np.argsort(distance)
    fig = go.Figure()
    for name, term in zip(names, z, strict=True):
        y = term[last][order]
        fig.add_trace(
            go.Scatter(
                x=compact(distance[order]),
                y=y.astype(np.float32),
                mode="lines+markers",
                name=name,
                line=dict(width=lk.line, color=COLORS.get(name)),
                marker=dict(size=lk.line + 3),
                hovertemplate=f"{name}<br>distance i − j = %{{x}}<br>term = %{{y:.3f}}<extra></extra>",
            )
        )
    fig.update_xaxes(title_text=f"distance i − j from the last query (i = {last})")
    fig.update_yaxes(title_text="position term: logit − q·k/√d")
    return finish(
        fig,
        title="What each scheme adds to one query's logits, against distance",
        subtitle=subtitle_lines(
            "a function of distance alone: ALiBi (a straight line), T5 (one learned value per bucket; "
            "random here, so steps with no trend); content-dependent: Shaw, RoPE, CoPE; no pattern: learned",
            f"the same q and k for every scheme; {_mode(causal)}",
        ),
        lecture=lecture,
    )


def term_grid_figure(terms, *, names, positions, causal: bool, lecture: bool = False) -> go.Figure:
    """Every scheme's ``(L, L)`` position term on one diverging colour scale."""
    pos = as_array(positions)
    return heatmap_grid(
        terms,
        q_pos=pos,
        k_pos=pos,
        titles=list(names),
        title="Position terms, every query and key, one colour scale",
        subtitle=f"logit − q·k/√d; blank: masked keys; {_mode(causal)}",
        value_name="term",
        palette="diverging",
        lecture=lecture,
    )


def attention_grid_figure(weights, *, names, positions, causal: bool, lecture: bool = False) -> go.Figure:
    """Every scheme's attention map on one sequential colour scale."""
    pos = as_array(positions)
    w = as_array(weights)
    return heatmap_grid(
        w,
        q_pos=pos,
        k_pos=pos,
        titles=list(names),
        title="Attention on the same toy sequence, one colour scale",
        subtitle=f"softmax over keys of each row; {_mode(causal)}; colour: log scale",
        value_name="weight",
        palette="sequential",
        lecture=lecture,
        mask=~np.isfinite(w) | (w == 0),  # exactly 0 only where a key is masked (softmax of -inf)
        mask_label="masked keys",
        log_scale=True,
    )


def attention_row_figure(weights, *, names, positions, lecture: bool = False) -> go.Figure:
    """The last query's attention over keys, one line per scheme."""
    lk = look(lecture)
    w = as_array(weights).astype(np.float32)
    pos = as_array(positions)
    last = len(pos) - 1
    fig = go.Figure()
    for name, weight in zip(names, w, strict=True):
        fig.add_trace(
            go.Scatter(
                x=compact(pos),
                y=weight[last],
                mode="lines",
                name=name,
                line=dict(width=lk.line, color=COLORS.get(name)),
                hovertemplate=f"{name}<br>key j = %{{x}}<br>weight = %{{y:.3f}}<extra></extra>",
            )
        )
    fig.update_xaxes(title_text="key position j")
    fig.update_yaxes(title_text="attention weight", rangemode="tozero")
    return finish(
        fig,
        title=f"Where the last query (i = {last}) looks, scheme by scheme",
        subtitle="the same content scores; only the position term differs",
        lecture=lecture,
    )

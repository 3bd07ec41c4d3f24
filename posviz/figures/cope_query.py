"""One query of the CoPE page: how ``z_i[p_ij]`` interpolates for the inspected pair, what the query
counted, and the tables of its row (its gates, the pair).

Functions of plain arguments as in :mod:`posviz.figures.cope` (the text and toy setting), plus
``query`` (and ``key``); the ``*_figure`` builders turn arrays into specs.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from posviz.encodings.cope_toy import CopePair, CopeRow, cope_counting, cope_pair, cope_row
from posviz.encodings.positions import display_positions
from posviz.figures.chart import Chart
from posviz.figures.common import as_array, compact, finish, look, number, subtitle_lines
from posviz.figures.cope import token_label, toy_of
from posviz.figures.csv import columns_csv
from posviz.figures.marks import Mark, add_marks
from posviz.i18n import _

BAR_POINTS = 400  # keys in the counting bar chart
ROW_ENTRIES = 16  # inspected rows kept for the figures and tables that share them


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
    traces = [  # plain data: built once, by finish
        dict(
            type="scatter",
            x=ps,
            y=z,
            mode="lines+markers" if len(z) <= 200 else "lines",
            name=_("z_i[p] = q_i · e[p], integer p"),
            line=dict(width=lk.line, color="#4c78a8"),
            hovertemplate="p = %{x}<br>z_i[p] = %{y:.4f}<extra></extra>",
        ),
        dict(
            type="scatter",
            x=np.array([floor, ceil], dtype=np.float32),
            y=np.array([z[floor], z[ceil]], dtype=np.float32),
            mode="markers",
            marker=dict(size=lk.font, color="#f58518", symbol="square"),
            name=f"floor = {floor}, ceil = {ceil}",
            hovertemplate="p = %{x}<br>z_i[p] = %{y:.4f}<extra></extra>",
        ),
        dict(
            type="scatter",
            x=np.array([p], dtype=np.float32),
            y=np.array([value], dtype=np.float32),
            mode="markers",
            marker=dict(size=lk.font + 6, color="#e45756", symbol="star"),
            name=_("z_i[p_ij] at p_ij = {p}").format(p=number(p)),
            hovertemplate="p_ij = %{x:.4f}<br>z_i[p_ij] = %{y:.4f}<extra></extra>",
        ),
    ]
    layout = dict(
        xaxis=dict(title=dict(text=_("position p"))),
        yaxis=dict(title=dict(text=_("position logit z_i[p]"))),
    )
    fig = add_marks(dict(data=traces, layout=layout), [Mark(p)], line=dict(dash="dot", color="#555"))
    return finish(
        fig,
        title=_("Query i = {query}, key j = {key}: z_i[p_ij] between two integer positions").format(
            query=query, key=key
        ),
        subtitle=subtitle_lines(
            f"w = p − floor(p) = {number(w)}: z_i[p_ij] = {number(w)} · z_i[{ceil}] + {number(1 - w)} · z_i[{floor}] "
            f"= {number(value)}",
        ),
        lecture=lecture,
        height=int(lk.height * 0.8),
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
    bars = dict(  # plain data: built once, by finish
        type="bar",
        x=d,
        y=p,
        name=_("CoPE position p_ij"),
        marker=dict(color="#4c78a8"),
        customdata=np.stack([as_array(key_pos).astype(object), np.array(labels, dtype=object)], 1),
        hovertemplate=_("key j = %{customdata[0]} · %{customdata[1]}")
        + "<br>i − j = %{x}<br>p_ij = %{y:.3f}<extra></extra>",
    )
    line = np.minimum(d.astype(np.float32) + 1, npos_max - 1)
    counted = dict(
        type="scatter",
        x=d,
        y=line.astype(np.float32),
        mode="lines",
        line=dict(dash="dot", width=lk.line, color="#555"),
        name=_("every gate 1: i − j + 1 (relative)"),
        hoverinfo="skip",
    )
    layout = dict(
        xaxis=dict(title=dict(text=_("token distance i − j"))),
        yaxis=dict(title=dict(text=_("CoPE position p_ij")), rangemode="tozero"),
        bargap=0.1,
    )
    clamp = Mark(npos_max - 1, _("clamp npos_max − 1 = {top}").format(top=npos_max - 1), "top left")
    fig = add_marks(
        dict(data=[bars, counted], layout=layout), [clamp], vertical=False, line=dict(dash="dash", color="#e45756")
    )
    return finish(
        fig,
        title=_("Query i = {query}: what CoPE counts over the earlier tokens").format(query=query),
        subtitle=subtitle_lines(
            _("a step up at each key whose gate fires; the dotted line counts every token"),
            _("a strided sample of the {count} keys j ≤ i").format(count=query + 1) if sampled else None,
        ),
        lecture=lecture,
        height=int(lk.height * 0.8),
    )


# --- the figures and tables, by plain arguments ------------------------------------------------------


@functools.lru_cache(maxsize=ROW_ENTRIES)  # one computation for the figures and tables of an inspected query
def query_row(
    *, text: str, mode: str, temperature: float, npos_max: int, dim: int, seed: int, custom: bytes = b"", query: int
) -> tuple[tuple[str, ...], CopeRow]:
    """The tokens and query ``query``'s whole row (shared, never mutated)."""
    tokens, toy = toy_of(
        text=text, mode=mode, temperature=temperature, npos_max=npos_max, dim=dim, seed=seed, custom=custom
    )
    return tuple(tokens), cope_row(toy, query)


def pair(
    *, text: str, mode: str, temperature: float, npos_max: int, dim: int, seed: int, custom: bytes = b"",
    query: int, key: int,
) -> CopePair:  # fmt: skip
    """The inspected pair ``(query, key)``: its position and interpolation."""
    _tokens, row = query_row(
        text=text, mode=mode, temperature=temperature, npos_max=npos_max, dim=dim, seed=seed, custom=custom, query=query
    )
    return cope_pair(row, query, key)


def interpolation(
    *, text: str, mode: str, temperature: float, npos_max: int, dim: int, seed: int, custom: bytes = b"",
    query: int, key: int, lecture: bool = False,
) -> Chart:  # fmt: skip
    """``z_i[p]`` of query ``query`` at every integer position, and ``z_i[p_ij]`` of the pair ``(query, key)``."""
    toy = dict(text=text, mode=mode, temperature=temperature, npos_max=npos_max, dim=dim, seed=seed, custom=custom)
    z = query_row(**toy, query=query)[1].z_row.numpy()
    pv = pair(**toy, query=query, key=key)
    figure = interpolation_figure(
        z, query=query, key=key, p=pv.p, floor=pv.floor, ceil=pv.ceil, w=pv.w, value=pv.value, lecture=lecture
    )
    return Chart.of(figure, lambda: columns_csv({"p": range(len(z)), "z_i[p]": z}))


def counting(
    *, text: str, mode: str, temperature: float, npos_max: int, dim: int, seed: int, custom: bytes = b"",
    query: int, lecture: bool = False,
) -> Chart:  # fmt: skip
    """Query ``query``'s CoPE positions against token distance, over at most ``BAR_POINTS`` keys ``j <= i``."""
    tokens, row = query_row(
        text=text, mode=mode, temperature=temperature, npos_max=npos_max, dim=dim, seed=seed, custom=custom, query=query
    )
    keys = display_positions(query + 1, BAR_POINTS)
    distance, p = (x.numpy() for x in cope_counting(row, query, keys))
    j = keys.numpy()
    figure = counting_figure(
        distance, p, j, [tokens[i] for i in j], query=query, npos_max=npos_max, sampled=len(j) < query + 1,
        lecture=lecture,
    )  # fmt: skip
    return Chart.of(figure, lambda: columns_csv({"key j": j, "i - j": distance, "p_ij": p}))


def token_table(
    *, text: str, mode: str, temperature: float, npos_max: int, dim: int, seed: int, custom: bytes = b"", query: int
) -> pd.DataFrame:
    """The tokens as read, with query ``query``'s gate of each key (0 for future keys)."""
    tokens, row = query_row(
        text=text, mode=mode, temperature=temperature, npos_max=npos_max, dim=dim, seed=seed, custom=custom, query=query
    )
    frame = pd.DataFrame({"token": list(tokens)}, index=pd.RangeIndex(len(tokens), name="j"))
    frame[_("gate g_ij for i = {query}").format(query=query)] = np.round(row.gates.numpy().astype(np.float64), 4)
    return frame


def pair_table(
    *, text: str, mode: str, temperature: float, npos_max: int, dim: int, seed: int, custom: bytes = b"",
    query: int, key: int,
) -> pd.DataFrame:  # fmt: skip
    """The inspected pair's interpolation, one row."""
    pv = pair(
        text=text, mode=mode, temperature=temperature, npos_max=npos_max, dim=dim, seed=seed, custom=custom,
        query=query, key=key,
    )  # fmt: skip
    return pd.DataFrame(
        {
            "query i": [pv.query],
            "key j": [pv.key],
            "p_ij": [round(pv.p, 6)],
            "floor": [pv.floor],
            "ceil": [pv.ceil],
            "w": [round(pv.w, 6)],
            "z_i[floor]": [round(pv.z_floor, 6)],
            "z_i[ceil]": [round(pv.z_ceil, 6)],
            "z_i[p_ij]": [round(pv.value, 6)],
        }
    )


def future_gate_sum(
    *, text: str, mode: str, temperature: float, npos_max: int, dim: int, seed: int, custom: bytes = b"", query: int
) -> float:
    """The sum of query ``query``'s gates over its future keys with no mask: what the pitfall adds."""
    _tokens, row = query_row(
        text=text, mode=mode, temperature=temperature, npos_max=npos_max, dim=dim, seed=seed, custom=custom, query=query
    )
    return row.future_sum

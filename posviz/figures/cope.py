"""The CoPE page's matrices over a text: gates, contextual positions, position logits, attention.

``gates``, ``positions``, ``position_logits`` and ``attention`` are the figures the page (and a
notebook) calls, each a function of plain arguments returning a :class:`Chart`; the ``*_figure``
builders below them turn arrays into specs. One query's row is :mod:`posviz.figures.cope_query`,
the masking pitfall :mod:`posviz.figures.cope_pitfall`.

Every figure takes the text and the toy setting as the same keyword arguments (``text``, ``mode``,
``temperature``, ``npos_max``, ``dim``, ``seed``, ``custom``: the custom mode's gate table as
float32 bytes, one per token, ``b""`` otherwise) and computes the drawn query rows only, each
against every key, never the full ``n x n`` matrix of a long text.

Token text is user text: it only ever reaches a figure escaped (``&lt;``),
and Plotly shows the escaped characters literally.
"""

from __future__ import annotations

import functools
import html
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from posviz.encodings.cope_toy import CopeToy, cope_attention_panels, cope_rows, cope_toy
from posviz.encodings.positions import display_positions
from posviz.encodings.tokens import tokenize
from posviz.figures.chart import Chart
from posviz.figures.common import as_array, compact, heatmap, heatmap_grid, subtitle_lines
from posviz.figures.csv import matrix_csv, panels_csv
from posviz.i18n import N_, _

COPE_MAX_TOKENS = 4096  # tokens of a text the figures read (the first ones)
MAIN_POINTS = 160  # per axis for the gate, position and logit heatmaps
ATTN_POINTS = 96  # per axis for each of the three attention panels
SHARED_ENTRIES = 4  # views whose drawn matrices are kept for the figures that share them

TOKEN_TICKS = 40  # label the axes with the tokens up to this many shown positions
TOKEN_CHARS = 12  # characters of a token kept in a tick label or hover


def token_label(token: str) -> str:
    """A token as Plotly may show it: shortened, and escaped so that no text becomes markup."""
    short = token if len(token) <= TOKEN_CHARS else token[: TOKEN_CHARS - 1] + "…"
    return html.escape(short, quote=False)


def _token_ticks(fig: go.Figure, q_pos, k_pos, tokens: list[str] | None) -> None:
    """Tick labels 'position token' on both axes when few enough positions are shown.

    ``fig`` is a heatmap just finished (:func:`posviz.figures.common.heatmap`): its spec is edited as plain
    data, before anything builds the figure."""
    if tokens is None:
        return
    layout = fig.spec["layout"]
    for name, pos in (("xaxis", as_array(k_pos)), ("yaxis", as_array(q_pos))):
        if len(pos) <= TOKEN_TICKS:
            ticks = [f"{p} {token_label(tokens[int(p)])}" for p in pos]
            layout.setdefault(name, {}).update(tickvals=compact(pos), ticktext=ticks, tickangle=0)
    if len(as_array(k_pos)) <= TOKEN_TICKS:
        layout.setdefault("xaxis", {})["tickangle"] = -60
    rows = len(as_array(q_pos))
    if rows <= TOKEN_TICKS:  # one legible line per token label
        layout["height"] = max(layout.get("height") or 0, 20 * rows + 260)


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
        title=_("Gates g_ij: which keys count for query i"),
        value_name=_("gate"),
        zmin=0.0,
        zmax=1.0,
        subtitle=subtitle,
        mask=future,
        mask_label=_("future keys j > i, masked before the gates: exactly 0"),
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
        title=_("Positions p_ij = Σ_{t=j..i} g_it (reverse cumulative sum)"),
        value_name="p_ij",
        zmin=0.0,
        zmax=_position_top(positions, future, npos_max),
        value_format=".2f",
        subtitle=subtitle_lines(
            _("clamped to npos_max − 1 = {top}: × marks the {count} shown cells whose sum was larger").format(
                top=npos_max - 1, count=count
            )
            if count
            else _("clamped to npos_max − 1 = {top}: no shown cell reaches it").format(top=npos_max - 1),
        ),
        mask=future,
        mask_label=_("future keys j > i: position 0, never attended"),
        lecture=lecture,
    )
    if count:
        rows, cols = np.nonzero(clamped)
        q, k = as_array(q_pos), as_array(k_pos)
        fig.spec["data"].append(  # the heatmap just finished, still plain data
            dict(
                type="scatter",
                x=compact(k[cols]),
                y=compact(q[rows]),
                mode="markers",
                marker=dict(symbol="x-thin", size=7 if len(rows) < 2000 else 4, line=dict(width=1.5, color="white")),
                name=_("clamped at {top}").format(top=npos_max - 1),
                hovertemplate=_("query i = %{y}<br>key j = %{x}")
                + "<br>"
                + _("clamped to {top}").format(top=npos_max - 1)
                + "<extra></extra>",
            )
        )
    _token_ticks(fig, q_pos, k_pos, tokens)
    return fig


def _position_top(positions, future, npos_max: int) -> float:
    """The colour scale's top: the largest shown position (at least 1), never beyond the clamp."""
    p = np.where(as_array(future).astype(bool), np.nan, as_array(positions).astype(np.float64))
    top = float(np.nanmax(p)) if np.isfinite(p).any() else 1.0
    return float(min(max(top, 1.0), npos_max - 1))


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
        title=_("Position logits z_i[p_ij], added to q_i · k_j / √d"),
        value_name="z_i[p_ij]",
        palette="diverging",
        subtitle=_("interpolated between the two integer positions around p_ij"),
        mask=future,
        mask_label=_("future keys j > i: masked"),
        lecture=lecture,
    )
    _token_ticks(fig, q_pos, k_pos, tokens)
    return fig


# Panel titles; the CSV keeps them in English (its column names are data).
ATTENTION_TITLES = (N_("no position"), N_("relative: q · e[i − j]"), "CoPE: z_i[p_ij]")


def attention_figure(none, relative, cope, *, q_pos, k_pos, n: int, lecture: bool = False) -> go.Figure:
    """Toy causal attention with no position term, plain relative positions, and CoPE, on one scale."""
    return heatmap_grid(
        np.stack([as_array(none), as_array(relative), as_array(cope)]),
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=n,
        k_len=n,
        titles=[_(t) for t in ATTENTION_TITLES],
        title=_("Attention weights: no position, relative positions, CoPE"),
        subtitle=_(
            "softmax(q_i · k_j / √d + position term) over j ≤ i; the same toy q, k and embeddings e; colour: log scale"
        ),
        value_name=_("weight"),
        palette="sequential",
        cols=3,
        lecture=lecture,
        mask=as_array(k_pos)[None, :] > as_array(q_pos)[:, None],
        mask_label=_("future keys j > i: masked"),
        log_scale=True,
    )


# --- the figures, by plain arguments ---------------------------------------------------------------


def gates_subtitle(mode: str, temperature: float) -> str:
    """Where the gates come from, in words."""
    if mode == "random":
        return _("random: sigmoid(q_i · k_j / {temperature}) with toy q, k").format(temperature=f"{temperature:g}")
    return _(
        {
            "count-tokens": N_("count-tokens: every gate is 1, so p_ij = i − j + 1, a plain relative position"),
            "count-sentences": N_(
                "count-sentences: gates are 1 on . ! ? and 0 elsewhere, so positions count sentences"
            ),
            "custom": N_("custom: the table's gate of each key, the same for every query"),
        }[mode]
    )


def tokens_of(text: str) -> list[str]:
    """The tokens the figures read: at most ``COPE_MAX_TOKENS``."""
    return tokenize(text, limit=COPE_MAX_TOKENS)


def toy_of(
    *, text: str, mode: str, temperature: float, npos_max: int, dim: int, seed: int, custom: bytes = b""
) -> tuple[list[str], CopeToy]:
    """The tokens of ``text`` and their toy tensors."""
    tokens = tokens_of(text)
    toy = cope_toy(tokens, mode=mode, dim=dim, seed=seed, npos_max=npos_max, temperature=temperature, custom=custom)
    return tokens, toy


def _frozen(tensor) -> np.ndarray:
    """A tensor as a read-only numpy array (shared by the figures of one view)."""
    array = tensor.numpy()
    array.setflags(write=False)
    return array


@dataclass(frozen=True)
class Shown:
    """The matrices drawn: the shown query rows against the keys at the same positions, ``(r, r)`` each."""

    tokens: tuple[str, ...]
    pos: np.ndarray  # (r,) int64: at most MAIN_POINTS positions, the last token always among them
    gates: np.ndarray
    positions: np.ndarray  # clamped
    clamped: np.ndarray  # bool: the raw sum exceeded npos_max - 1
    pos_logits: np.ndarray

    @property
    def future(self) -> np.ndarray:
        """(r, r) bool: keys after their query, masked."""
        return self.pos[None, :] > self.pos[:, None]

    def drawn(self, lecture: bool) -> dict:
        """The keywords of a heatmap builder: shown positions, the text's length, its tokens."""
        return dict(q_pos=self.pos, k_pos=self.pos, n=len(self.tokens), tokens=list(self.tokens), lecture=lecture)


@functools.lru_cache(maxsize=SHARED_ENTRIES)  # one computation for the three heatmaps of a view
def shown(
    *, text: str, mode: str, temperature: float, npos_max: int, dim: int, seed: int, custom: bytes = b""
) -> Shown:
    """The gates, positions, clamp marks and position logits drawn by :func:`gates`, :func:`positions` and
    :func:`position_logits`."""
    tokens, toy = toy_of(
        text=text, mode=mode, temperature=temperature, npos_max=npos_max, dim=dim, seed=seed, custom=custom
    )
    rows = display_positions(len(tokens), MAIN_POINTS)  # the shown queries; keys are shown at the same positions
    m = cope_rows(toy, rows)
    drawn = (_frozen(x[:, rows]) for x in (m.gates, m.positions, m.clamped, m.pos_logits))
    return Shown(tuple(tokens), _frozen(rows), *drawn)


def gates(
    *, text: str, mode: str, temperature: float, npos_max: int, dim: int, seed: int, custom: bytes = b"",
    lecture: bool = False,
) -> Chart:  # fmt: skip
    """The gates ``g_ij`` of the shown queries and keys."""
    v = shown(text=text, mode=mode, temperature=temperature, npos_max=npos_max, dim=dim, seed=seed, custom=custom)
    figure = gates_figure(v.gates, v.future, subtitle=gates_subtitle(mode, temperature), **v.drawn(lecture))
    return Chart.of(figure, lambda: matrix_csv(v.gates, v.pos, v.pos))


def positions(
    *, text: str, mode: str, temperature: float, npos_max: int, dim: int, seed: int, custom: bytes = b"",
    lecture: bool = False,
) -> Chart:  # fmt: skip
    """The contextual positions ``p_ij`` of the shown queries and keys, clamped cells marked."""
    v = shown(text=text, mode=mode, temperature=temperature, npos_max=npos_max, dim=dim, seed=seed, custom=custom)
    figure = positions_figure(v.positions, v.future, v.clamped, npos_max=npos_max, **v.drawn(lecture))
    return Chart.of(figure, lambda: matrix_csv(v.positions, v.pos, v.pos))


def position_logits(
    *, text: str, mode: str, temperature: float, npos_max: int, dim: int, seed: int, custom: bytes = b"",
    lecture: bool = False,
) -> Chart:  # fmt: skip
    """The position logits ``z_i[p_ij]`` of the shown queries and keys."""
    v = shown(text=text, mode=mode, temperature=temperature, npos_max=npos_max, dim=dim, seed=seed, custom=custom)
    figure = position_logits_figure(v.pos_logits, v.future, **v.drawn(lecture))
    return Chart.of(figure, lambda: matrix_csv(v.pos_logits, v.pos, v.pos))


def attention(
    *, text: str, mode: str, temperature: float, npos_max: int, dim: int, seed: int, custom: bytes = b"",
    lecture: bool = False,
) -> Chart:  # fmt: skip
    """Attention with no position term, relative positions and CoPE: at most ``ATTN_POINTS`` queries and keys."""
    tokens, toy = toy_of(
        text=text, mode=mode, temperature=temperature, npos_max=npos_max, dim=dim, seed=seed, custom=custom
    )
    rows = display_positions(len(tokens), ATTN_POINTS)
    panels = [a[:, rows].numpy() for a in cope_attention_panels(toy, rows)]  # keys at the same positions as rows
    pos = rows.numpy()
    figure = attention_figure(*panels, q_pos=pos, k_pos=pos, n=len(tokens), lecture=lecture)
    return Chart.of(figure, lambda: panels_csv(dict(zip(ATTENTION_TITLES, panels, strict=True)), pos, pos))

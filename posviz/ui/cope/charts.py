"""The CoPE page's figures, cached process-wide by exactly the arguments they are built from.

Each takes the narrowest key that determines it, lecture mode, and the custom
gate table's bytes (``b""`` outside custom mode): an edited gate rebuilds the
figures of that table only, and moving the inspected key rebuilds only the
interpolation.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from posviz.encodings.tokens import tokenize
from posviz.figures import cope as fig
from posviz.figures.csv import columns_csv, matrix_csv, panels_csv
from posviz.ui.cache import Chart, cached_figure
from posviz.ui.cope.notes import gates_subtitle
from posviz.ui.cope.settings import COPE_MAX_TOKENS, PairKey, RowKey, ViewKey
from posviz.ui.cope.views import cope_view, pair_view, pitfall_view, row_view


def _tokens(k: ViewKey) -> list[str]:
    return tokenize(k.text, limit=COPE_MAX_TOKENS)


def _shown(pos: np.ndarray, n: int, lecture: bool) -> dict:
    """The shown queries and keys (the same positions) of a text of ``n`` tokens."""
    return dict(q_pos=pos, k_pos=pos, n=n, lecture=lecture)


@cached_figure
def gates(k: ViewKey, table: bytes, lecture: bool) -> Chart:
    v = cope_view(k, table)
    subtitle = gates_subtitle(k.mode, k.temperature)
    figure = fig.gates_figure(v.gates, v.future, tokens=_tokens(k), subtitle=subtitle, **_shown(v.q_pos, v.n, lecture))
    return Chart(figure, lambda: matrix_csv_of(k, table, "gates"))


@cached_figure
def positions(k: ViewKey, table: bytes, lecture: bool) -> Chart:
    v = cope_view(k, table)
    figure = fig.positions_figure(
        v.positions, v.future, v.clamped, npos_max=k.npos_max, tokens=_tokens(k), **_shown(v.q_pos, v.n, lecture)
    )
    return Chart(figure, lambda: matrix_csv_of(k, table, "positions"))


@cached_figure(max_entries=64)  # one per inspected pair of a few views
def interpolation(k: PairKey, table: bytes, lecture: bool) -> Chart:
    pv = pair_view(k, table)
    marks = {f.name: getattr(pv, f.name) for f in fields(pv) if f.name != "z_row"}  # named as the keywords
    figure = fig.interpolation_figure(pv.z_row, **marks, lecture=lecture)
    return Chart(figure, lambda: interpolation_csv(k, table))


@cached_figure
def position_logits(k: ViewKey, table: bytes, lecture: bool) -> Chart:
    v = cope_view(k, table)
    figure = fig.position_logits_figure(v.pos_logits, v.future, tokens=_tokens(k), **_shown(v.q_pos, v.n, lecture))
    return Chart(figure, lambda: matrix_csv_of(k, table, "pos_logits"))


@cached_figure
def attention(k: ViewKey, table: bytes, lecture: bool) -> Chart:
    v = cope_view(k, table)
    figure = fig.attention_figure(*v.attention, **_shown(v.attn_q, v.n, lecture))
    return Chart(figure, lambda: attention_csv(k, table))


@cached_figure(max_entries=64)  # one per inspected query of a few views
def counting(k: RowKey, table: bytes, lecture: bool) -> Chart:
    row = row_view(k, table)
    tokens = _tokens(k)
    figure = fig.counting_figure(
        row.bar_distance,
        row.bar_positions,
        row.bar_j,
        [tokens[j] for j in row.bar_j],
        query=k.query,
        npos_max=k.npos_max,
        sampled=len(row.bar_j) < k.query + 1,
        lecture=lecture,
    )
    return Chart(figure, lambda: counting_csv(k, table))


@cached_figure
def pitfall(k: ViewKey, table: bytes, lecture: bool) -> Chart:
    pv = pitfall_view(k, table)
    figure = fig.pitfall_figure(pv.right, pv.wrong, **_shown(pv.pos, pv.n, lecture))
    return Chart(figure, lambda: pitfall_csv(k, table))


@cached_figure
def pitfall_difference(k: ViewKey, table: bytes, lecture: bool) -> Chart:
    pv = pitfall_view(k, table)
    figure = fig.pitfall_difference_figure(pv.diff, **_shown(pv.pos, pv.n, lecture))
    return Chart(figure, lambda: pitfall_difference_csv(k, table))


# The data behind each figure as CSV (built when the download is clicked).
def matrix_csv_of(k: ViewKey, table: bytes, name: str) -> str:
    """``name`` is a matrix of the view: ``gates``, ``positions`` or ``pos_logits``."""
    v = cope_view(k, table)
    return matrix_csv(getattr(v, name), v.q_pos, v.k_pos)


def attention_csv(k: ViewKey, table: bytes) -> str:
    v = cope_view(k, table)
    return panels_csv(dict(zip(fig.ATTENTION_TITLES, v.attention, strict=True)), v.attn_q, v.attn_k)


def interpolation_csv(k: PairKey, table: bytes) -> str:
    z = pair_view(k, table).z_row
    return columns_csv({"p": range(len(z)), "z_i[p]": z})


def counting_csv(k: RowKey, table: bytes) -> str:
    row = row_view(k, table)
    return columns_csv({"key j": row.bar_j, "i - j": row.bar_distance, "p_ij": row.bar_positions})


def pitfall_csv(k: ViewKey, table: bytes) -> str:
    pv = pitfall_view(k, table)
    return panels_csv({"mask before": pv.right, "mask after": pv.wrong}, pv.pos, pv.pos)


def pitfall_difference_csv(k: ViewKey, table: bytes) -> str:
    pv = pitfall_view(k, table)
    return matrix_csv(pv.diff, pv.pos, pv.pos)

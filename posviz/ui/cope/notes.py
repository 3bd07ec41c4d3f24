"""The CoPE page's notes and tables that depend on the settings and views (plain text and frames)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from posviz.encodings.positions import display_positions, display_stride
from posviz.figures.layout import number
from posviz.ui.cope.settings import COPE_MAX_CHARS, COPE_MAX_TOKENS, MAIN_POINTS
from posviz.ui.cope.views import PairView, RowView


def allowance_note(n: int) -> str:
    """What the page allows, and what it does with a text of ``n`` tokens."""
    shown = len(display_positions(n, MAIN_POINTS)) if n else 0
    parts = [f"{n} tokens. The page reads up to {COPE_MAX_CHARS} characters and {COPE_MAX_TOKENS} tokens"]
    if shown < n:
        parts.append(
            f"heatmaps draw {shown} of the {n} query rows and keys (every {display_stride(n, MAIN_POINTS)}th, "
            "plus the last); only those rows are computed, each against every key"
        )
    return "; ".join(parts) + "."


def cut_note(total: int) -> str | None:
    """The warning for a text longer than the page reads; None when it is read whole."""
    if total <= COPE_MAX_TOKENS:
        return None
    return f"The text has {total} tokens; the page reads the first {COPE_MAX_TOKENS}."


def gates_subtitle(mode: str, temperature: float) -> str:
    return {
        "count-tokens": "count-tokens: every gate is 1, so p_ij = i − j + 1, a plain relative position",
        "count-sentences": "count-sentences: gates are 1 on . ! ? and 0 elsewhere, so positions count sentences",
        "random": f"random: sigmoid(q_i · k_j / {temperature:g}) with toy q, k",
        "custom": "custom: the table's gate of each key, the same for every query",
    }[mode]


def leak_note(row: RowView, npos_max: int) -> str:
    """What the pitfall does to the inspected query's row."""
    if row.future_sum == 0:
        return (
            f"Query i = {row.query} has no future gates that fire (it is the last token, or no later key's gate "
            "is above 0): its row is unchanged. Pick an earlier query to see its positions shift."
        )
    return (
        f"Query i = {row.query}: its future keys' gates sum to {number(row.future_sum, 3)}, so with the mask after the "
        f"gates each of its positions is that much too large (up to the clamp at {npos_max - 1})."
    )


def token_frame(tokens: list[str], gates: np.ndarray, query: int) -> pd.DataFrame:
    """The tokens as read, with the inspected query's gate of each key (0 for future keys)."""
    frame = pd.DataFrame({"token": tokens}, index=pd.RangeIndex(len(tokens), name="j"))
    frame[f"gate g_ij for i = {query}"] = np.round(gates.astype(np.float64), 4)
    return frame


def pair_frame(pv: PairView) -> dict[str, list]:
    """The inspected pair's interpolation, one row."""
    return {
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

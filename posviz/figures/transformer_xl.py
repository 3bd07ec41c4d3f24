"""The Transformer-XL page's figures: one function of plain arguments per figure, each returning a :class:`Chart`.

One head with seeded toy weights (illustrative): queries and keys drawn at random, ``W_R`` and the global
biases ``u`` and ``v`` as small random matrices.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

from posviz.encodings.transformer_xl import (
    TxlTerms,
    txl_mask,
    txl_parameter_count,
    txl_positional_embedding,
    txl_slowest_period,
    txl_toy_terms,
)
from posviz.figures.chart import Chart
from posviz.figures.common import heatmap, heatmap_grid
from posviz.figures.csv import matrix_csv, panels_csv
from posviz.figures.layout import subtitle_lines
from posviz.i18n import N_, _

LECTURE_TEXT_COLUMNS = 8  # in lecture mode, values are written into the cells of narrower matrices only
# the panels' titles (and the CSV's column names, which stay English)
TERM_TITLES = (
    N_("(a) content q·k"),
    N_("(b) content–position"),
    N_("(c) global content u·k"),
    N_("(d) global position v·R"),
)


@lru_cache(maxsize=16)  # the four figures of one view share the terms
def _terms(q_len: int, mem_len: int, dim: int, seed: int) -> TxlTerms:
    """The head's terms for the toy weights of ``seed``: ``d_model = 2 dim`` for ``R``, projected to ``dim``."""
    return txl_toy_terms(q_len, mem_len, dim, seed)


def _lecture_cells(fig: dict, columns: int, lecture: bool) -> dict:
    """``fig`` without the values written in its cells when, in lecture mode, the cells are too narrow to read them
    (the hover still gives each value)."""
    if lecture and columns > LECTURE_TEXT_COLUMNS:
        for trace in fig["data"]:
            trace.pop("texttemplate", None)
            trace.pop("text", None)
    return fig


def _axes(q_len: int, mem_len: int) -> tuple[np.ndarray, np.ndarray]:
    """Absolute positions: queries ``mem_len .. mem_len + q_len - 1``, keys ``0 .. mem_len + q_len - 1``."""
    return np.arange(mem_len, mem_len + q_len), np.arange(mem_len + q_len)


def terms(*, q_len: int, mem_len: int, dim: int, seed: int, lecture: bool = False) -> Chart:
    """The four terms of the score side by side, masked where the key is after the query."""
    t = _terms(q_len, mem_len, dim, seed)
    q_pos, k_pos = _axes(q_len, mem_len)
    masked = txl_mask(q_len, mem_len).numpy()
    panels = {
        name: z.numpy()
        for name, z in zip(TERM_TITLES, (t.content, t.position, t.content_bias, t.position_bias), strict=True)
    }
    figure = heatmap_grid(
        np.stack(list(panels.values())),
        q_pos=q_pos,
        k_pos=k_pos,
        titles=[_(t) for t in TERM_TITLES],
        title=_("Transformer-XL's score, term by term: (a) + (b) + (c) + (d), over √d"),
        subtitle=subtitle_lines(
            _("one head, d = {dim}, seeded toy weights (illustrative); keys 0 … {last} are the memory").format(
                dim=dim, last=mem_len - 1
            )
            if mem_len
            else _("one head, d = {dim}, seeded toy weights (illustrative); no memory").format(dim=dim),
            _("(c) depends on the key only, (d) on the distance only: u and v are learned once"),
        ),
        value_name=_("term"),
        palette="diverging",
        lecture=lecture,
        mask=masked,
        mask_label=_("key after the query: masked"),
    )
    return Chart.of(figure, lambda: panels_csv(panels, q_pos, k_pos))


def r_matrix(*, k_len: int, dim: int, lecture: bool = False) -> Chart:
    """``R`` over the descending distances ``k_len - 1 .. 0``: sines in the first half, cosines in the second."""
    distances = np.arange(k_len - 1, -1, -1)
    r = txl_positional_embedding(torch.from_numpy(distances), 2 * dim).numpy()
    figure = heatmap(
        r.astype(np.float32),
        q_pos=distances,
        k_pos=np.arange(2 * dim),
        title=_("R: a sinusoid of the distance, rows from the farthest to 0"),
        subtitle=subtitle_lines(
            _("d_model = {d_model}: [sin | cos] halves, not interleaved; the code's pos_seq runs k_len − 1 … 0").format(
                d_model=2 * dim
            ),
            _("W_R projects each row to the head; (b) and (d) read the row of each pair's distance"),
        ),
        value_name="R",
        palette="diverging",
        lecture=lecture,
        zmin=-1.0,
        zmax=1.0,
    )
    fig = figure.to_dict()
    fig["layout"]["xaxis"]["title"]["text"] = _("component (sin half, then cos half)")
    fig["layout"]["yaxis"]["title"]["text"] = _("distance")
    fig["layout"]["yaxis"]["autorange"] = True  # the farthest distance on top, as the code's rows run
    return Chart.of(_lecture_cells(fig, 2 * dim, lecture), lambda: matrix_csv(r, distances, np.arange(2 * dim)))


def shift(*, q_len: int, mem_len: int, dim: int, seed: int, lecture: bool = False) -> Chart:
    """``(q + v) . W_R R`` against every row of ``R`` (before), and put in place by ``_rel_shift`` (after)."""
    t = _terms(q_len, mem_len, dim, seed)
    q_pos, k_pos = _axes(q_len, mem_len)
    raw, shifted = t.bd_raw.numpy(), t.bd.numpy()
    figure = heatmap_grid(
        np.stack([raw, shifted]),
        q_pos=q_pos,
        k_pos=k_pos,
        titles=[_("before: column r holds distance k_len − 1 − r"), _("after _rel_shift: distance (mem_len + i) − j")],
        title=_("_rel_shift puts each score at its key, and leaves garbage above the diagonal"),
        subtitle=subtitle_lines(
            _("the cells right of the diagonal (j > mem_len + i) hold other rows' values, not zeros"),
            _("the causal mask removes them before the softmax; the shift step by step: /skew"),
        ),
        value_name="BD",
        palette="diverging",
        lecture=lecture,
    )
    return Chart.of(figure, lambda: panels_csv({"before shift": raw, "after shift": shifted}, q_pos, k_pos))


def memory(*, q_len: int, mem_len: int, dim: int, seed: int, lecture: bool = False) -> Chart:
    """The attention weights of the segment's queries over ``[memory | segment]``."""
    t = _terms(q_len, mem_len, dim, seed)
    q_pos, k_pos = _axes(q_len, mem_len)
    weights = t.weights.numpy()
    figure = heatmap(
        np.where(txl_mask(q_len, mem_len).numpy(), np.nan, weights).astype(np.float32),
        q_pos=q_pos,
        k_pos=k_pos,
        title=_("Keys reach back into the memory: {mem_len} cached positions before the segment").format(
            mem_len=mem_len
        ),
        subtitle=subtitle_lines(
            _("each query sees the whole memory and the segment up to itself"),
            _("the memory is the previous segment's hidden states, kept without gradient (_update_mems)"),
        ),
        value_name=_("weight"),
        lecture=lecture,
        zmin=0.0,
        mask=txl_mask(q_len, mem_len).numpy(),
        mask_label=_("key after the query: masked"),
    )
    return Chart.of(_lecture_cells(figure.to_dict(), len(k_pos), lecture), lambda: matrix_csv(weights, q_pos, k_pos))


def compare_row(*, seq_len: int, dim: int, base: float, causal: bool) -> tuple[str, str, int, str]:
    """Transformer-XL's row of the compare page's properties table: ``W_R``, ``u`` and ``v`` of one head."""
    stops = _("no limit; R's slowest period {period} tokens (base 10000)").format(
        period=f"{txl_slowest_period(2 * dim):,.0f}"
    )
    return (_("relative, sinusoid through W_R in q·k, biases u, v"), _("learned"), txl_parameter_count(dim), stops)

"""Shaw et al. relative positions: clipped index, embedding table, lookup, scores, memory."""

import streamlit as st

from posviz.figures import shaw as fig
from posviz.figures.common import bytes_figure
from posviz.ui.chrome import page_header, prose, rule_error, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import cache_figures, columns_csv, matrix_csv, panels_csv, show_figure
from posviz.ui.shaw import (
    TOY_MAX_LEN,
    index_view,
    memory_view,
    row_view,
    shaw_controls,
    shaw_problem,
    table_view,
    toy_view,
)
from posviz.ui.shaw_snippets import shaw_snippet
from posviz.ui.texts import shaw as text

s = shaw_controls()
lecture = lecture_mode()
cache_figures("shaw", s, lecture)  # every figure below depends on these only
page_header("Shaw relative positions", "Shaw et al. 2018 · a learned vector per clipped distance, for keys and values")
prose(text.INTRO, label="What Shaw et al. do")
problem = shaw_problem(s)
if problem:
    rule_error(problem)
    st.stop()

iv = index_view(s.q_len, s.k_len, s.align, s.clip)
ax = iv.ax
shown = dict(q_pos=ax.q_pos, k_pos=ax.k_pos, q_len=s.q_len, k_len=s.k_len, lecture=lecture)

section("1 · Distance, clip, index")
prose(text.INDEX)
show_figure(
    lambda: fig.index_figure(iv.rel, iv.index, clip=s.clip, **shown),
    name="shaw_index",
    alt="Three heatmaps: the distance j - i, its clip to [-K, K], and the table row it selects.",
    csv=lambda: panels_csv({"r = j - i": iv.rel, "index": iv.index}, ax.q_pos, ax.k_pos),
    code=shaw_snippet(s, part="index", q_stride=ax.q_stride, k_stride=ax.k_stride),
)

section("2 · The embedding table")
prose(text.TABLE)
table_k, table_v = table_view(s.clip, s.dim, s.seed, s.separate)
tables = {"a^K (keys)": table_k, "a^V (values)": table_v} if s.separate else {"a^K = a^V (shared)": table_k}
show_figure(
    lambda: fig.table_figure(tables, clip=s.clip, lecture=lecture),
    name="shaw_table",
    alt="Heatmap of the relative embedding table, one row per clipped distance.",
    csv=lambda: columns_csv({f"{n} component {c}": t[:, c] for n, t in tables.items() for c in range(t.shape[1])}),
    code=shaw_snippet(s, part="table"),
)

section("3 · The lookup R = table[index], one query row")
prose(text.ROW)
rv = row_view(s.q_len, s.k_len, s.align, s.clip, s.dim, s.seed, s.row)
stride = int(rv.k_pos[1] - rv.k_pos[0]) if len(rv.k_pos) > 1 else 1
show_figure(
    lambda: fig.relations_figure(
        rv.relations, row=rv.position, k_pos=rv.k_pos, k_len=s.k_len, clip=s.clip, index_row=rv.index, lecture=lecture
    ),
    name=f"shaw_R_row_{rv.position}",
    alt=f"Heatmap of the vectors R[{rv.position}, j] for every key j.",
    csv=lambda: columns_csv(
        {"key j": rv.k_pos, "table row": rv.index, **{f"component {c}": rv.relations[:, c] for c in range(s.dim)}}
    ),
    code=shaw_snippet(s, part="row", k_stride=stride),
)

section("4 · Scores and attention")
prose(text.SCORES)
tv = toy_view(s.toy_q_len, s.toy_k_len, s.align, s.clip, s.dim, s.seed, s.separate)
tx = tv.ax
toy_shown = dict(q_pos=tx.q_pos, k_pos=tx.k_pos, q_len=s.toy_q_len, k_len=s.toy_k_len, lecture=lecture)
if s.q_len > TOY_MAX_LEN or s.k_len > TOY_MAX_LEN:
    st.info(
        f"The toy attention uses content (random queries, keys, values), so its softmax needs every key: "
        f"it runs on the first {s.toy_q_len} queries and {s.toy_k_len} keys (at most {TOY_MAX_LEN}).",
        icon=":material/info:",
    )
toy_code = shaw_snippet(s, part="toy", q_stride=tx.q_stride, k_stride=tx.k_stride)
show_figure(
    lambda: fig.scores_figure(tv.content, tv.relative, **toy_shown),
    name="shaw_scores",
    alt="Two heatmaps: content scores Q K^T and relative scores Q R^T.",
    csv=lambda: panels_csv({"Q K^T": tv.content, "Q R^T": tv.relative}, tx.q_pos, tx.k_pos),
    code=toy_code,
)
show_figure(
    lambda: fig.attention_figure(tv.without, tv.with_rel, **toy_shown),
    name="shaw_attention",
    alt="Two heatmaps: attention weights without and with the relative term.",
    csv=lambda: panels_csv({"without": tv.without, "with": tv.with_rel}, tx.q_pos, tx.k_pos),
    code=toy_code,
)
show_figure(
    lambda: fig.value_term_figure(
        tv.value_term, q_pos=tx.q_pos, q_len=s.toy_q_len, shared=not s.separate, lecture=lecture
    ),
    name="shaw_value_term",
    alt="Heatmap of what the value table adds to each query's output.",
    csv=lambda: matrix_csv(tv.value_term, tx.q_pos, range(s.dim)),
    code=toy_code,
)

section("5 · The memory bill")
prose(text.MEMORY)
lengths, r_bytes, logit_bytes, allocated = memory_view(s.dim, s.clip)
show_figure(
    lambda: bytes_figure(
        lengths,
        {f"R (L, L, {s.dim})": (r_bytes, allocated), "logits (L, L)": (logit_bytes, allocated)},
        title="Bytes of R = table[index] as L grows: O(L² d)",
        subtitle=f"float32, q_len = k_len = L, dim = {s.dim}; R is dim times the logits",
        current=max(s.q_len, s.k_len),
        lecture=lecture,
    ),
    name="shaw_memory",
    alt="Log-log chart of the bytes of R against the sequence length.",
    csv=lambda: columns_csv({"L": lengths, "R bytes": r_bytes, "logits bytes": logit_bytes, "allocated": allocated}),
)
here = s.q_len * s.k_len * s.dim * 4
st.caption(f"At the current settings R would take {here:,} bytes ({here / 2**20:,.1f} MiB) per head and layer.")

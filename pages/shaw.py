"""Shaw et al. relative positions: clipped index, embedding table, lookup, scores, memory."""

import streamlit as st

from posviz.figures.memory import human_bytes
from posviz.ui.chrome import page_header, prose, rule_error, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.sections import on_demand
from posviz.ui.settings import project, read_settings
from posviz.ui.shaw import charts, texts
from posviz.ui.shaw.settings import (
    TOY_MAX_LEN,
    BytesKey,
    IndexKey,
    ScoreKey,
    ShawSettings,
    TableKey,
    problem,
    row_key,
    toy_key,
)
from posviz.ui.shaw.snippets import shaw_snippet
from posviz.ui.shaw.views import main_axes, pair_axes, row_view

s = read_settings(ShawSettings)
lecture = lecture_mode()
page_header("Shaw relative positions", "Shaw et al. 2018 · a learned vector per clipped distance, for keys and values")
prose(texts.INTRO, label="What Shaw et al. do")
if problem(s):
    rule_error(problem(s))
    st.stop()

ik = project(s, IndexKey)
ax = main_axes(ik)

section("1 · Distance, clip, index")
prose(texts.INDEX)
show_figure(
    charts.index(ik, lecture),
    name="shaw_index",
    alt="Three heatmaps: the distance j - i, its clip to [-K, K], and the table row it selects.",
    code=shaw_snippet(s, part="index", axes=ax),
)

section("2 · The embedding table")
prose(texts.TABLE)
tk = project(s, TableKey)
show_figure(
    charts.table(tk, lecture),
    name="shaw_table",
    alt="Heatmap of the relative embedding table, one row per clipped distance.",
    code=shaw_snippet(s, part="table"),
)

section("3 · The lookup R = table[index], one query row")
prose(texts.ROW)
rk = row_key(s)
rv = row_view(rk)
show_figure(
    charts.relations_row(rk, lecture),
    name=f"shaw_R_row_{rv.position}",
    slot="shaw_R_row",
    alt=f"Heatmap of the vectors R[{rv.position}, j] for every key j.",
    code=shaw_snippet(s, part="row", k_stride=rv.k_stride),
)

section("4 · Scores and attention")
prose(texts.SCORES)
with on_demand(texts.SHOW_SCORES) as shown:
    if shown:
        toy = toy_key(s)
        sk, tx = project(toy, ScoreKey), pair_axes(toy)
        if (toy.q_len, toy.k_len) != (s.q_len, s.k_len):
            st.info(texts.TOY_CAP.format(q_len=toy.q_len, k_len=toy.k_len, cap=TOY_MAX_LEN), icon=":material/info:")
        toy_code = shaw_snippet(s, part="toy", axes=tx)
        show_figure(
            charts.scores(sk, lecture),
            name="shaw_scores",
            alt="Two heatmaps: content scores Q K^T and relative scores Q R^T.",
            code=toy_code,
        )
        show_figure(
            charts.attention(sk, lecture),
            name="shaw_attention",
            alt="Two heatmaps: attention weights without and with the relative term.",
            code=toy_code,
        )
        show_figure(
            charts.value_term(toy, lecture),
            name="shaw_value_term",
            alt="Heatmap of what the value table adds to each query's output.",
            code=toy_code,
        )

section("5 · The memory bill")
prose(texts.MEMORY)
with on_demand(texts.SHOW_MEMORY) as shown:
    if shown:
        bk = project(s, BytesKey)
        show_figure(
            charts.memory(bk, max(s.q_len, s.k_len), lecture),
            name="shaw_memory",
            alt="Log-log chart of the bytes of R against the sequence length.",
        )
here = s.q_len * s.k_len * s.dim * 4
st.caption(f"At the current settings R would take {here:,} bytes ({human_bytes(here)}) per head and layer.")

"""Shaw et al. relative positions: clipped index, embedding table, lookup, scores, memory."""

import streamlit as st

from posviz.figures import shaw, shaw_toy
from posviz.figures.memory import human_bytes
from posviz.i18n import _
from posviz.ui.cache import chart
from posviz.ui.chrome import page_header, prose, rule_error, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.settings import read_settings
from posviz.ui.shaw import texts
from posviz.ui.shaw.settings import TOY_MAX_LEN, ShawSettings, problem
from posviz.ui.shaw.snippets import shaw_snippet

s = read_settings(ShawSettings)
lecture = lecture_mode()
page_header(
    _("Shaw relative positions"), _("Shaw et al. 2018 · a learned vector per clipped distance, for keys and values")
)
prose(_(texts.INTRO), label=_("What Shaw et al. do"))
if problem(s):
    rule_error(problem(s))
    st.stop()

zoom = dict(window=s.window, q_start=s.q_start, k_start=s.k_start)
lengths = dict(q_len=s.q_len, k_len=s.k_len, align=s.align)
tables = dict(clip=s.clip, dim=s.dim, seed=s.seed)

section("1 · Distance, clip, index")
prose(_(texts.INDEX))
show_figure(
    chart(shaw.index, **lengths, clip=s.clip, **zoom, lecture=lecture),
    name="shaw_index",
    alt=_("Three heatmaps: the distance j - i, its clip to [-K, K], and the table row it selects."),
    code=shaw_snippet(s, part="index", axes=shaw.main_axes(**lengths, **zoom)),
)

section("2 · The embedding table")
prose(_(texts.TABLE))
show_figure(
    chart(shaw.table, **tables, separate=s.separate, lecture=lecture),
    name="shaw_table",
    alt=_("Heatmap of the relative embedding table, one row per clipped distance."),
    code=shaw_snippet(s, part="table"),
)

section("3 · The lookup R = table[index], one query row")
prose(_(texts.ROW))
position = s.shown_row + s.offset
show_figure(
    chart(shaw.relations_row, **lengths, **tables, row=s.shown_row, lecture=lecture),
    name=f"shaw_R_row_{position}",
    slot="shaw_R_row",
    alt=_("Heatmap of the vectors R[{position}, j] for every key j.").format(position=position),
    code=shaw_snippet(s, part="row", k_stride=shaw.row_stride(s.k_len)),
)

section("4 · Scores and attention")
prose(_(texts.SCORES))
with texts.opened(texts.SHOW_SCORES) as shown:
    if shown:
        toy = dict(q_len=s.toy_q_len, k_len=s.toy_k_len, align=s.align)  # both capped: q_len <= k_len stays true
        if (s.toy_q_len, s.toy_k_len) != (s.q_len, s.k_len):
            st.info(
                _(texts.TOY_CAP).format(q_len=s.toy_q_len, k_len=s.toy_k_len, cap=TOY_MAX_LEN), icon=":material/info:"
            )
        toy_code = shaw_snippet(s, part="toy", axes=shaw_toy.pair_axes(**toy, **zoom))
        show_figure(
            chart(shaw_toy.scores, **toy, **tables, **zoom, lecture=lecture),
            name="shaw_scores",
            alt=_("Two heatmaps: content scores Q K^T and relative scores Q R^T."),
            code=toy_code,
        )
        show_figure(
            chart(shaw_toy.attention, **toy, **tables, **zoom, lecture=lecture),
            name="shaw_attention",
            alt=_("Two heatmaps: attention weights without and with the relative term."),
            code=toy_code,
        )
        show_figure(
            chart(shaw_toy.value_term, **toy, **tables, separate=s.separate, **zoom, lecture=lecture),
            name="shaw_value_term",
            alt=_("Heatmap of what the value table adds to each query's output."),
            code=toy_code,
        )

section("5 · The memory bill")
prose(_(texts.MEMORY))
with texts.opened(texts.SHOW_MEMORY) as shown:
    if shown:
        show_figure(
            chart(shaw.memory, dim=s.dim, clip=s.clip, current=max(s.q_len, s.k_len), lecture=lecture),
            name="shaw_memory",
            alt=_("Log-log chart of the bytes of R against the sequence length."),
        )
here = s.q_len * s.k_len * s.dim * 4
st.caption(
    _("At the current settings R would take {bytes} bytes ({human}) per head and layer.").format(
        bytes=f"{here:,}", human=human_bytes(here)
    )
)

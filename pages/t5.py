"""T5 relative position bias: buckets, bias tensor, and its effect on attention."""

from dataclasses import replace

import streamlit as st

from posviz.figures import t5, t5_attention, t5_bias, t5_pipeline
from posviz.i18n import _
from posviz.ui.cache import chart, data
from posviz.ui.chrome import page_header, prose, rule_error, section, short_code
from posviz.ui.controls import lecture_mode, step_through
from posviz.ui.exports import show_figure
from posviz.ui.language import fragment
from posviz.ui.settings import read_settings
from posviz.ui.t5 import texts
from posviz.ui.t5.notes import pitfall_shape_note, step_note
from posviz.ui.t5.settings import T5Settings, problem
from posviz.ui.t5.snippets import row_line, t5_snippet
from posviz.ui.t5.table import bias_table_input
from posviz.ui.tables import static_table
from posviz.ui.zoom import box_zoom

s = read_settings(T5Settings)
lecture = lecture_mode()
page_header(_("T5 relative position bias"), _("Raffel et al. 2020 · one learned scalar per head and distance bucket"))
prose(_(texts.INTRO), label=_("What T5 does"))
st.latex(texts.BUCKET_FORMULA)
st.caption(_(texts.BUCKET_FORMULA_NOTE))
if problem(s):
    rule_error(problem(s))
    st.stop()

zoom = dict(window=s.window, q_start=s.q_start, k_start=s.k_start)
cells = dict(q_len=s.q_len, k_len=s.k_len, align=s.align, **zoom)  # where a matrix's cells sit
buckets = dict(cells, bidirectional=s.bidirectional, num_buckets=s.num_buckets, max_distance=s.max_distance)
ax = t5.shown_axes(**cells)
bucket_code = t5_snippet(s, part="bucket", axes=ax)

section("1 · Relative positions")
prose(_(texts.RELATIVE))
show_figure(
    chart(t5.relative_positions, **cells, lecture=lecture),
    name="t5_relative_positions",
    alt=_("Heatmap of r = j - i for every query and key."),
    code=bucket_code,
)

section("2 · The bucket pipeline, step by step")


@fragment  # Previous / Next and the step slider rerun only this section
def pipeline_steps() -> None:
    step = step_through([title for _key, title in t5_pipeline.PIPELINE_STEPS])
    show_figure(
        chart(t5_pipeline.pipeline_step, max_entries=64, **buckets, step=step, lecture=lecture),  # six steps a view
        name=f"t5_step_{step}",
        slot="t5_step",
        alt=_("Heatmap of pipeline step {step}.").format(step=step),
        code=t5_snippet(s, part="steps", axes=ax),
    )
    st.info(step_note(_(texts.STEP_NOTES[step - 1]), s), icon=":material/footprint:")


pipeline_steps()

section("3 · Bucket index of every pair")
st.caption(_(texts.BOX_ZOOM))
show_figure(
    chart(t5.buckets, **buckets, lecture=lecture),
    name="t5_buckets",
    alt=_("Heatmap of the T5 bucket index for every query and key."),
    code=bucket_code,
    on_select=box_zoom("t5_buckets"),
)
show_figure(
    chart(t5.bucket_profile, **buckets, lecture=lecture),
    name="t5_bucket_profile",
    alt=_("Step chart of the bucket against the relative position."),
    code=t5_snippet(s, part="profile", r_range=t5.profile_range(s.max_distance)),
)

section("4 · What each bucket covers")
prose(_(texts.TABLE))
frame, notes = data(t5.bucket_table_and_notes, **buckets)
for note in notes:
    st.markdown(f"- {note}")
static_table(frame, label=_("What each bucket covers"), max_rows=14)

section("5 · The bias tensor, head by head")
prose(_(texts.BIAS))
table, seeded = bias_table_input(s)
custom = None if seeded else table.tolist()
bias = dict(buckets, heads=s.heads, scale=s.scale, seed=s.seed, table=None if seeded else table.tobytes())
with texts.opened(texts.SHOW_BIAS) as shown:
    if shown:
        show_figure(
            chart(t5_bias.head_bias, **bias, head=s.head, lecture=lecture),
            name=f"t5_bias_head_{s.head}",
            slot="t5_bias_head",
            alt=_("Heatmap of the bias added to head {head}.").format(head=s.head),
            code=t5_snippet(s, part="bias", table=custom, axes=ax),
        )
        show_figure(
            chart(t5_bias.bias_grid, **bias, lecture=lecture),
            name="t5_bias_all_heads",
            alt=_("Small multiples of every head's bias."),
            code=t5_snippet(s, part="bias", table=custom, axes=t5_bias.grid_axes(**cells, heads=s.heads)),
        )

section("6 · The effect on attention")
prose(_(texts.ATTENTION).format(dim=t5_attention.TOY_DIM))
with texts.opened(texts.SHOW_ATTENTION) as shown:
    if shown:
        q_len, k_len = t5_attention.toy_lengths(s.q_len, s.k_len)
        toy = replace(s, q_len=q_len, k_len=k_len)  # lengths capped: the softmax runs over every key
        if (q_len, k_len) != (s.q_len, s.k_len):
            st.caption(_(texts.TOY_CAP).format(cap=t5_attention.TOY_MAX_LEN, q_len=q_len, k_len=k_len, align=s.align))
        attention = dict(bias, q_len=q_len, k_len=k_len, head=s.head)
        pair = t5_attention.pair_axes(q_len=q_len, k_len=k_len, align=s.align, **zoom)
        mid, query = t5_attention.middle_query(pair)
        attention_code = t5_snippet(toy, part="attention", table=custom, toy_dim=t5_attention.TOY_DIM, axes=pair)
        show_figure(
            chart(t5_attention.attention, **attention, lecture=lecture),
            name=f"t5_attention_head_{s.head}",
            slot="t5_attention",
            alt=_("Attention weights without and with the bias."),
            code=attention_code,
        )
        show_figure(
            chart(t5_attention.attention_row, **attention, lecture=lecture),
            name=f"t5_attention_row_head_{s.head}",
            slot="t5_attention_row",
            alt=_("One query's attention weights over the keys, without and with the bias."),
            code=attention_code + row_line(mid, query),
        )

section("7 · The shape pitfall: transpose(0, 2) against permute(2, 0, 1)")
prose(_(texts.PITFALL))
short_code(_(texts.PITFALL_CODE).format(q=s.q_len, k=s.k_len, h=s.heads))
if s.q_len != s.k_len:
    st.warning(pitfall_shape_note(s))
else:
    with texts.opened(texts.SHOW_PITFALL) as shown:
        if shown:
            show_figure(
                chart(t5_bias.pitfall, **bias, head=s.head, lecture=lecture),
                name="t5_transpose_pitfall",
                alt=_("Correct bias, transposed bias, and their difference."),
                code=t5_snippet(s, part="pitfall", table=custom, axes=t5_bias.pitfall_axes(**cells)),
            )

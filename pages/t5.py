"""T5 relative position bias: buckets, bias tensor, and its effect on attention."""

import streamlit as st

from posviz.figures.t5 import PIPELINE_STEPS
from posviz.ui.chrome import page_header, prose, rule_error, section, short_code
from posviz.ui.controls import lecture_mode, step_through
from posviz.ui.exports import show_figure
from posviz.ui.sections import on_demand
from posviz.ui.settings import project, read_settings
from posviz.ui.t5 import charts, texts, views
from posviz.ui.t5.notes import pitfall_shape_note, step_note
from posviz.ui.t5.settings import TOY_DIM, TOY_MAX_LEN, AttentionKey, BucketKey, GridKey, HeadKey, T5Settings, problem
from posviz.ui.t5.snippets import t5_snippet
from posviz.ui.t5.table import bias_table_input
from posviz.ui.t5.views import grid_axes, main_axes, pair_axes, pitfall_axes, toy_key
from posviz.ui.tables import static_table
from posviz.ui.zoom import box_zoom

s = read_settings(T5Settings)
lecture = lecture_mode()
page_header("T5 relative position bias", "Raffel et al. 2020 · one learned scalar per head and distance bucket")
prose(texts.INTRO, label="What T5 does")
st.latex(texts.BUCKET_FORMULA)
st.caption(texts.BUCKET_FORMULA_NOTE)
if problem(s):
    rule_error(problem(s))
    st.stop()

bk = project(s, BucketKey)
summary, ax = views.bucket_summary(bk), main_axes(bk)  # the steps themselves: bucket_view, on export
bucket_code = t5_snippet(s, part="bucket", axes=ax)

section("1 · Relative positions")
prose(texts.RELATIVE)
show_figure(
    charts.relative_positions(bk, lecture),
    name="t5_relative_positions",
    alt="Heatmap of r = j - i for every query and key.",
    code=bucket_code,
)

section("2 · The bucket pipeline, step by step")


@st.fragment  # Previous / Next and the step slider rerun only this section
def pipeline_steps() -> None:
    step = step_through([title for _, title in PIPELINE_STEPS])
    show_figure(
        charts.pipeline_step(bk, step, lecture),
        name=f"t5_step_{step}",
        slot="t5_step",
        alt=f"Heatmap of pipeline step {step}.",
        code=t5_snippet(s, part="steps", axes=ax),
    )
    st.info(step_note(texts.STEP_NOTES[step - 1], bk, summary.max_exact), icon=":material/footprint:")


pipeline_steps()

section("3 · Bucket index of every pair")
st.caption(texts.BOX_ZOOM)
show_figure(
    charts.buckets(bk, lecture),
    name="t5_buckets",
    alt="Heatmap of the T5 bucket index for every query and key.",
    code=bucket_code,
    on_select=box_zoom("t5_buckets"),
)
show_figure(
    charts.bucket_profile(bk, lecture),
    name="t5_bucket_profile",
    alt="Step chart of the bucket against the relative position.",
    code=t5_snippet(s, part="profile", r_range=summary.profile_range),
)

section("4 · What each bucket covers")
prose(texts.TABLE)
frame = summary.ranges_table
for note in summary.notes:
    st.markdown(f"- {note}")
static_table(frame, label="What each bucket covers", max_rows=14)

section("5 · The bias tensor, head by head")
prose(texts.BIAS)
table, seeded = bias_table_input(s)
custom = None if seeded else table.tolist()
tb, hk, gk = table.tobytes(), project(s, HeadKey), project(s, GridKey)
with on_demand(texts.SHOW_BIAS) as shown:
    if shown:
        show_figure(
            charts.head_bias(hk, tb, lecture),
            name=f"t5_bias_head_{s.head}",
            slot="t5_bias_head",
            alt=f"Heatmap of the bias added to head {s.head}.",
            code=t5_snippet(s, part="bias", table=custom, axes=ax),
        )
        show_figure(
            charts.bias_grid(gk, tb, lecture),
            name="t5_bias_all_heads",
            alt="Small multiples of every head's bias.",
            code=t5_snippet(s, part="bias", table=custom, axes=grid_axes(gk)),
        )

section("6 · The effect on attention")
prose(texts.ATTENTION.format(dim=TOY_DIM))
with on_demand(texts.SHOW_ATTENTION) as shown:
    if shown:
        toy = toy_key(project(s, AttentionKey))
        if (toy.q_len, toy.k_len) != (s.q_len, s.k_len):
            st.caption(texts.TOY_CAP.format(cap=TOY_MAX_LEN, q_len=toy.q_len, k_len=toy.k_len, align=s.align))
        mid, query = charts.middle_query(toy)
        attention_code = t5_snippet(toy, part="attention", table=custom, toy_dim=TOY_DIM, axes=pair_axes(toy))
        show_figure(
            charts.attention(toy, tb, lecture),
            name=f"t5_attention_head_{s.head}",
            slot="t5_attention",
            alt="Attention weights without and with the bias.",
            code=attention_code,
        )
        show_figure(
            charts.attention_row(toy, tb, lecture),
            name=f"t5_attention_row_head_{s.head}",
            slot="t5_attention_row",
            alt="One query's attention weights over the keys, without and with the bias.",
            code=attention_code + f"row = {mid}  # query i = {query}: weights_no_bias[row], weights[row]\n",
        )

section("7 · The shape pitfall: transpose(0, 2) against permute(2, 0, 1)")
prose(texts.PITFALL)
short_code(texts.PITFALL_CODE.format(q=s.q_len, k=s.k_len, h=s.heads))
if s.q_len != s.k_len:
    st.warning(pitfall_shape_note(hk))
else:
    with on_demand(texts.SHOW_PITFALL) as shown:
        if shown:
            show_figure(
                charts.pitfall(hk, tb, lecture),
                name="t5_transpose_pitfall",
                alt="Correct bias, transposed bias, and their difference.",
                code=t5_snippet(s, part="pitfall", table=custom, axes=pitfall_axes(hk)),
            )

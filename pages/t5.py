"""T5 relative position bias: buckets, bias tensor, and its effect on attention."""

import streamlit as st

from posviz.figures import t5 as fig
from posviz.ui.chrome import page_header, prose, rule_error, section
from posviz.ui.controls import lecture_mode, step_through
from posviz.ui.exports import cache_figures, columns_csv, matrix_csv, panels_csv, show_figure
from posviz.ui.snippets import t5_snippet
from posviz.ui.t5 import (
    MAIN_POINTS,
    PAIR_POINTS,
    TOY_DIM,
    TOY_MAX_LEN,
    attention_view,
    axes,
    bias_view,
    bucket_notes,
    bucket_view,
    last_bucket_start,
    pitfall_shape_note,
    ranges_frame,
    step_note,
    t5_controls,
    t5_problem,
    toy_settings,
)
from posviz.ui.t5_table import bias_table_input
from posviz.ui.texts import t5 as text

s = t5_controls()
lecture = lecture_mode()
cache_figures("t5", s, lecture)  # the figures up to the bias table depend on these only
page_header("T5 relative position bias", "Raffel et al. 2020 · one learned scalar per head and distance bucket")
prose(text.INTRO, label="What T5 does")
st.latex(
    r"\text{bucket}(n)=\begin{cases} n & n < \text{max\_exact}\\ \min\!\Big(\text{nb}-1,\ \text{max\_exact}+"
    r"\Big\lfloor \tfrac{\log(n/\text{max\_exact})}{\log(\text{max\_distance}/\text{max\_exact})}"
    r"\,(\text{nb}-\text{max\_exact})\Big\rfloor\Big) & \text{otherwise}\end{cases}"
)
st.caption(
    "n: the distance (step 1 below); nb: buckets per direction (num_buckets // 2 when bidirectional, "
    "else num_buckets); max_exact = nb // 2; future keys of a bidirectional bucket add nb."
)
problem = t5_problem(s)
if problem:
    rule_error(problem)
    st.stop()

view = bucket_view(s.q_len, s.k_len, s.align, s.num_buckets, s.max_distance, s.bidirectional)
ax = axes(s.q_len, s.k_len, s.align, MAIN_POINTS)
shown = dict(q_pos=ax.q_pos, k_pos=ax.k_pos, q_len=s.q_len, k_len=s.k_len, lecture=lecture)
strides = dict(q_stride=ax.q_stride, k_stride=ax.k_stride)
bucket_code = t5_snippet(s, part="bucket", **strides)

section("1 · Relative positions")
prose(text.RELATIVE)
show_figure(
    lambda: fig.relative_position_figure(view.steps.relative_position, **shown),
    name="t5_relative_positions",
    alt="Heatmap of r = j - i for every query and key.",
    csv=lambda: matrix_csv(view.steps.relative_position, ax.q_pos, ax.k_pos),
    code=bucket_code,
)

section("2 · The bucket pipeline, step by step")


# A fragment: Previous / Next and the step slider rerun only this section.
@st.fragment
def pipeline_steps() -> None:
    step = step_through([title for _, title in fig.PIPELINE_STEPS])
    show_figure(
        lambda: fig.pipeline_figure(
            view.steps, step, num_buckets=s.num_buckets, bidirectional=s.bidirectional, **shown
        ),
        name=f"t5_step_{step}",
        alt=f"Heatmap of pipeline step {step}.",
        csv=lambda: matrix_csv(fig.pipeline_matrix(view.steps, step), ax.q_pos, ax.k_pos),
        code=t5_snippet(s, part="steps", **strides),
    )
    st.info(step_note(text.STEP_NOTES[step - 1], s, view.max_exact), icon=":material/footprint:")


pipeline_steps()

section("3 · Bucket index of every pair")
show_figure(
    lambda: fig.bucket_figure(view.steps.bucket, num_buckets=s.num_buckets, **shown),
    name="t5_buckets",
    alt="Heatmap of the T5 bucket index for every query and key.",
    csv=lambda: matrix_csv(view.steps.bucket, ax.q_pos, ax.k_pos),
    code=bucket_code,
)
show_figure(
    lambda: fig.bucket_profile_figure(
        view.profile_r,
        view.profile_bucket,
        max_exact=view.max_exact,
        max_distance=s.max_distance,
        bidirectional=s.bidirectional,
        last_start=last_bucket_start(view.ranges),
        view_r=(view.r_min, view.r_max),
        lecture=lecture,
    ),
    name="t5_bucket_profile",
    alt="Step chart of the bucket against the relative position.",
    csv=lambda: columns_csv({"r = j - i": view.profile_r, "bucket": view.profile_bucket}),
    code=t5_snippet(s, part="profile", r_range=(int(view.profile_r[0]), int(view.profile_r[-1]))),
)

section("4 · What each bucket covers")
prose(text.TABLE)
frame = ranges_frame(view.ranges, r_min=view.r_min, r_max=view.r_max, max_distance=s.max_distance)
for note in bucket_notes(frame):
    st.markdown(f"- {note}")
st.dataframe(frame, height=min(38 + 35 * len(frame), 600 if lecture else 420))

section("5 · The bias tensor, head by head")
prose(text.BIAS)
table, seeded = bias_table_input(s)
custom = None if seeded else table.tolist()
tb = table.tobytes()
cache_figures("t5", s, lecture, tb)  # from here on the figures also depend on the table
bv = bias_view(tb, s.num_buckets, s.heads, s.head, s.q_len, s.k_len, s.align, s.max_distance, s.bidirectional, s.scale)
show_figure(
    lambda: fig.bias_figure(bv.bias, head=s.head, **shown),
    name=f"t5_bias_head_{s.head}",
    alt=f"Heatmap of the bias added to head {s.head}.",
    csv=lambda: matrix_csv(bv.bias, ax.q_pos, ax.k_pos),
    code=t5_snippet(s, part="bias", table=custom, **strides),
)
gx = bv.grid_axes
show_figure(
    lambda: fig.bias_grid_figure(
        bv.grid, q_pos=gx.q_pos, k_pos=gx.k_pos, q_len=s.q_len, k_len=s.k_len, lecture=lecture
    ),
    name="t5_bias_all_heads",
    alt="Small multiples of every head's bias.",
    csv=lambda: panels_csv({f"head {h}": z for h, z in enumerate(bv.grid)}, gx.q_pos, gx.k_pos),
    code=t5_snippet(s, part="bias", table=custom, q_stride=gx.q_stride, k_stride=gx.k_stride),
)

section("6 · The effect on attention")
prose(text.ATTENTION.format(dim=TOY_DIM))
toy = toy_settings(s)
if (toy.q_len, toy.k_len) != (s.q_len, s.k_len):
    st.caption(
        f"The toy softmax runs over at most {TOY_MAX_LEN} keys: this section uses q_len = {toy.q_len}, "
        f"k_len = {toy.k_len} (queries at the {s.align} of the keys); the position bias is the same function of r."
    )
pair = axes(toy.q_len, toy.k_len, s.align, PAIR_POINTS)
without, with_bias = attention_view(
    tb, s.num_buckets, s.heads, s.head, toy.q_len, toy.k_len, s.align, s.max_distance, s.bidirectional, s.scale, s.seed
)
attention_code = t5_snippet(
    toy, part="attention", table=custom, toy_dim=TOY_DIM, q_stride=pair.q_stride, k_stride=pair.k_stride
)
show_figure(
    lambda: fig.attention_figure(
        without,
        with_bias,
        head=s.head,
        q_pos=pair.q_pos,
        k_pos=pair.k_pos,
        q_len=toy.q_len,
        k_len=toy.k_len,
        lecture=lecture,
    ),
    name=f"t5_attention_head_{s.head}",
    alt="Attention weights without and with the bias.",
    csv=lambda: panels_csv({"without bias": without, "with bias": with_bias}, pair.q_pos, pair.k_pos),
    code=attention_code,
)
mid = len(pair.q_pos) // 2
query = int(pair.q_pos[mid])
show_figure(
    lambda: fig.attention_row_figure(
        without[mid], with_bias[mid], query=query, k_pos=pair.k_pos, k_len=toy.k_len, lecture=lecture
    ),
    name=f"t5_attention_row_head_{s.head}",
    alt="One query's attention weights over the keys, without and with the bias.",
    csv=lambda: columns_csv({"key j": pair.k_pos, "without bias": without[mid], "with bias": with_bias[mid]}),
    code=attention_code + f"row = {mid}  # query i = {query}: weights_no_bias[row], weights[row]\n",
)

section("7 · The shape pitfall: transpose(0, 2) against permute(2, 0, 1)")
prose(text.PITFALL)
st.code(
    f"values = table[bucket]                 # {(s.q_len, s.k_len, s.heads)}: (q_len, k_len, heads)\n"
    f"values.permute(2, 0, 1).unsqueeze(0)   # {(1, s.heads, s.q_len, s.k_len)}: correct\n"
    f"values.transpose(0, 2).unsqueeze(0)    # {(1, s.heads, s.k_len, s.q_len)}: the seeds",
    language="python",
)
if bv.pitfall is None:
    st.warning(pitfall_shape_note(s))
else:
    px = bv.pitfall_axes
    show_figure(
        lambda: fig.pitfall_figure(
            *bv.pitfall, head=s.head, q_pos=px.q_pos, k_pos=px.k_pos, q_len=s.q_len, k_len=s.k_len, lecture=lecture
        ),
        name="t5_transpose_pitfall",
        alt="Correct bias, transposed bias, and their difference.",
        csv=lambda: panels_csv(
            {"permute(2, 0, 1)": bv.pitfall[0], "transpose(0, 2)": bv.pitfall[1]}, px.q_pos, px.k_pos
        ),
        code=t5_snippet(s, part="pitfall", table=custom, q_stride=px.q_stride, k_stride=px.k_stride),
    )

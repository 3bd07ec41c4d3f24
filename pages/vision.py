"""Images and video: M-RoPE ids on the patch grid and along the sequence, t/h/w frequency pairs,
video time, the 2-D relative property, and how vision encoders split a head."""

import streamlit as st

from posviz.ui.chrome import page_header, prose, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.sections import on_demand
from posviz.ui.settings import project, read_settings
from posviz.ui.tables import static_table
from posviz.ui.vision import charts, snippets, texts
from posviz.ui.vision.settings import PRESETS, OffsetKey, SequenceKey, VisionSettings

s = read_settings(VisionSettings)
lecture = lecture_mode()
page_header(
    "Images and video: 2-D RoPE and M-RoPE",
    "Qwen2-VL, Qwen2.5-VL, Qwen3-VL, Pixtral, Gemma 4 · three position ids per token, as transformers 5.23 has them",
)
prose(texts.INTRO, label="What M-RoPE does")
st.latex(texts.FORMULA)
st.latex(texts.FORMULA_PAIRS)
sk = project(s, SequenceKey)
preset = PRESETS[s.vl_model]
ids_code = snippets.ids_snippet(sk)

section("1 · The patch grid and the sequence")
prose(texts.SEQUENCE)
show_figure(
    charts.grid(sk, lecture),
    name="vision_grid",
    alt="The image's and video's tokens as grids, each cell labelled with its t, h and w ids.",
    code=ids_code,
)
show_figure(
    charts.sequence(sk, lecture),
    name="vision_sequence",
    alt="The t, h and w ids of every token along the sequence, with text, image and video runs shaded.",
    code=ids_code,
)

section("2 · Which pairs carry time, height and width")
prose(texts.PAIRS)
side = max(s.image_rows, s.image_cols)
show_figure(
    charts.pairs(s.vl_model, side, lecture),
    name="vision_pairs",
    alt="Wavelength of every frequency pair, coloured by the id that turns it, in blocks and interleaved.",
    code=snippets.pairs_snippet(s.vl_model),
)
static_table(charts.axis_ranges(s.vl_model, side), label="Pairs and wavelengths per layout and axis", hide_index=True)
st.caption(f"{preset.name}: head_dim {preset.head_dim}, rope_theta {preset.rope_theta:,.0f}, mrope_section "
           f"{list(preset.mrope_section)}, {'interleaved' if preset.interleaved else 'in blocks'}.")  # fmt: skip

section("3 · The time axis of a video")
prose(texts.TIME)
if not s.video:
    st.info("Turn on 'A video after it' in the sidebar to see its time ids; shown here for one frame.")
show_figure(
    charts.time(sk, lecture),
    name="vision_time",
    alt="Time id of each temporal patch: frame index for Qwen2-VL and Qwen3-VL, seconds for Qwen2.5-VL.",
    code=snippets.time_snippet(sk),
)

section("4 · 2-D RoPE: the score depends only on the offset")
prose(texts.OFFSETS)
with on_demand(texts.SHOW_OFFSETS) as shown:
    if shown:
        ok = project(s, OffsetKey)
        show_figure(
            charts.offsets(ok, lecture),
            name="vision_offsets",
            alt="Two heatmaps of the score over offsets dh and dw, for two query patches: they agree.",
            code=snippets.offsets_snippet(ok),
        )

section("5 · How each encoder splits a head")
prose(texts.SPLIT)
with on_demand(texts.SHOW_SPLIT) as shown:
    if shown:
        show_figure(
            charts.split(lecture),
            name="vision_split",
            alt="For Pixtral, Qwen-VL and Gemma 4, each pair of a head coloured by row or column, by wavelength.",
            code=snippets.split_snippet(),
        )

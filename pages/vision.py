"""Images and video: M-RoPE ids on the patch grid and along the sequence, t/h/w frequency pairs,
video time, the 2-D relative property, how vision encoders split a head, video generators' 3-D RoPE
and V2PE's fractional ids."""

import streamlit as st

from posviz.figures import multimodal, multimodal_pairs, v2pe, video_rope
from posviz.i18n import _
from posviz.ui.cache import chart, data
from posviz.ui.chrome import page_header, prose, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.sections import on_demand
from posviz.ui.settings import read_settings
from posviz.ui.tables import static_table
from posviz.ui.vision import snippets, texts
from posviz.ui.vision.notes import preset_note
from posviz.ui.vision.settings import PRESETS, VisionSettings

s = read_settings(VisionSettings)
lecture = lecture_mode()
page_header(
    _("Images and video: 2-D RoPE and M-RoPE"),
    _("Qwen2-VL, Qwen2.5-VL, Qwen3-VL, Pixtral, Gemma 4 · three position ids per token, as transformers 5.23 has them"),
)
prose(_(texts.INTRO), label=_("What M-RoPE does"))
st.latex(texts.FORMULA)
st.latex(texts.FORMULA_PAIRS)
preset = PRESETS[s.vl_model]
ids_code = snippets.ids_snippet(s)
# What the sequence's ids depend on (not the encoder, nor the query patch).
prompt = dict(vl_model=s.vl_model, merge=s.merge, text_before=s.text_before, image_rows=s.image_rows,
              image_cols=s.image_cols, text_mid=s.text_mid, video=s.video, frames=s.frames,
              video_rows=s.video_rows, video_cols=s.video_cols, fps=s.fps, tokens_per_second=s.tokens_per_second,
              text_after=s.text_after)  # fmt: skip

section("1 · The patch grid and the sequence")
prose(_(texts.SEQUENCE))
show_figure(
    chart(multimodal.grid, **prompt, lecture=lecture),
    name="vision_grid",
    alt=_("The image's and video's tokens as grids, each cell labelled with its t, h and w ids."),
    code=ids_code,
)
show_figure(
    chart(multimodal.sequence, **prompt, lecture=lecture),
    name="vision_sequence",
    alt=_("The t, h and w ids of every token along the sequence, with text, image and video runs shaded."),
    code=ids_code,
)

section("2 · Which pairs carry time, height and width")
prose(_(texts.PAIRS))
side = max(s.image_rows, s.image_cols)
show_figure(
    chart(multimodal_pairs.pairs, vl_model=s.vl_model, side=side, lecture=lecture),
    name="vision_pairs",
    alt=_("Wavelength of every frequency pair, coloured by the id that turns it, in blocks and interleaved."),
    code=snippets.pairs_snippet(s.vl_model),
)
static_table(
    data(multimodal_pairs.axis_ranges, vl_model=s.vl_model, side=side),
    label=_("Pairs and wavelengths per layout and axis"),
    hide_index=True,
)
st.caption(preset_note(preset))

section("3 · The time axis of a video")
prose(_(texts.TIME))
if not s.video:
    st.info(_("Turn on 'A video after it' in the sidebar to see its time ids; shown here for one frame."))
video = dict(frames=s.frames if s.video else 1, merge=s.merge, video_rows=s.video_rows, video_cols=s.video_cols,
             fps=s.fps, tokens_per_second=s.tokens_per_second)  # fmt: skip
show_figure(
    chart(multimodal.time, **video, lecture=lecture),
    name="vision_time",
    alt=_("Time id of each temporal patch: frame index for Qwen2-VL and Qwen3-VL, seconds for Qwen2.5-VL."),
    code=snippets.time_snippet(s),
)

section("4 · 2-D RoPE: the score depends only on the offset")
prose(_(texts.OFFSETS))
with on_demand(texts.translated(texts.SHOW_OFFSETS)) as shown:
    if shown:
        # the image's patch grid, the encoder, the query patch, the vectors
        offsets = dict(encoder=s.encoder, height=s.image_rows * s.merge, width=s.image_cols * s.merge,
                       q_row=s.q_row, q_col=s.q_col, seed=s.seed)  # fmt: skip
        show_figure(
            chart(multimodal_pairs.offsets, **offsets, lecture=lecture),
            name="vision_offsets",
            alt=_("Two heatmaps of the score over offsets dh and dw, for two query patches: they agree."),
            code=snippets.offsets_snippet(s),
        )

section("5 · How each encoder splits a head")
prose(_(texts.SPLIT))
with on_demand(texts.translated(texts.SHOW_SPLIT)) as shown:
    if shown:
        show_figure(
            chart(multimodal_pairs.split, lecture=lecture),
            name="vision_split",
            alt=_("For Pixtral, Qwen-VL and Gemma 4, each pair of a head coloured by row or column, by wavelength."),
            code=snippets.split_snippet(),
        )

section("6 · Video generators' 3-D RoPE")
prose(_(texts.VIDEO_ROPE))
with on_demand(texts.translated(texts.SHOW_VIDEO_ROPE)) as shown:
    if shown:
        latent = dict(frames=s.latent_frames, height=s.latent_height, width=s.latent_width)
        show_figure(
            chart(video_rope.head, video_model=s.video_model, **latent, lecture=lecture),
            name="vision_video_head",
            alt=_(
                "cos of every pair's angle for every patch of the latent, with a strip of which axis turns each pair."
            ),
            code=snippets.video_head_snippet(s.video_model, **latent),
        )
        show_figure(
            chart(video_rope.ladders, video_model=s.video_model, side=max(latent.values()), lecture=lecture),
            name="vision_video_ladders",
            alt=_("Wavelength of every pair by axis: three restarted ladders, and Qwen3-VL's one interleaved ladder."),
            code=snippets.video_ladders_snippet(s.video_model),
        )

section("7 · V2PE: image tokens that step by a fraction")
prose(_(texts.V2PE))
with on_demand(texts.translated(texts.SHOW_V2PE)) as shown:
    if shown:
        stride = int(s.v2pe_stride)
        show_figure(
            chart(v2pe.ids, stride=stride, lecture=lecture),
            name="vision_v2pe_ids",
            alt=_("Position id of each token of text, a 256-token image and text: V2PE against ordinary ids."),
            code=snippets.v2pe_ids_snippet(stride),
        )
        show_figure(
            chart(v2pe.context, stride=stride, lecture=lecture),
            name="vision_v2pe_context",
            alt=_("Positions an image of 1 to 64 tiles takes, ordinary ids against V2PE, on a log scale."),
            code=snippets.v2pe_context_snippet(stride),
        )

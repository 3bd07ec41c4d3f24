"""RoPE: rotations, both layouts, the relative property, decay, and context-extension scaling."""

import streamlit as st

from posviz.ui.chrome import page_header, prose, rule_error, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.rope import charts, texts
from posviz.ui.rope.notes import layout_gap_note, relative_metrics, scaling_note, wavelength_sentence
from posviz.ui.rope.settings import SCORE_LEN, RopeSettings, keys, problem
from posviz.ui.rope.snippets import rope_snippet
from posviz.ui.rope.views import circles_view, cis_view, decay_view, relative_view, scaling_view
from posviz.ui.sections import on_demand
from posviz.ui.settings import read_settings
from posviz.ui.tables import static_table

s = read_settings(RopeSettings)
lecture = lecture_mode()
page_header("RoPE: rotary position embedding", "Su et al. 2021 · rotate q and k by angles proportional to position")
prose(texts.INTRO, label="What RoPE does")
st.latex(texts.FORMULA)
if problem(s):
    rule_error(problem(s))
    st.stop()

k = keys(s)
freq_code = rope_snippet(s, part="freq")

section("1 · Frequencies and wavelengths")
prose(texts.FREQUENCIES)
st.markdown(wavelength_sentence(k.scaling))
show_figure(
    charts.frequencies(k.scaling, lecture),
    name="rope_frequencies",
    alt="Frequency and wavelength of every pair on log axes, with the context length marked.",
    code=freq_code,
)

section("2 · The rotation matrix R_m, in both layouts")
prose(texts.MATRIX)
matrix_code = rope_snippet(s, part="matrix")
show_figure(
    charts.rotation(k.matrix, lecture),
    name=f"rope_matrix_{s.layout}",
    alt=f"Heatmap of the {s.dim} by {s.dim} rotation matrix at position m.",
    code=matrix_code,
)
show_figure(
    charts.permutation(k.permutation, lecture),
    name="rope_layout_permutation",
    alt="The permutation matrix between the interleaved and the half-split layout.",
    code=matrix_code,
)
st.caption(layout_gap_note(k.matrix))

section("3 · The complex view: freqs_cis")
prose(texts.CIS)
static_table(cis_view(k.freq), label="freqs_cis of the first positions")

section("4 · Each pair on its circle")
prose(texts.CIRCLES)
show_figure(
    charts.circles(k.pairs, lecture),
    name="rope_pair_circles",
    alt="Each shown pair of a random vector as arrows on its unit circle at positions 0, m and n.",
    code=rope_snippet(s, part="circles", pairs=circles_view(k.pairs).pairs.tolist()),
)

section("5 · The relative property, live")
prose(texts.RELATIVE)
for col, (label, value, more) in zip([*st.columns(2), *st.columns(2)], relative_metrics(k.relative), strict=True):
    col.metric(label, value, help=more)
with on_demand(texts.SHOW_RELATIVE) as shown:
    if shown:
        shifts = relative_view(k.relative).shifts.tolist()
        relative_code = rope_snippet(s, part="relative", shifts=shifts, score_len=SCORE_LEN)
        show_figure(
            charts.shift(k.relative, lecture),
            name="rope_shift",
            alt="The score of q at m + t and k at n + t against the shift t: a flat line.",
            code=relative_code,
        )
        show_figure(
            charts.scores(k.vectors, lecture),
            name="rope_scores",
            alt="Heatmap of the rotated score of one q and one k at every pair of positions: constant diagonals.",
            code=relative_code,
        )

section("6 · Long-term decay")
prose(texts.DECAY)
with on_demand(texts.SHOW_DECAY) as shown:
    if shown:
        show_figure(
            charts.decay(k.decay, lecture),
            name="rope_decay",
            alt="The RoFormer bound and measured mean scores against distance on a log axis.",
            code=rope_snippet(s, part="decay", distances=decay_view(k.decay).distances.tolist()),
        )

section("7 · Context-extension scaling")
prose(texts.SCALING)
st.info(scaling_note(k.scaling), icon=":material/straighten:")
with on_demand(texts.SHOW_SCALING) as shown:
    if shown:
        sv = scaling_view(k.scaling)
        show_figure(
            charts.scaling_frequencies(k.scaling, lecture),
            name="rope_scaling_frequencies",
            alt="Each method's frequency divided by the default frequency, per pair.",
            code=freq_code,
        )
        show_figure(
            charts.angles(k.scaling, lecture),
            name="rope_scaling_angles",
            alt="Rotation angle of a fast, a middle and a slow pair against position, default and scaled.",
            code=rope_snippet(s, part="angles", pairs=sv.pairs, positions=sv.positions.tolist()),
        )

section("8 · Attention on a toy sequence")
prose(texts.ATTENTION.format(length=k.attention.length))
with on_demand(texts.SHOW_ATTENTION) as shown:
    if shown:
        show_figure(
            charts.attention(k.attention, lecture),
            name="rope_attention",
            alt="Causal attention weights of a toy sequence without and with RoPE.",
            code=rope_snippet(s, part="attention", toy_len=k.attention.length),
        )

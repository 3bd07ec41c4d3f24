"""RoPE: rotations, both layouts, the relative property, decay, and context-extension scaling."""

import streamlit as st

from posviz.figures import rope, rope_scaling, rope_scores
from posviz.i18n import _
from posviz.ui.cache import chart, data
from posviz.ui.chrome import page_header, prose, rule_error, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.rope import texts
from posviz.ui.rope.notes import layout_gap_note, relative_metrics, scaling_note, wavelength_sentence
from posviz.ui.rope.settings import RopeSettings, problem, scaling_options
from posviz.ui.rope.snippets import rope_snippet
from posviz.ui.sections import on_demand
from posviz.ui.settings import read_settings
from posviz.ui.tables import static_table

s = read_settings(RopeSettings)
lecture = lecture_mode()
page_header(
    _("RoPE: rotary position embedding"), _("Su et al. 2021 · rotate q and k by angles proportional to position")
)
prose(_(texts.INTRO), label=_("What RoPE does"))
st.latex(texts.FORMULA)
if problem(s):
    rule_error(problem(s))
    st.stop()

# What every figure's frequencies depend on: the chosen method and its own options (dynamic NTK's is seq_len).
freq = dict(
    dim=s.dim,
    base=s.base,
    method=s.method,
    factor=s.factor,
    original_max_position=s.original_max_position,
    options=scaling_options(s),
)
vectors = dict(**freq, layout=s.layout, seed=s.seed)  # the seed's random vectors, rotated in the chosen layout
notes = data(rope_scaling.frequency_notes, **freq, seq_len=s.seq_len)
freq_code = rope_snippet(s, part="freq")

section("1 · Frequencies and wavelengths")
prose(_(texts.FREQUENCIES))
st.markdown(wavelength_sentence(notes, dim=s.dim, base=s.base, seq_len=s.seq_len))
show_figure(
    chart(rope_scaling.frequencies, **freq, seq_len=s.seq_len, lecture=lecture),
    name="rope_frequencies",
    alt=_("Frequency and wavelength of every pair on log axes, with the context length marked."),
    code=freq_code,
)

section("2 · The rotation matrix R_m, in both layouts")
prose(_(texts.MATRIX))
matrix_code = rope_snippet(s, part="matrix")
show_figure(
    chart(rope.rotation, **freq, layout=s.layout, m=s.m, lecture=lecture),
    name=f"rope_matrix_{s.layout}",
    alt=_("Heatmap of the {dim} by {dim} rotation matrix at position m.").format(dim=s.dim),
    code=matrix_code,
)
show_figure(
    chart(rope.permutation, dim=s.dim, lecture=lecture),
    name="rope_layout_permutation",
    alt=_("The permutation matrix between the interleaved and the half-split layout."),
    code=matrix_code,
)
st.caption(layout_gap_note(data(rope.layout_gap, **freq, m=s.m), m=s.m))

section("3 · The complex view: freqs_cis")
prose(_(texts.CIS))
static_table(data(rope.cis_table, **freq), label=_("freqs_cis of the first positions"))

section("4 · Each pair on its circle")
prose(_(texts.CIRCLES))
show_figure(
    chart(rope.circles, **vectors, m=s.m, n=s.n, lecture=lecture),
    name="rope_pair_circles",
    alt=_("Each shown pair of a random vector as arrows on its unit circle at positions 0, m and n."),
    code=rope_snippet(s, part="circles", pairs=rope.shown_pairs(s.dim, rope.CIRCLE_PAIRS).tolist()),
)

section("5 · The relative property, live")
prose(_(texts.RELATIVE))
relative = data(rope_scores.relative_numbers, **vectors, m=s.m, n=s.n, seq_len=s.seq_len)
for col, (label, value, more) in zip(
    [*st.columns(2), *st.columns(2)], relative_metrics(relative, m=s.m, n=s.n), strict=True
):
    col.metric(label, value, help=more)
with on_demand(texts.SHOW_RELATIVE) as shown:
    if shown:
        shifts = rope_scores.shift_values(s.seq_len).tolist()
        relative_code = rope_snippet(s, part="relative", shifts=shifts, score_len=rope_scores.SCORE_LEN)
        show_figure(
            chart(rope_scores.shift, **vectors, m=s.m, n=s.n, seq_len=s.seq_len, lecture=lecture),
            name="rope_shift",
            alt=_("The score of q at m + t and k at n + t against the shift t: a flat line."),
            code=relative_code,
        )
        show_figure(
            chart(rope_scores.scores, **vectors, lecture=lecture),
            name="rope_scores",
            alt=_("Heatmap of the rotated score of one q and one k at every pair of positions: constant diagonals."),
            code=relative_code,
        )

section("6 · Long-term decay")
prose(_(texts.DECAY))
with on_demand(texts.SHOW_DECAY) as shown:
    if shown:
        show_figure(
            chart(rope_scores.decay, **vectors, seq_len=s.seq_len, lecture=lecture),
            name="rope_decay",
            alt=_("The RoFormer bound and measured mean scores against distance on a log axis."),
            code=rope_snippet(s, part="decay", distances=rope_scores.decay_distances(s.seq_len).tolist()),
        )

section("7 · Context-extension scaling")
prose(_(texts.SCALING))
st.info(
    scaling_note(notes, method=s.method, seq_len=s.seq_len, original_max_position=s.original_max_position),
    icon=":material/straighten:",
)
with on_demand(texts.SHOW_SCALING) as shown:
    if shown:
        show_figure(
            chart(rope_scaling.scaling_frequencies, **freq, seq_len=s.seq_len, lecture=lecture),
            name="rope_scaling_frequencies",
            alt=_("Each method's frequency divided by the default frequency, per pair."),
            code=freq_code,
        )
        positions = rope_scaling.angle_positions(s.seq_len).tolist()
        show_figure(
            chart(rope_scaling.angles, **freq, seq_len=s.seq_len, lecture=lecture),
            name="rope_scaling_angles",
            alt=_("Rotation angle of a fast, a middle and a slow pair against position, default and scaled."),
            code=rope_snippet(s, part="angles", pairs=rope_scaling.angle_pairs(s.dim), positions=positions),
        )

section("8 · Attention on a toy sequence")
length = rope_scores.toy_length(s.seq_len)
prose(_(texts.ATTENTION).format(length=length))
with on_demand(texts.SHOW_ATTENTION) as shown:
    if shown:
        show_figure(
            chart(rope_scores.attention, **vectors, length=length, lecture=lecture),
            name="rope_attention",
            alt=_("Causal attention weights of a toy sequence without and with RoPE."),
            code=rope_snippet(s, part="attention", toy_len=length),
        )

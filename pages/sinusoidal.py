"""Sinusoidal absolute positions: the table, its waves, distance-only similarity, both layouts, learned tables."""

import streamlit as st

from posviz.figures.layout import number
from posviz.figures.sinusoidal import similarity, table
from posviz.i18n import _
from posviz.ui.cache import chart, data
from posviz.ui.chrome import page_header, prose, rule_error, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.sections import on_demand
from posviz.ui.settings import read_settings
from posviz.ui.sinusoidal import texts
from posviz.ui.sinusoidal.settings import SinusoidalSettings, problem
from posviz.ui.sinusoidal.snippets import sinusoidal_snippet

s = read_settings(SinusoidalSettings)
lecture = lecture_mode()
page_header(_("Sinusoidal positions"), _("Vaswani et al. 2017 · fixed sin/cos of the position, added to each token"))
prose(_(texts.INTRO), label=_("What the sinusoidal encoding does"))
st.latex(  # two lines beside the open sidebar at 1024 px; \, holds the 2 px KaTeX draws past them
    r"\begin{gathered}PE(p, 2k) = \sin(p\,\theta_k),\quad PE(p, 2k+1) = \cos(p\,\theta_k),\\"
    r"\theta_k = \text{base}^{-2k/d}\end{gathered}\,"
)
if problem(s):
    rule_error(problem(s))
    st.stop()

shape = dict(seq_len=s.seq_len, dim=s.dim, base=s.base)  # what every figure of the table depends on
table_code = sinusoidal_snippet(s, part="table", stride=table.table_stride(s.seq_len))

section("1 · The table")
prose(_(texts.TABLE))
show_figure(
    chart(table.heatmap, **shape, layout=s.layout, lecture=lecture),
    name=f"sinusoidal_table_{s.layout}",
    alt=_("Heatmap of the sinusoidal table: position down, component across."),
    code=table_code,
)

section("2 · Chosen dimensions as waves")
prose(_(texts.WAVES))
show_figure(
    chart(table.waves, **shape, layout=s.layout, lecture=lecture),
    name="sinusoidal_waves",
    alt=_("A few components of the table as sine and cosine waves against position."),
    code=sinusoidal_snippet(s, part="table", stride=1),
)
shortest, longest, unfinished = data(table.wavelength_span, **shape)
st.caption(
    _(
        "Wavelengths run from {shortest} to {longest} tokens (2π·base^((d−2)/d)); {unfinished} of {pairs} pairs "
        "never complete a period within seq_len = {seq_len}."
    ).format(
        shortest=number(shortest), longest=number(longest), unfinished=unfinished, pairs=s.dim // 2, seq_len=s.seq_len
    )
)

section("3 · PE_i · PE_j depends on i − j only")
prose(_(texts.SIMILARITY))
sim_code = sinusoidal_snippet(s, part="similarity", stride=similarity.sim_stride(s.seq_len))
show_figure(
    chart(similarity.matrix, **shape, lecture=lecture),
    name="sinusoidal_similarity",
    alt=_("Heatmap of the dot products of every pair of position vectors: constant diagonals."),
    code=sim_code,
)
show_figure(
    chart(similarity.profile, **shape, layout=s.layout, lecture=lecture),
    name="sinusoidal_profile",
    alt=_("The dot product of two position vectors against their distance, measured from two starting positions."),
    code=sim_code,
)
gap = data(similarity.profile_gap, **shape, layout=s.layout)
st.caption(_("Measured: max |PE_p · PE_(p+r) − Σ_k cos(r θ_k)| = {gap} (float64).").format(gap=number(gap, 2)))

section("4 · Interleaved or concatenated")
prose(_(texts.LAYOUTS))
with on_demand(texts.SHOW_LAYOUTS) as shown:
    if shown:
        show_figure(
            chart(table.layouts, **shape, lecture=lecture),
            name="sinusoidal_layouts",
            alt=_("The table in both layouts side by side, and the permutation matrix between them."),
            code=table_code,
        )

section("5 · For contrast: a learned absolute table")
prose(_(texts.LEARNED))
with on_demand(texts.SHOW_LEARNED) as shown:
    if shown:
        show_figure(
            chart(similarity.learned, learned_len=s.learned_len, dim=s.dim, base=s.base, seed=s.seed, lecture=lecture),
            name="sinusoidal_learned",
            alt=_("Cosine similarity of position vectors: sinusoidal with diagonal bands, learned with noise."),
            code=sinusoidal_snippet(s, part="learned", stride=similarity.learned_stride(s.learned_len)),
        )
        if s.seq_len > s.learned_len:
            st.caption(
                _(
                    "The learned table is drawn for its first {learned_len} positions (BERT has 512, GPT-2 1024): "
                    "a learned table has no row for the positions past its size."
                ).format(learned_len=s.learned_len)
            )

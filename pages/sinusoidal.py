"""Sinusoidal absolute positions: the table, its waves, distance-only similarity, both layouts, learned tables."""

import streamlit as st

from posviz.figures.layout import number
from posviz.ui.chrome import page_header, prose, rule_error, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.sections import on_demand
from posviz.ui.settings import project, read_settings
from posviz.ui.sinusoidal import charts, texts
from posviz.ui.sinusoidal.settings import LayoutsKey, LearnedKey, SinusoidalSettings, TableKey, problem
from posviz.ui.sinusoidal.snippets import sinusoidal_snippet
from posviz.ui.sinusoidal.views import (
    learned_view,
    sim_stride,
    similarity_view,
    table_stride,
    table_view,
)

s = read_settings(SinusoidalSettings)
lecture = lecture_mode()
page_header("Sinusoidal positions", "Vaswani et al. 2017 · fixed sin/cos of the position, added to each token")
prose(texts.INTRO, label="What the sinusoidal encoding does")
st.latex(  # two lines beside the open sidebar at 1024 px; \, holds the 2 px KaTeX draws past them
    r"\begin{gathered}PE(p, 2k) = \sin(p\,\theta_k),\quad PE(p, 2k+1) = \cos(p\,\theta_k),\\"
    r"\theta_k = \text{base}^{-2k/d}\end{gathered}\,"
)
if problem(s):
    rule_error(problem(s))
    st.stop()

tk = project(s, TableKey)
tv = table_view(tk)
table_code = sinusoidal_snippet(s, part="table", stride=table_stride(s.seq_len))

section("1 · The table")
prose(texts.TABLE)
show_figure(
    charts.table(tk, lecture),
    name=f"sinusoidal_table_{s.layout}",
    alt="Heatmap of the sinusoidal table: position down, component across.",
    code=table_code,
)

section("2 · Chosen dimensions as waves")
prose(texts.WAVES)
show_figure(
    charts.waves(tk, lecture),
    name="sinusoidal_waves",
    alt="A few components of the table as sine and cosine waves against position.",
    code=sinusoidal_snippet(s, part="table", stride=1),
)
st.caption(
    f"Wavelengths run from {number(tv.wavelengths[0])} to {number(tv.wavelengths[-1])} tokens "
    f"(2π·base^((d−2)/d)); {(tv.wavelengths > s.seq_len).sum()} of {s.dim // 2} pairs never complete a period "
    f"within seq_len = {s.seq_len}."
)

section("3 · PE_i · PE_j depends on i − j only")
prose(texts.SIMILARITY)
sv = similarity_view(tk)
sim_code = sinusoidal_snippet(s, part="similarity", stride=sim_stride(s.seq_len))
show_figure(
    charts.similarity(tk, lecture),
    name="sinusoidal_similarity",
    alt="Heatmap of the dot products of every pair of position vectors: constant diagonals.",
    code=sim_code,
)
show_figure(
    charts.profile(tk, lecture),
    name="sinusoidal_profile",
    alt="The dot product of two position vectors against their distance, measured from two starting positions.",
    code=sim_code,
)
st.caption(f"Measured: max |PE_p · PE_(p+r) − Σ_k cos(r θ_k)| = {number(sv.gap, 2)} (float64).")

section("4 · Interleaved or concatenated")
prose(texts.LAYOUTS)
with on_demand(texts.SHOW_LAYOUTS) as shown:
    if shown:
        lk = project(s, LayoutsKey)
        show_figure(
            charts.layouts(lk, lecture),
            name="sinusoidal_layouts",
            alt="The table in both layouts side by side, and the permutation matrix between them.",
            code=table_code,
        )

section("5 · For contrast: a learned absolute table")
prose(texts.LEARNED)
with on_demand(texts.SHOW_LEARNED) as shown:
    if shown:
        nk = project(s, LearnedKey)
        lv = learned_view(nk)
        show_figure(
            charts.learned(nk, lecture),
            name="sinusoidal_learned",
            alt="Cosine similarity of position vectors: sinusoidal with diagonal bands, learned with noise.",
            code=sinusoidal_snippet(s, part="learned", stride=lv.stride),
        )
        if s.seq_len > s.learned_len:
            st.caption(
                f"The learned table is drawn for its first {s.learned_len} positions (BERT has 512, GPT-2 1024): "
                "a learned table has no row for the positions past its size."
            )

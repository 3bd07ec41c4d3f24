"""ALiBi: slopes per head, how non-powers of two borrow slopes, the bias grid, and each head's reach."""

import streamlit as st

from posviz.ui.alibi import charts, texts
from posviz.ui.alibi.settings import AlibiSettings, ReceptiveKey, SlopesKey, problem
from posviz.ui.alibi.snippets import alibi_snippet
from posviz.ui.alibi.views import bias_axes, bias_view, receptive_view
from posviz.ui.chrome import page_header, prose, rule_error, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.settings import project, read_settings
from posviz.ui.tables import static_table

s = read_settings(AlibiSettings)
lecture = lecture_mode()
page_header(
    "ALiBi: attention with linear biases", "Press et al. 2022 · a fixed penalty −m·(i − j) per head, no embedding"
)
prose(texts.INTRO, label="What ALiBi does")
st.latex(r"\text{logit}_{h,ij} = \frac{q_i\cdot k_j}{\sqrt d} - m_h\,(i - j),\qquad m_h = 2^{-8h/n}")
if problem(s):
    rule_error(problem(s))
    st.stop()

sk = project(s, SlopesKey)
slopes_code = alibi_snippet(s, part="slopes")

section("1 · Slopes per head")
prose(texts.SLOPES)
show_figure(
    charts.slopes(sk, lecture),
    name="alibi_slopes",
    alt="Each head's slope on a log axis.",
    code=slopes_code,
)

section("2 · Any number of heads")
prose(texts.INTERLEAVE)
show_figure(
    charts.interleave(sk, lecture),
    name="alibi_interleave",
    alt="The slopes of the closest power of two, of twice as many heads, and the final slopes.",
    code=slopes_code,
)

section("3 · The bias, head by head")
prose(texts.BIAS)
bv = bias_view(s)
show_figure(
    charts.bias_grid(s, lecture),
    name="alibi_bias",
    alt="Small heatmaps of each shown head's bias over query and key positions.",
    code=alibi_snippet(s, part="bias", axes=bias_axes(s), heads_shown=bv.heads_shown.tolist()),
)

section("4 · Receptive field")
prose(texts.RECEPTIVE)
rk = project(s, ReceptiveKey)
rv = receptive_view(rk)
show_figure(
    charts.receptive_field(rk, lecture),
    name="alibi_receptive_field",
    alt="Attention weight against distance for each shown head, log axes, with each head's 90% reach.",
    code=alibi_snippet(s, part="receptive", heads_shown=rv.heads_shown.tolist()),
)
static_table(rv.table, label="Each head's slope", hide_index=True, max_rows=12)

"""ALiBi: slopes per head, how non-powers of two borrow slopes, the bias grid, and each head's reach."""

import streamlit as st

from posviz.figures import alibi
from posviz.i18n import _
from posviz.ui.alibi import texts
from posviz.ui.alibi.settings import AlibiSettings, problem
from posviz.ui.alibi.snippets import alibi_snippet
from posviz.ui.cache import chart, data
from posviz.ui.chrome import page_header, prose, rule_error, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.settings import read_settings
from posviz.ui.tables import static_table

s = read_settings(AlibiSettings)
lecture = lecture_mode()
page_header(
    _("ALiBi: attention with linear biases"),
    _("Press et al. 2022 · a fixed penalty −m·(i − j) per head, no embedding"),
)
prose(_(texts.INTRO), label=_("What ALiBi does"))
st.latex(r"\text{logit}_{h,ij} = \frac{q_i\cdot k_j}{\sqrt d} - m_h\,(i - j),\qquad m_h = 2^{-8h/n}")
if problem(s):
    rule_error(problem(s))
    st.stop()

slopes_code = alibi_snippet(s, part="slopes")

section("1 · Slopes per head")
prose(_(texts.SLOPES))
show_figure(
    chart(alibi.slopes, heads=s.heads, lecture=lecture),
    name="alibi_slopes",
    alt=_("Each head's slope on a log axis."),
    code=slopes_code,
)

section("2 · Any number of heads")
prose(_(texts.INTERLEAVE))
show_figure(
    chart(alibi.interleave, heads=s.heads, lecture=lecture),
    name="alibi_interleave",
    alt=_("The slopes of the closest power of two, of twice as many heads, and the final slopes."),
    code=slopes_code,
)

section("3 · The bias, head by head")
prose(_(texts.BIAS))
zoom = dict(window=s.window, q_start=s.q_start, k_start=s.k_start)
show_figure(
    chart(alibi.bias_grid, heads=s.heads, seq_len=s.seq_len, causal=s.causal, **zoom, lecture=lecture),
    name="alibi_bias",
    alt=_("Small heatmaps of each shown head's bias over query and key positions."),
    code=alibi_snippet(
        s,
        part="bias",
        axes=alibi.bias_axes(seq_len=s.seq_len, **zoom),
        heads_shown=alibi.shown_heads(s.heads, alibi.GRID_HEADS).tolist(),
    ),
)

section("4 · Receptive field")
prose(_(texts.RECEPTIVE))
show_figure(
    chart(alibi.receptive_field, heads=s.heads, seq_len=s.seq_len, lecture=lecture),
    name="alibi_receptive_field",
    alt=_("Attention weight against distance for each shown head, log axes, with each head's 90% reach."),
    code=alibi_snippet(s, part="receptive", heads_shown=alibi.shown_heads(s.heads, alibi.CURVE_HEADS).tolist()),
)
static_table(
    data(alibi.slope_table, heads=s.heads, seq_len=s.seq_len),
    label=_("Each head's slope"),
    hide_index=True,
    max_rows=12,
)

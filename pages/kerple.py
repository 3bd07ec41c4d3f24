"""KERPLE: learned kernels of the distance, beside ALiBi and T5's buckets."""

import streamlit as st

from posviz.figures import kerple
from posviz.i18n import _
from posviz.ui.cache import chart, data
from posviz.ui.chrome import page_header, prose, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.kerple import texts
from posviz.ui.kerple.settings import KerpleSettings
from posviz.ui.kerple.snippets import page_snippets
from posviz.ui.settings import read_settings
from posviz.ui.tables import static_table

s = read_settings(KerpleSettings)
lecture = lecture_mode()
page_header(
    _("KERPLE: kernelized relative positions"), _("Chi et al. 2022 · a learned kernel of the distance per head")
)
prose(_(texts.INTRO), label=_("What KERPLE does"))
# The kernels' names are words in the reader's language; the formulas stay as they are.
st.latex(r"\text{" + _("log kernel:") + r"}\quad b_h(i,j)=-p_h\log\big(1+a_h\,(i-j)\big)\,")
# \; : room for the exponent's overhang
st.latex(r"\text{" + _("power kernel:") + r"}\quad b_h(i,j)=-a_h\,(i-j)^{p_h}\;")

codes = page_snippets(s)
section("1 · One family of additive biases")
prose(_(texts.FAMILY))
show_figure(
    chart(kerple.family, heads=s.heads, seq_len=s.seq_len, seed=s.seed, lecture=lecture),
    name="kerple_family",
    code=codes["kerple_family"],
    alt=_("Bias against distance for each head: ALiBi's lines, KERPLE's log and power kernels, and T5's steps."),
)
static_table(
    data(kerple.parameters_table, heads=s.heads, seed=s.seed),
    label=_("Each head's KERPLE parameters"),
    hide_index=True,
    max_rows=16,
)

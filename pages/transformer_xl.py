"""Transformer-XL: the four terms of the score, R over distances, the shift and its garbage, the memory."""

import streamlit as st

from posviz.figures import transformer_xl as txl
from posviz.i18n import _
from posviz.ui.cache import chart
from posviz.ui.chrome import page_header, prose, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.settings import read_settings
from posviz.ui.transformer_xl import texts
from posviz.ui.transformer_xl.settings import TransformerXlSettings
from posviz.ui.transformer_xl.snippets import page_snippets

s = read_settings(TransformerXlSettings)
lecture = lecture_mode()
page_header(
    _("Transformer-XL relative attention"),
    _("Dai et al. 2019 · four terms, a memory, and a shift that needs the mask"),
)
prose(_(texts.INTRO), label=_("What Transformer-XL does"))
# the closing thin space keeps the last subscript's overhang inside KaTeX's box (lecture mode counts it as cut off)
st.latex(
    r"A_{ij}=\underset{(a)}{q_i^\top k_j}+\underset{(b)}{q_i^\top W_R R_{i-j}}"
    r"+\underset{(c)}{u^\top k_j}+\underset{(d)}{v^\top W_R R_{i-j}}\,"
)

head = dict(q_len=s.seq_len, mem_len=s.mem_len, dim=s.dim, seed=s.seed)
codes = page_snippets(s)
section("1 · The four terms")
prose(_(texts.TERMS))
show_figure(
    chart(txl.terms, **head, lecture=lecture),
    name="txl_terms",
    code=codes["txl_terms"],
    alt=_("Four heatmaps over queries and keys: content, content-position, global content bias, global position bias."),
)

section("2 · R over the distances")
prose(_(texts.R))
show_figure(
    chart(txl.r_matrix, k_len=s.seq_len + s.mem_len, dim=s.dim, lecture=lecture),
    name="txl_r",
    code=codes["txl_r"],
    alt=_("Heatmap of R: one row per distance from the farthest to 0, sines then cosines."),
)

section("3 · _rel_shift, and the mask it needs")
prose(_(texts.SHIFT))
show_figure(
    chart(txl.shift, **head, lecture=lecture),
    name="txl_shift",
    code=codes["txl_shift"],
    alt=_("Two heatmaps: the position scores before the shift, and after it with garbage above the diagonal."),
)

section("4 · The memory")
prose(_(texts.MEMORY))
show_figure(
    chart(txl.memory, **head, lecture=lecture),
    name="txl_memory",
    code=codes["txl_memory"],
    alt=_("Attention weights of the segment's queries over the memory and the segment, future keys masked."),
)

"""xPos: RoPE times a per-pair decay, and what the decay does to the score over distance."""

import streamlit as st

from posviz.figures import xpos
from posviz.i18n import _
from posviz.ui.cache import chart
from posviz.ui.chrome import page_header, prose, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.settings import read_settings
from posviz.ui.xpos import texts
from posviz.ui.xpos.settings import XposSettings
from posviz.ui.xpos.snippets import page_snippets

s = read_settings(XposSettings)
lecture = lecture_mode()
page_header(_("xPos: RoPE with a decay"), _("Sun et al. 2022 · each pair of the score shrinks with the distance"))
prose(_(texts.INTRO), label=_("What xPos does"))
st.latex(r"\tilde q_n\cdot\tilde k_m=\sum_k \zeta_k^{(n-m)/B}\,\big[q\cdot R_{(n-m)\theta_k} k\big]_k,"
         r"\qquad \zeta_k=\frac{2k+0.4\,d}{1.4\,d}")  # fmt: skip

codes = page_snippets(s, pairs=xpos.shown_pairs(s.dim).tolist())
section("1 · The decay of each pair")
prose(_(texts.DECAY))
show_figure(
    chart(xpos.decay, dim=s.dim, scale_base=s.scale_base, seq_len=s.seq_len, lecture=lecture),
    name="xpos_decay",
    code=codes["xpos_decay"],
    alt=_("Each shown pair's decay factor against distance on a log axis, the fast pairs falling first."),
)

section("2 · The score over distance, with and without the decay")
prose(_(texts.SCORES))
show_figure(
    chart(xpos.scores, dim=s.dim, scale_base=s.scale_base, seq_len=s.seq_len, seed=s.seed, lecture=lecture),
    name="xpos_scores",
    code=codes["xpos_scores"],
    alt=_("The score of one random query and key against distance, RoPE alone oscillating and xPos damped."),
)

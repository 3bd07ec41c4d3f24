"""FIRE: a learned function of a normalised distance, and its progressive interpolation."""

import streamlit as st

from posviz.figures import fire
from posviz.i18n import _
from posviz.ui.cache import chart
from posviz.ui.chrome import page_header, prose, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.fire import texts
from posviz.ui.fire.settings import FireSettings
from posviz.ui.fire.snippets import page_snippets
from posviz.ui.settings import read_settings

s = read_settings(FireSettings)
lecture = lecture_mode()
page_header(
    _("FIRE: functional interpolation for relative positions"), _("Li et al. 2023 · an MLP of a normalised distance")
)
prose(_(texts.INTRO), label=_("What FIRE does"))
st.latex(r"b_h(i,j)=\mathrm{MLP}_h\!\left(\frac{\psi(i-j)}{\psi(\max(i,L))}\right),\qquad \psi(x)=\log(|c\,x|+1)")

normal = dict(c=s.c, threshold=s.threshold, seq_len=s.seq_len)
codes = page_snippets(s)
section("1 · Progressive interpolation")
prose(_(texts.INTERPOLATION))
show_figure(
    chart(fire.interpolation, **normal, lecture=lecture),
    name="fire_interpolation",
    code=codes["fire_interpolation"],
    alt=_("The normalised distance of a few fixed distances against the query position: flat, then falling past L."),
)

section("2 · The normalised distance of every pair")
prose(_(texts.NORMALIZED))
show_figure(
    chart(fire.normalized, **normal, lecture=lecture),
    name="fire_normalized",
    code=codes["fire_normalized"],
    alt=_("Heatmap of the normalised distance u over query and key positions, future keys masked."),
)

section("3 · What the MLP makes of it")
prose(_(texts.MLP))
show_figure(
    chart(fire.mlp, heads=s.heads, seed=s.seed, lecture=lecture),
    name="fire_mlp",
    code=codes["fire_mlp"],
    alt=_("Each head's bias as a function of the normalised distance from 0 to 1."),
)

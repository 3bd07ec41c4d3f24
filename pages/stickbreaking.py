"""Stick-breaking attention: position from the order of the breaks, no position term, no softmax."""

import streamlit as st

from posviz.figures import stickbreaking
from posviz.i18n import _
from posviz.ui.cache import chart
from posviz.ui.chrome import page_header, prose, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.settings import read_settings
from posviz.ui.stickbreaking import texts
from posviz.ui.stickbreaking.settings import StickbreakingSettings
from posviz.ui.stickbreaking.snippets import page_snippets

s = read_settings(StickbreakingSettings)
lecture = lecture_mode()
page_header(
    _("Stick-breaking attention"), _("Tan et al. 2024 · each key breaks off a share of what the nearer keys left")
)
prose(_(texts.INTRO), label=_("What stick-breaking does"))
st.latex(
    r"A_{ij}=\beta_{ij}\prod_{j<k<i}\left(1-\beta_{ik}\right),"
    r"\qquad \beta_{ij}=\sigma\!\left(\frac{q_i\cdot k_j}{\sqrt d}\right)"
)

toy = dict(length=s.seq_len, dim=s.dim, seed=s.seed)
codes = page_snippets(s, scores=stickbreaking.EQUAL_SCORES, recency_len=stickbreaking.EQUAL_LEN)
section("1 · Softmax and the stick, on the same scores")
prose(_(texts.WEIGHTS))
show_figure(
    chart(stickbreaking.weights, **toy, lecture=lecture),
    name="stickbreaking_weights",
    code=codes["stickbreaking_weights"],
    alt=_("Two heatmaps of attention weights: causal softmax and stick-breaking on the same toy scores."),
)

section("2 · One query's stick")
prose(_(texts.ROW))
show_figure(
    chart(stickbreaking.row, **toy, query=s.query, lecture=lecture),
    name="stickbreaking_row",
    code=codes["stickbreaking_row"],
    alt=_("Bars of each earlier key's share of one query's stick, and the share left over."),
)

section("3 · Recency without a position term")
prose(_(texts.RECENCY))
show_figure(
    chart(stickbreaking.recency, lecture=lecture),
    name="stickbreaking_recency",
    code=codes["stickbreaking_recency"],
    alt=_("Attention weight against distance for equal scores on a log axis: straight, geometric lines."),
)

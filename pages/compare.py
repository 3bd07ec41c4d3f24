"""Every scheme on one toy sequence: position terms, attention, properties, and links to each page."""

import streamlit as st

from posviz.ui.chrome import page_header, prose, rule_error, section
from posviz.ui.compare import texts
from posviz.ui.compare.charts import attention_grid, attention_row, term_grid, term_profile
from posviz.ui.compare.links import link_markdown
from posviz.ui.compare.settings import CompareSettings, problem
from posviz.ui.compare.views import compare_view
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.settings import read_settings

s = read_settings(CompareSettings)
lecture = lecture_mode()
page_header("Compare every scheme", "one seeded toy sequence through none, absolute, relative and contextual positions")
prose(texts.INTRO, label="How the comparison works")
st.caption(texts.FIXED)
if problem(s):
    rule_error(problem(s))
    st.stop()

v = compare_view(s)

section("1 · The position term against distance")
prose(texts.PROFILE)
show_figure(
    term_profile(s, lecture),
    name="compare_term_profile",
    alt="Each scheme's position term for the last query against the distance to each key.",
)

section("2 · Position terms and attention maps, side by side")
prose(texts.GRIDS)
show_figure(
    term_grid(s, lecture),
    name="compare_terms",
    alt="Small heatmaps of each scheme's position term on one colour scale.",
)
show_figure(
    attention_grid(s, lecture),
    name="compare_attention",
    alt="Small heatmaps of each scheme's attention weights on one colour scale.",
)
show_figure(
    attention_row(s, lecture),
    name="compare_attention_row",
    alt="The last query's attention over keys, one line per scheme.",
)

section("3 · Properties, from these settings")
prose(texts.TABLE)
st.table(v.table, hide_index=True)  # static: every column fits and wraps, at any width

section("4 · Each scheme's own page, with these settings")
st.markdown(link_markdown(s))

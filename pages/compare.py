"""Every scheme on one toy sequence: position terms, attention, properties, and links to each page."""

import streamlit as st

from posviz.figures import compare, compare_properties
from posviz.i18n import _
from posviz.ui.cache import chart, data
from posviz.ui.chrome import page_header, prose, rule_error, section
from posviz.ui.compare import texts
from posviz.ui.compare.links import link_markdown
from posviz.ui.compare.settings import CompareSettings, problem
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.settings import read_settings
from posviz.ui.tables import static_table

s = read_settings(CompareSettings)
lecture = lecture_mode()
page_header(
    _("Compare every scheme"),
    _("one seeded toy sequence through none, absolute, relative and contextual positions"),
)
prose(_(texts.INTRO), label=_("How the comparison works"))
st.caption(_(texts.FIXED).format(**texts.FIXED_VALUES))
if s.schemes != "core":
    st.caption(_(texts.FIXED_LATER).format(**texts.FIXED_LATER_VALUES))
if problem(s):
    rule_error(problem(s))
    st.stop()

toy = dict(seq_len=s.seq_len, dim=s.dim, base=s.base, causal=s.causal, seed=s.seed, schemes=s.schemes)

section("1 · The position term against distance")
prose(_(texts.PROFILE))
show_figure(
    chart(compare.term_profile, **toy, lecture=lecture),
    name="compare_term_profile",
    alt=_("Each scheme's position term for the last query against the distance to each key."),
)

section("2 · Position terms and attention maps, side by side")
prose(_(texts.GRIDS))
show_figure(
    chart(compare.term_grid, **toy, lecture=lecture),
    name="compare_terms",
    alt=_("Small heatmaps of each scheme's position term on one colour scale."),
)
show_figure(
    chart(compare.attention_grid, **toy, lecture=lecture),
    name="compare_attention",
    alt=_("Small heatmaps of each scheme's attention weights on one colour scale."),
)
show_figure(
    chart(compare.attention_row, **toy, lecture=lecture),
    name="compare_attention_row",
    alt=_("The last query's attention over keys, one line per scheme."),
)

section("3 · Properties, from these settings")
prose(_(texts.TABLE))
static_table(data(compare_properties.properties, **toy), label=_("Each scheme's properties"), hide_index=True)

section("4 · Each scheme's own page, with these settings")
st.markdown(link_markdown(s))

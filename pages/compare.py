"""Every scheme on one toy sequence: position terms, attention, properties, and links to each page."""

import streamlit as st

from posviz.figures import compare as fig
from posviz.ui.chrome import page_header, prose, section
from posviz.ui.compare import compare_controls, compare_view, link_markdown
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import cache_figures, columns_csv, panels_csv, show_figure
from posviz.ui.texts import compare as text

s = compare_controls()
lecture = lecture_mode()
cache_figures("compare", s, lecture)  # every figure below depends on these only
page_header("Compare every scheme", "one seeded toy sequence through none, absolute, relative and contextual positions")
prose(text.INTRO, label="How the comparison works")
st.caption(text.FIXED)

v = compare_view(s.seq_len, s.dim, s.base, s.seed, s.causal)
names, pos = list(v.names), v.positions
last = len(pos) - 1

section("1 · The position term against distance")
prose(text.PROFILE)
show_figure(
    lambda: fig.term_profile_figure(v.terms, names=names, positions=pos, causal=s.causal, lecture=lecture),
    name="compare_term_profile",
    alt="Each scheme's position term for the last query against the distance to each key.",
    csv=lambda: columns_csv(
        {"key j": pos, "distance i - j": last - pos, **dict(zip(names, v.terms[:, last], strict=True))}
    ),
)

section("2 · Position terms and attention maps, side by side")
prose(text.GRIDS)
show_figure(
    lambda: fig.term_grid_figure(v.terms, names=names, positions=pos, causal=s.causal, lecture=lecture),
    name="compare_terms",
    alt="Small heatmaps of each scheme's position term on one colour scale.",
    csv=lambda: panels_csv(dict(zip(names, v.terms, strict=True)), pos, pos),
)
show_figure(
    lambda: fig.attention_grid_figure(v.weights, names=names, positions=pos, causal=s.causal, lecture=lecture),
    name="compare_attention",
    alt="Small heatmaps of each scheme's attention weights on one colour scale.",
    csv=lambda: panels_csv(dict(zip(names, v.weights, strict=True)), pos, pos),
)
show_figure(
    lambda: fig.attention_row_figure(v.weights, names=names, positions=pos, lecture=lecture),
    name="compare_attention_row",
    alt="The last query's attention over keys, one line per scheme.",
    csv=lambda: columns_csv({"key j": pos, **dict(zip(names, v.weights[:, last], strict=True))}),
)

section("3 · Properties, from these settings")
prose(text.TABLE)
st.dataframe(v.table, hide_index=True)

section("4 · Each scheme's own page, with these settings")
st.markdown(link_markdown(s))

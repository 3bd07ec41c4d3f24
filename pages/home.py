"""Home: why attention needs position at all, and the map of schemes."""

import streamlit as st

from posviz.figures import home
from posviz.schemes import SCHEMES, page_of
from posviz.ui.cache import data
from posviz.ui.chrome import page_header, prose, section
from posviz.ui.home import texts
from posviz.ui.tables import static_table

page_header(
    "posviz: how transformers encode position",
    "Interactive, step-by-step views of the position schemes transformers use, computed in PyTorch.",
)

section("Why attention needs position")
prose(texts.WHY)
demo = data(home.permutation_demo, seed=0, max_entries=4)
st.markdown(
    f"Toy example: one head, 4-dimensional vectors, the sentence **{' '.join(home.SENTENCE)}** and its "
    f"shuffle **{' '.join(home.SHUFFLED)}**. Each word's output:"
)
static_table(demo.table, label="Each word's output in the sentence and in its shuffle", hide_index=True)
left, right = st.columns(2)
change = "the largest change of any word's output between the sentence and its shuffle"
left.metric("Largest change, no position term", home.change_text(demo.without), help=f"{change}, without position")
right.metric("... with a T5 relative bias", home.change_text(demo.with_bias), help=f"{change}, with a T5 relative bias")
prose(texts.AFTER)

section("The schemes")
static_table(home.scheme_table(), label="The position schemes", hide_index=True)
for scheme in SCHEMES:
    if scheme.page:
        st.page_link(page_of(scheme.key).path, label=f"{scheme.title}: {scheme.how}", icon=":material/arrow_forward:")

"""Home: why attention needs position at all, and the map of schemes."""

import streamlit as st

from posviz.schemes import SCHEMES, page_of
from posviz.ui.chrome import page_header, prose, section
from posviz.ui.home import texts
from posviz.ui.home.views import SENTENCE, SHUFFLED, change_text, permutation_demo, scheme_frame

page_header(
    "posviz: how transformers encode position",
    "Interactive, step-by-step views of the position schemes transformers use, computed in PyTorch.",
)

section("Why attention needs position")
prose(texts.WHY)
frame, worst_none, worst_bias = permutation_demo()
st.markdown(
    f"Toy example: one head, 4-dimensional vectors, the sentence **{' '.join(SENTENCE)}** and its "
    f"shuffle **{' '.join(SHUFFLED)}**. Each word's output:"
)
st.dataframe(frame, hide_index=True)
left, right = st.columns(2)
change = "the largest change of any word's output between the sentence and its shuffle"
left.metric("Largest change, no position term", change_text(worst_none), help=f"{change}, without position")
right.metric("... with a T5 relative bias", change_text(worst_bias), help=f"{change}, with a T5 relative bias")
prose(texts.AFTER)

section("The schemes")
st.dataframe(scheme_frame(), hide_index=True)
for scheme in SCHEMES:
    if scheme.page:
        st.page_link(page_of(scheme.key).path, label=f"{scheme.title}: {scheme.how}", icon=":material/arrow_forward:")

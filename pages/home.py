"""Home: why attention needs position at all, and the map of schemes."""

import streamlit as st

from posviz.ui.chrome import page_header, prose, section
from posviz.ui.home import SCHEMES, SENTENCE, SHUFFLED, change_text, permutation_demo, scheme_frame
from posviz.ui.texts import home as text

page_header(
    "posviz: how transformers encode position",
    "Interactive, step-by-step views of the position schemes transformers use, computed in PyTorch.",
)

section("Why attention needs position")
prose(text.WHY)
frame, worst_none, worst_bias = permutation_demo()
st.markdown(
    f"Toy example: one head, 4-dimensional vectors, the sentence **{' '.join(SENTENCE)}** and its "
    f"shuffle **{' '.join(SHUFFLED)}**. Each word's output:"
)
st.dataframe(frame, hide_index=True)
left, right = st.columns(2)
left.metric("Largest change of a word's output, no position term", change_text(worst_none))
right.metric("... with a T5 relative bias", change_text(worst_bias))
prose(text.AFTER)

section("The schemes")
st.dataframe(scheme_frame(), hide_index=True)
for name, _, _, how, path in SCHEMES:
    if path:
        st.page_link(f"pages/{path}.py", label=f"{name}: {how}", icon=":material/arrow_forward:")

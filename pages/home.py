"""Home: why attention needs position at all, and the map of schemes."""

import streamlit as st

from posviz.figures import home
from posviz.i18n import _
from posviz.schemes import SCHEMES, page_of
from posviz.ui.cache import data
from posviz.ui.chrome import page_header, prose, section
from posviz.ui.home import texts
from posviz.ui.tables import static_table

page_header(
    _("posviz: how transformers encode position"),
    _("Interactive, step-by-step views of the position schemes transformers use, computed in PyTorch."),
)

section("Why attention needs position")
prose(_(texts.WHY))
demo = data(home.permutation_demo, seed=0, max_entries=4)
st.markdown(
    _(
        "Toy example: one head, {dim}-dimensional vectors, the sentence **{sentence}** and its "
        "shuffle **{shuffled}**. Each word's output:"
    ).format(dim=home.DIM, sentence=home.said(home.SENTENCE), shuffled=home.said(home.SHUFFLED))
)
static_table(demo.table, label=_("Each word's output in the sentence and in its shuffle"), hide_index=True)
left, right = st.columns(2)
left.metric(
    _("Largest change, no position term"),
    home.change_text(demo.without),
    help=_("the largest change of any word's output between the sentence and its shuffle, without position"),
)
right.metric(
    _("... with a T5 relative bias"),
    home.change_text(demo.with_bias),
    help=_("the largest change of any word's output between the sentence and its shuffle, with a T5 relative bias"),
)
prose(_(texts.AFTER))

section("The schemes")
static_table(home.scheme_table(), label=_("The position schemes"), hide_index=True)
for scheme in SCHEMES:
    if scheme.page:
        st.page_link(
            page_of(scheme.key).path,
            label=_("{title}: {how}").format(title=_(scheme.title), how=_(scheme.how)),
            icon=":material/arrow_forward:",
        )

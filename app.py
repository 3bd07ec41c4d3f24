"""posviz: entry point. Navigation over pages/, the shared sidebar."""

import streamlit as st

from posviz.server import tune_process
from posviz.ui.chrome import lecture_styles
from posviz.ui.controls import control, finish_run, start_run
from posviz.ui.exports import forget_figure_key

tune_process()  # once per process: torch on one thread, the import-time heap out of garbage collection

# No page_icon: a Material icon favicon is fetched from Google's font servers at run time.
st.set_page_config(page_title="posviz", layout="wide")

pages = [
    st.Page("pages/home.py", title="Why position?", icon=":material/home:", default=True),
    st.Page("pages/t5.py", title="T5 relative bias", icon=":material/grid_on:", url_path="t5"),
    st.Page("pages/shaw.py", title="Shaw relative positions", icon=":material/table_rows:", url_path="shaw"),
    st.Page("pages/skew.py", title="Music Transformer skew", icon=":material/swap_horiz:", url_path="skew"),
    st.Page("pages/rope.py", title="RoPE", icon=":material/rotate_right:", url_path="rope"),
    st.Page(
        "pages/cope.py", title="CoPE contextual positions", icon=":material/format_list_numbered:", url_path="cope"
    ),
    st.Page("pages/sinusoidal.py", title="Sinusoidal positions", icon=":material/waves:", url_path="sinusoidal"),
    st.Page("pages/alibi.py", title="ALiBi linear biases", icon=":material/trending_down:", url_path="alibi"),
    st.Page("pages/compare.py", title="Compare every scheme", icon=":material/compare:", url_path="compare"),
]
page = st.navigation(pages)
start_run(page.url_path)
forget_figure_key()  # each page says what its cached figures depend on
with st.sidebar:
    control("lecture")
lecture_styles()
try:
    page.run()
finally:  # also after a page's st.stop()
    finish_run()

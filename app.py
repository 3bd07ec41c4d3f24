"""posviz: entry point. Navigation built from the registry (posviz.schemes), the shared sidebar."""

import streamlit as st

from posviz.schemes import PAGES
from posviz.ui.chrome import lecture_styles
from posviz.ui.controls import control, finish_run, start_run

# No page_icon: a Material icon favicon is fetched from Google's font servers at run time.
st.set_page_config(page_title="posviz", layout="wide")

page = st.navigation(
    [
        st.Page(p.path, title=p.title, icon=f":material/{p.icon}:", url_path=p.key or None, default=not p.key)
        for p in PAGES
    ]
)
start_run(page.url_path)
with st.sidebar:
    control("lecture")
lecture_styles()
try:
    page.run()
finally:  # also after a page's st.stop()
    finish_run()

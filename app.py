"""posviz: entry point. Navigation over pages/, the shared sidebar."""

import streamlit as st

from posviz.ui.controls import control

st.set_page_config(page_title="posviz", page_icon=":material/grid_on:", layout="wide")

pages = [
    st.Page("pages/home.py", title="Why position?", icon=":material/home:", default=True),
    st.Page("pages/t5.py", title="T5 relative bias", icon=":material/grid_on:", url_path="t5"),
]
page = st.navigation(pages)
with st.sidebar:
    control("lecture")
page.run()

"""posviz: entry point. Navigation built from the registry (posviz.schemes), the shared sidebar."""

import streamlit as st

from posviz.i18n import _
from posviz.schemes import PAGES
from posviz.server import tune_process
from posviz.ui.chrome import FAVICON, lecture_styles, page_config
from posviz.ui.controls import control, finish_run, start_run
from posviz.ui.deck import editor, present
from posviz.ui.language import language_switch, start_language
from posviz.ui.reconnect import rerun_on_reconnect

tune_process()  # once per process: torch on one thread, the import-time heap out of garbage collection

# The favicon is set before st.navigation, or the browser fetches the page's Material icon from a font host.
st.set_page_config(page_title="posviz", page_icon=FAVICON, layout="wide")

start_language()  # before any text: the link's lang, the session's switch, or the browser's language
page = st.navigation(
    [
        st.Page(p.path, title=_(p.title), icon=f":material/{p.icon}:", url_path=p.key or None, default=not p.key)
        for p in PAGES
    ],
    expanded=True,  # every page listed: a learner sees the whole family, not "View 9 more"
)
page_config(page.title)  # the tab title and a favicon served by the app, not a font host
start_run(page.url_path)
deck = present.begin(page.url_path)  # a lecture deck's link: move to its slide before any widget is drawn
with st.sidebar:
    language_switch()
    control("lecture")
    rerun_on_reconnect()  # a page that reconnects to a restarted server reruns at once
    editor.sidebar(page.url_path, page.title, deck)
lecture_styles()
try:
    if present.present(deck):  # False for a deck's notes window: the notes without the figure
        page.run()
finally:  # also after a page's st.stop()
    finish_run()

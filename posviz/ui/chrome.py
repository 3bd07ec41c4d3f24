"""Page chrome: header, prose that folds away in lecture mode, rule errors."""

from __future__ import annotations

import streamlit as st

from posviz.ui.controls import ensure_app_entry, lecture_mode, show_notices


def page_header(title: str, summary: str) -> None:
    """Title, one-line summary, and any notices about refused link values."""
    ensure_app_entry()
    st.title(title)
    st.caption(summary)
    show_notices()


def prose(markdown: str, *, label: str = "Explanation") -> None:
    """Explanatory text: inline normally, folded into an expander in lecture mode."""
    if lecture_mode():
        with st.expander(label):
            st.markdown(markdown)
    else:
        st.markdown(markdown)


def section(title: str) -> None:
    st.header(title, divider="gray")


def rule_error(message: str) -> None:
    """A settings combination the scheme cannot compute: the rule and the fix."""
    st.error(message, icon=":material/rule:")


# Static CSS (no user text): in lecture mode the prose, headings and controls
# grow with the figures, for a projector at the back of a lecture hall.
_LECTURE_CSS = """<style>
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 1.3rem; line-height: 1.55; }
[data-testid="stMarkdownContainer"] code { font-size: 1.15rem; }
[data-testid="stMain"] h1 { font-size: 3.1rem; }
[data-testid="stMain"] h2 { font-size: 2.3rem; }
[data-testid="stCaptionContainer"] p { font-size: 1.1rem; }
[data-testid="stSidebar"] [data-testid="stWidgetLabel"] p { font-size: 1.1rem; }
[data-testid="stMainBlockContainer"] { max-width: 100%; }
[data-testid="stCode"] code { font-size: 1.05rem; }
[data-testid="stTable"] td, [data-testid="stTable"] th { font-size: 1.1rem; }
</style>"""


def lecture_styles() -> None:
    """Enlarge the page's text in lecture mode (figures enlarge themselves)."""
    if lecture_mode():
        st.html(_LECTURE_CSS)

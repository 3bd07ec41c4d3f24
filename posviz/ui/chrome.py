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

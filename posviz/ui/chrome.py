"""Page chrome: header, prose that folds away in lecture mode, rule errors."""

from __future__ import annotations

import html
import re
from pathlib import Path

import streamlit as st

from posviz.i18n import _
from posviz.ui.controls import lecture_mode, show_notices
from posviz.ui.front import style
from posviz.ui.sections import anchors
from posviz.ui.streamlit_private import ensure_app_entry


def page_header(title: str, summary: str) -> None:
    """Title, one-line summary, and any notices about refused link values."""
    ensure_app_entry()
    st.title(title)
    st.caption(summary)
    show_notices()


def prose(markdown: str, *, label: str | None = None) -> None:
    """Explanatory text: inline normally, folded into an expander in lecture mode (named ``label``, or
    "Explanation" in the run's language)."""
    if lecture_mode():
        with st.expander(label or _("Explanation")):
            st.markdown(markdown)
    else:
        st.markdown(markdown)


def anchor_of(text: str) -> str:
    """The id Streamlit's front end gives a heading of ``text``: lower case, runs of letters and digits
    joined by ``-`` ("1 · The decay of each pair" -> ``1-the-decay-of-each-pair``)."""
    return "-".join(w for w in re.split(r"[\W_]+", text.lower()) if w)


def section(title: str) -> None:
    """A numbered section's heading, in the run's language; its anchor is the English title's, so a
    link (or a deck step) opens the same section in every language. ``title`` is the English text
    (``tools.i18n`` takes ``section("...")`` as a marked text)."""
    st.header(_(title), anchor=anchor_of(title), divider="gray")


def subsection(title: str) -> None:
    """A heading under a section, translated as :func:`section` is, its anchor the English title's."""
    st.subheader(_(title), anchor=anchor_of(title))


def short_code(code: str) -> None:
    """A few lines of code in the text, drawn as plain preformatted text.

    ``st.code`` loads Streamlit's syntax highlighter, 1.5 MB of JavaScript that a first
    visit to a page would parse for three lines (0.4 s of Chromium's time to draw ``/t5``,
    measured with ``tools.loadtest --mode browser``). The "PyTorch code" blocks under
    figures keep ``st.code``: they are drawn only when opened.
    """
    st.html(f'<pre class="posviz-code"><code>{html.escape(code)}</code></pre>')


def rule_error(message: str) -> None:
    """A settings combination the scheme cannot compute: the rule and the fix."""
    st.error(message, icon=":material/rule:")


# Served by the app itself. Without a page icon set before ``st.navigation``, the
# browser fetches the page's st.Page icon (a Material symbol) from a font host.
FAVICON = Path(__file__).resolve().parents[1] / "assets" / "favicon.png"
TITLE_SUFFIX = " · posviz"


def page_config(title: str) -> None:
    """The tab title ``"<page title> · posviz"`` (call after ``st.navigation``, which would set the bare page title)."""
    st.set_page_config(page_title=f"{title}{TITLE_SUFFIX}")


# Lecture mode: every text the room reads is at least the body size, 20 px (front/lecture.css).
# Static styles (no user text), in posviz/ui/front: every page's (code in the text, tables, caption contrast),
# the lecture size, and outside lecture mode the rule that draws a table made at the lecture size back down.
PAGE_CSS = style("page.css")
LECTURE_CSS = style("lecture.css")
TABLES_ZOOM_OUT_CSS = style("tables-zoom-out.css")


def lecture_styles() -> None:
    """The code style and caption contrast; in lecture mode also larger text and the sidebar collapsed on a new visit.

    (Figures enlarge themselves in lecture mode.) Also: links open at their #anchor (posviz.ui.sections).

    The lecture style is Markdown, not ``st.html``: tables read the root font size once, when
    they are first drawn, so the style must be in the page before them. ``st.html`` waits for two
    chunks of Streamlit's front end that are loaded on first use (its element and DOMPurify), and
    a table's own chunk could arrive first: a /t5 table stayed at 14 px in 2 of 3 first visits at
    1024 x 768. The Markdown element's code is loaded with the page, so the style is applied as its
    message arrives, ahead of the page's tables. Static CSS, no user text (tests/test_security.py).
    """
    anchors()
    lecture = lecture_mode()
    st.html(PAGE_CSS if lecture else PAGE_CSS + TABLES_ZOOM_OUT_CSS)
    if lecture:
        st.set_page_config(initial_sidebar_state="collapsed")
        st.sidebar.markdown(LECTURE_CSS, unsafe_allow_html=True)

"""Page chrome: header, prose that folds away in lecture mode, rule errors."""

from __future__ import annotations

import html
from pathlib import Path

import streamlit as st

from posviz.ui.controls import lecture_mode, show_notices
from posviz.ui.sections import anchors
from posviz.ui.streamlit_private import ensure_app_entry


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


# Static CSS (no user text). Lecture mode: every text the room reads (prose,
# formulas, metrics, tables, figure text) is at least the body size, 20 px, the
# figures' lecture font (posviz.figures.common.look). Tables are drawn on a
# canvas at 0.875 rem of the root font size: a 23 px root draws them at 20 px,
# so sizes below are in px; the main area takes the width the collapsed sidebar leaves.
BODY_PX = 20
_LECTURE_CSS = """<style>
html { font-size: 23px; }
[data-testid="stMarkdownContainer"] p, [data-testid="stMarkdownContainer"] li { font-size: 20px; line-height: 1.5; }
[data-testid="stMarkdownContainer"] code { font-size: 18px; }
[data-testid="stMain"] h1 { font-size: 44px; padding-top: 0; }
[data-testid="stMain"] h2 { font-size: 34px; }
[data-testid="stMain"] h3 { font-size: 28px; }
[data-testid="stCaptionContainer"] p { font-size: 18px; }
[data-testid="stSidebar"] [data-testid="stWidgetLabel"] p { font-size: 18px; }
/* The fixed header is 3.75 rem tall (86 px at this root size): the page title starts below it. */
[data-testid="stMainBlockContainer"] { max-width: 100%; padding: calc(3.75rem + 12px) 32px 64px 32px; }
[data-testid="stCode"] code, pre.posviz-code { font-size: 17px; }
/* Display formulas at body size; one wider than its box wraps after a top-level = or + (KaTeX's break points). */
[data-testid="stMain"] .katex-display > .katex { font-size: 20px; white-space: normal; }
[data-testid="stMain"] .katex-display { overflow: hidden; padding: 4px 0; }
/* Metric labels wrap instead of being cut off with an ellipsis. */
[data-testid="stMetricLabel"], [data-testid="stMetricLabel"] * {
  white-space: normal; overflow: visible; text-overflow: clip;
}
[data-testid="stMetricValue"], [data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] p { font-size: 36px; }
/* Slider values: a size that fits above the thumb. */
[data-testid="stSliderThumbValue"] p, [data-testid="stSliderTickBar"] p { font-size: 18px; line-height: 1.2; }
[data-testid="stSliderThumbValue"] { top: auto; bottom: calc(100% + 6px); }
/* Page names wrap instead of being truncated. */
[data-testid="stSidebarNavLink"] span { white-space: normal; overflow: visible; text-overflow: clip; }
[data-testid="stTable"] td, [data-testid="stTable"] th { font-size: 20px; }
/* A table drawn before this style took effect (see _TABLE_ZOOM) is enlarged to the size it would have. */
[data-testid="stElementContainer"]:has([style*="--gdg-base-font-style: 400 14px"]) {
  zoom: 1.4375; width: calc(100% / 1.4375) !important;
}
</style>"""

# st.dataframe and st.data_editor read the root font size once, when a table is first drawn
# (the grid's font is 0.875 rem, its row height 2.1875 rem), and never again: a table drawn at
# one root size keeps it when lecture mode is switched, and a first visit in lecture mode can
# draw a table in the same React render as the lecture style, before the style is in the DOM
# (seen under load: 3 of 66 lecture visits). The grid writes the size it was drawn at into
# its inline style; a table drawn at the other mode's size is zoomed by the ratio of the root
# sizes (23 / 16 = 1.4375) in the width the page gives it, which draws it exactly as a table
# drawn at the right size. _LECTURE_CSS holds the rule upwards; _TABLE_ZOOM, sent outside
# lecture mode, the rule back down. tests/browser/test_lecture_browser.py switches both ways.
_TABLE_ZOOM = """<style>
[data-testid="stElementContainer"]:has([style*="--gdg-base-font-style: 400 20.125px"]) {
  zoom: 0.69565; width: calc(100% / 0.69565) !important;
}
</style>"""


# Code in the text (short_code) looks like st.code, in the font Streamlit serves. (Each figure holds its
# place until Plotly has drawn it: posviz.ui.plot.) Static CSS, no user text.
_CODE_CSS = """<style>
pre.posviz-code {
  background: #f0f2f6; border-radius: 0.5rem; padding: 0.75rem 1rem; margin: 0 0 1rem 0; overflow-x: auto;
  font-family: "Source Code Pro", monospace; font-size: 0.875rem; line-height: 1.5; color: #31333f;
}
/* posviz.ui.tables: Streamlit's table look; a cell keeps its line (a range such as "-15 <= r <= -12"), the
   last column (a note) wraps; a wide table scrolls sideways in its box, a tall one under its header. */
.posviz-table { overflow: auto; max-width: 100%; border: 1px solid #e6e9ef; border-radius: 0.5rem; }
.posviz-table:focus-visible { outline: 2px solid #ff4b4b; outline-offset: 2px; }
.posviz-table table { border-collapse: collapse; width: 100%; font-size: 1rem; color: #31333f; }
.posviz-table th, .posviz-table td {
  padding: 0.4rem 0.75rem; border-bottom: 1px solid #e6e9ef; text-align: left; white-space: nowrap;
}
.posviz-table td:last-child { white-space: normal; }
.posviz-table .num { text-align: right; }
.posviz-table thead th {
  position: sticky; top: 0; z-index: 1; background: #ffffff; font-weight: 600; box-shadow: inset 0 -1px 0 #d5d6d9;
}
.posviz-table tbody tr:last-child td { border-bottom: none; }
</style>"""

# Text contrast of at least 4.5:1 (WCAG AA, checked by axe-core in tests/browser/test_container_browser.py).
# Streamlit draws captions at 60 % opacity: #828180 on white, 3.9:1. This colour keeps them lighter
# than the body text at full opacity: 6.2:1 on white, 5.5:1 on the sidebar's #f0f2f6.
_CONTRAST_CSS = """<style>
[data-testid="stCaptionContainer"] { opacity: 1; color: #63615e; }
</style>"""


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
    st.html(_CODE_CSS + _CONTRAST_CSS + ("" if lecture else _TABLE_ZOOM))
    if lecture:
        st.set_page_config(initial_sidebar_state="collapsed")
        st.sidebar.markdown(_LECTURE_CSS, unsafe_allow_html=True)

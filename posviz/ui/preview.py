"""Still pictures of a session's first charts, shown until Plotly has loaded and drawn them.

A browser draws no Plotly chart before it has loaded Streamlit's Plotly code
(4.7 MB of JavaScript) and compiled and run it: about two seconds after a first
visit's page is otherwise ready (``tools.loadtest --mode browser``). Until then
Streamlit shows a skeleton in the chart's place. On a session's first run with
charts, each figure sends a style (an ``st.html`` of only ``<style>``, which
takes no room on the page) that paints the skeleton with the figure's still
picture (:func:`posviz.figures.preview.preview`) at the chart's size, with a
small "loading" note. The interactive chart replaces the skeleton, and so the
picture, when it is drawn. Later runs of the session send no pictures: the
browser has Plotly by then, and shows no skeleton.

The picture is built once per frozen figure (figures are shared between
sessions, :mod:`posviz.ui.frozen`) and costs a first visit a few kilobytes per chart.
What this leans on: Streamlit gives an element with ``key=k`` the CSS class
``st-key-k`` (characters outside ``[a-zA-Z0-9_-]`` as ``-``, a documented
convention) and shows ``[data-testid="stSkeleton"]`` until a chart's code has
loaded; ``tests/ui/test_preview.py`` checks both against the installed Streamlit.
"""

from __future__ import annotations

import re
import threading
import urllib.parse
from typing import Any

import streamlit as st

from posviz.figures.preview import Preview, preview

_SENT = "_posviz_charts_sent"
_THIS_RUN = "_posviz_previews_this_run"
_EMITTED = "_posviz_previews_emitted"
_CACHE_ATTR = "_posviz_preview_css"
_LOCK = threading.Lock()
NOTE = "interactive chart loading…"


def begin_run() -> None:
    """Called first on every full script run (``app.py``): it sends pictures if no run has delivered charts yet."""
    st.session_state[_THIS_RUN] = not st.session_state.get(_SENT, False)
    st.session_state[_EMITTED] = False


def run_completed() -> None:
    """Called when a full run ends normally: its charts, if any, have reached the browser.

    A run cut short by a rerun (a control moved while the page loads, a link
    corrected) is not: the next run's elements replace its own, so that run sends the pictures again.
    """
    if st.session_state.get(_EMITTED):
        st.session_state[_SENT] = True


def end_run() -> None:
    """Called last on every full run: a fragment's later reruns of its own part send no pictures."""
    st.session_state[_THIS_RUN] = False


def key_class(key: str) -> str:
    """The CSS class Streamlit gives an element with this key."""
    return "st-key-" + re.sub(r"[^a-zA-Z0-9_-]", "-", key.strip())


def _url(svg: str) -> str:
    return "data:image/svg+xml," + urllib.parse.quote(svg, safe=" =:;,.-_/'()")


def _color(value: str) -> str:
    """A CSS colour from a figure's spec, or white when it is anything but a plain colour."""
    return value if re.fullmatch(r"#[0-9a-fA-F]{3,8}|rgba?\([0-9., ]+\)|[a-z]+", value) else "#fff"


def style_for(pic: Preview, key: str) -> str:
    """The style that paints ``pic`` in the place of the element keyed ``key`` until its chart is drawn.

    The place (Streamlit's element container) holds the skeleton while Plotly's code loads,
    then an empty chart while Plotly starts and draws: the picture is the place's own
    background, at the chart's height, for as long as the place holds no drawn chart
    (``:not(:has(.main-svg))``: Plotly's drawn SVG). The pictures are percent-encoded SVG
    with their text XML-escaped: nothing in them ends the URL or the style.
    """
    slot = f".{key_class(key)}:not(:has(.main-svg))"
    ink_pos = f"{pic.left:.1f}px {pic.top:.1f}px"
    ink_size = f"{pic.ink_width_css()} {pic.plot_height:.1f}px"
    return (
        f"{slot} {{ min-height: {pic.height}px; position: relative;"
        f' background: url("{_url(pic.text)}") 0 0 / 100% {pic.height}px no-repeat,'
        f' url("{_url(pic.ink)}") {ink_pos} / {ink_size} no-repeat, {_color(pic.background)}; }}'
        f'{slot} [data-testid="stSkeleton"] {{ height: {pic.height}px; background: none; border: none;'
        " animation: none; }"
        f'{slot} [data-testid="stSkeleton"]::after {{ content: none; }}'
        f'{slot}::after {{ content: "{NOTE}"; position: absolute; right: 8px; top: 6px; font-size: 12px;'
        " color: #4b5563; background: rgba(255,255,255,0.85); padding: 1px 6px; border-radius: 4px; }"
    )


def figure_style(fig: Any, key: str) -> str | None:
    """The picture's style for ``fig`` drawn under ``key``; None when it cannot be drawn. Cached on the figure."""
    # Kept in the figure's __dict__: attribute lookup on a figure not yet built would build it.
    cache = fig.__dict__.get(_CACHE_ATTR)
    if cache is None:
        with _LOCK:
            cache = fig.__dict__.get(_CACHE_ATTR)
            if cache is None:
                cache = {"pic": preview(fig.to_dict())}
                object.__setattr__(fig, _CACHE_ATTR, cache)
    pic = cache["pic"]
    if pic is None:
        return None
    css = cache.get(key)
    if css is None:
        css = cache[key] = style_for(pic, key)
    return css


def show(fig: Any, key: str) -> None:
    """Before a chart: its picture, on the session's first run with charts."""
    if not st.session_state.get(_THIS_RUN):
        return
    st.session_state[_EMITTED] = True
    css = figure_style(fig, key)
    if css:
        # In the sidebar, after its controls: no room taken on the page, no element of the page moved.
        # Markdown, not st.html: Streamlit draws st.html only once Plotly has loaded on a first visit.
        st.sidebar.markdown(f"<style>{css}</style>", unsafe_allow_html=True)

"""The language of a run: the link's ``lang``, else the session's choice, else the browser's.

:func:`start_language` runs first in ``app.py``, before the navigation's titles are drawn: it picks
the language and makes it this run's (:func:`posviz.i18n.activate`, a context variable of the run's
own thread, so every session reads in its own language). The sidebar's switch is the URL-bound
control ``lang`` (:mod:`posviz.ui.params`), drawn by :func:`language_switch`; moving it reruns the
page in the new language with every other key of the link kept.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import streamlit as st

from posviz.i18n import DEFAULT, LANGUAGES, activate
from posviz.ui.controls import control, set_on_next_run
from posviz.ui.state import DECK_ARRIVE, LANG_FROM_BROWSER


def browser_language(locale: str | None) -> str | None:
    """The language of ``st.context.locale`` (``"zh-CN"``, ``"zh-Hans-TW"`` -> ``"zh"``) when posviz has it."""
    if not locale:
        return None
    lang = locale.replace("_", "-").split("-")[0].lower()
    return lang if lang in LANGUAGES else None


def start_language() -> str:
    """Choose and activate this run's language (call before any text is drawn).

    Order: a deck's slide arriving with its language; the switch's value (the session's widget,
    which Streamlit keeps in step with the link); a ``lang`` in the link (an unknown value reads as
    English until the control draws its notice); the browser's language on a session's first run
    (put into the link, so the address bar says it).
    """
    state = st.session_state
    arriving = state.get(DECK_ARRIVE)  # a deck's slide about to seed its settings (its language among them)
    lang = arriving[0].get("lang") if arriving else state.get("lang")
    if lang not in LANGUAGES:
        raw = st.query_params.get_all("lang")
        if raw:
            lang = raw[-1] if raw[-1] in LANGUAGES else DEFAULT
        elif LANG_FROM_BROWSER not in state:
            state[LANG_FROM_BROWSER] = True
            lang = browser_language(_locale()) or DEFAULT
            if lang != DEFAULT:
                set_on_next_run({"lang": lang})  # the switch takes it, and Streamlit writes it to the link
        else:
            lang = DEFAULT
    activate(lang)
    return lang


def _locale() -> str | None:
    try:
        return st.context.locale
    except (AttributeError, RuntimeError):  # no browser behind the session (AppTest)
        return None


def fragment(draw: Callable[[], None]) -> Callable[[], None]:
    """``st.fragment(draw)`` whose own reruns (a walk-through's Previous / Next, a toggle in it) are in the
    session's language too: a fragment's rerun runs ``draw`` alone, without ``app.py``, which sets the
    language of a full run. Every page's fragment is made with this (``tests/i18n``)."""

    @functools.wraps(draw)
    def run() -> None:
        start_language()
        draw()

    return st.fragment(run)


def language_switch() -> str:
    """The sidebar's language switch (URL key ``lang``); returns the language chosen."""
    return control("lang")

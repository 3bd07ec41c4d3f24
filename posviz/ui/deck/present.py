"""Presenting a deck: the clicker's keys, the progress, the notes window and the audience window.

A deck link is ``/<page>?deck=<name or z.…>&slide=<n>`` (and ``room=``, ``view=``, and any
settings changed on top of the slide's). Moving to a slide (a button, a clicker key, a followed
room, the browser's back button) switches to the step's page and hands each of the step's
settings to the page's widget through ``st.session_state``: Streamlit refuses to set a
URL-bound widget's query parameter, and a session-state value is its public way in. A setting
the step does not give goes back to the page's default. Values are read by the same parser as
any link, so a bad value gets the same notice. Opening a deck link (a reload, a shared link,
a second window) applies the slide's settings and then the link's own on top, so the address
bar reopens the view on screen.

``app.py`` calls :func:`begin` after ``start_run`` and before any widget, and runs the page
only when :func:`present` returns True.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from posviz.i18n import DEFAULT, _, current, use
from posviz.schemes import page_of
from posviz.ui.controls import widget_value
from posviz.ui.deck import model, offline
from posviz.ui.deck.links import every_url_key, page_params, step_values
from posviz.ui.deck.model import Deck, Step
from posviz.ui.deck.rooms import ROOMS
from posviz.ui.front import asset, style
from posviz.ui.params import plain, quote_raw
from posviz.ui.state import DECK_ARRIVE, DECK_MOVE, DECK_NOTICES, DECK_OPENED, DECK_SHOWN, seed

_MOVE = DECK_MOVE  # the session's keys are listed in posviz.ui.state
_ARRIVE = DECK_ARRIVE
_OPENED = DECK_OPENED
_NOTICES = DECK_NOTICES
_SHOWN = DECK_SHOWN
VIEWS = ("presenter", "notes", "audience")
FOLLOW_S = 1.0  # how often a window in a room looks where the room is

# Static front-end code (no user text): the clicker's keys and each slide opened at its figure;
# the audience window shows only the page: no deck bar, no sidebar.
_CLICKER_JS = "<script>\n" + asset("clicker.js") + "</script>"
# (Streamlit's sanitiser, DOMPurify, drops a script whose text holds "<" before a letter or "/":
# tests/ui/test_deck_clicker.py checks posviz/ui/front/clicker.js has none.)
_AUDIENCE_CSS = style("audience.css")


@dataclass(frozen=True)
class DeckRun:
    """The deck this run shows: the link's value, the deck, the slide (1-based), the view, the room."""

    value: str
    deck: Deck
    slide: int
    view: str
    room: str | None

    @property
    def step(self) -> Step:
        return self.deck.step(self.slide)


def load(value: str) -> Deck:
    """The deck a link's ``deck=`` value names (parsed once per value, language and process: its notices
    are in the run's language)."""
    return _load(value, current())


@st.cache_data(max_entries=64, show_spinner=False)
def _load(value: str, lang: str) -> Deck:
    with use(lang):
        return model.from_link_value(value)


def begin(page: str) -> DeckRun | None:
    """Before any widget: apply a slide just arrived at, or move to one. None outside a deck."""
    state = st.session_state
    arrive = state.pop(_ARRIVE, None)
    if arrive is not None:
        _apply(page, *arrive)
    value = st.query_params.get("deck")
    if value is None:
        return None
    deck = load(value)
    run = DeckRun(value, deck, _slide(deck), _view(), _room())
    move = state.pop(_MOVE, None)
    opened = state.setdefault(_OPENED, set())
    if move is None and value not in opened and deck.steps:
        # Opened from a link: the slide's own settings, and on top of them any the link changes.
        opened.add(value)
        link = st.query_params.to_dict().items()
        changes = tuple((k, v) for k, v in link if k not in model.DECK_KEYS) if run.step.page == page else ()
        move = (value, run.slide, changes, tuple(_key_notices(run)))
    elif move is None and state.get(_SHOWN, (value, run.slide)) != (value, run.slide) and deck.steps:
        move = (value, run.slide, ())  # the browser's back or forward button, or an edited slide=
    if move is not None:
        go(run, *move)
    return run


def go(
    run: DeckRun, value: str, slide: int, changes: tuple[tuple[str, str], ...] = (), notices: tuple[str, ...] = ()
) -> None:
    """Switch to ``slide`` of the deck ``value`` (its page, its settings, then ``changes``); the room follows.

    ``notices``: what the link that asked for the move got wrong (shown on the slide it opens).
    """
    deck = load(value)
    if not deck.steps:
        return
    slide = min(max(slide, 1), len(deck.steps))
    step = deck.step(slide)
    values, found = step_values(replace(step, params=tuple({**dict(step.params), **dict(changes)}.items())))
    values.setdefault("lecture", st.session_state.get("lecture", True))
    values.setdefault("lang", deck.lang or st.session_state.get("lang", DEFAULT))  # the deck's, else the viewer's
    st.session_state[_ARRIVE] = (values, [*notices, *step.problems, *found], (value, slide))
    if run.room is not None:
        ROOMS.move(run.room, value, slide)
    query = {"deck": value, "slide": str(slide)}
    if run.view != "presenter":
        query["view"] = run.view
    if run.room is not None:
        query["room"] = run.room
    st.switch_page(page_of(step.page).path, query_params=query)


def _apply(page: str, values: dict[str, Any], notices: list[str], where: tuple[str, int]) -> None:
    """The step's settings into the page's widgets, every other setting of the page at its default.

    Every one of the page's keys is given a value (:func:`posviz.ui.state.seed`), none deleted: a
    deleted key would leave the browser showing the last slide's value (``step=4`` on a slide whose
    link names no step) and sending it back on the next run.
    """
    state = st.session_state
    params = page_params(page)
    for key in [k for k in state if k in every_url_key() and k not in params]:
        del state[key]  # another page's setting: no widget of this page holds it
    seed({key: widget_value(p, values.get(key, p.default)) for key, p in params.items()})
    state[_NOTICES] = {where: notices}
    state[_SHOWN] = where


def _slide(deck: Deck) -> int:
    raw = st.query_params.get("slide", "1")
    try:
        slide = int(raw)
    except ValueError:
        slide = 1
    if deck.steps and not 1 <= slide <= len(deck.steps):
        slide = min(max(slide, 1), len(deck.steps))
    return slide


def _view() -> str:
    view = st.query_params.get("view", "presenter")
    return view if view in VIEWS else "presenter"


def _room() -> str | None:
    code = st.query_params.get("room")
    return code if code is not None and ROOMS.where(code) is not None else None


def _key_notices(run: DeckRun) -> list[str]:
    """What the link's own deck keys (slide, view, room) got wrong."""
    notices = []
    raw = st.query_params.get("slide")
    if raw is not None and raw != str(run.slide):
        notices.append(
            _("slide={raw} in the link is not a slide of this deck (1 to {last}); showing slide {slide}.").format(
                raw=quote_raw(raw), last=len(run.deck.steps), slide=run.slide
            )
        )
    view = st.query_params.get("view")
    if view is not None and view not in VIEWS:
        notices.append(
            _("view={raw} in the link is not one of {views}; presenting.").format(
                raw=quote_raw(view), views=", ".join(VIEWS)
            )
        )
    code = st.query_params.get("room")
    if code is not None and run.room is None:
        notices.append(
            _("room={raw} is not open on this server (it may have restarted); not following.").format(
                raw=quote_raw(code)
            )
        )
    return notices


def _link_notices(run: DeckRun) -> list[str]:
    """Every notice about this slide: the deck file's, the link's keys', the step's settings'."""
    notices = [*run.deck.problems, *_key_notices(run)]
    for notice in st.session_state.get(_NOTICES, {}).get((run.value, run.slide), []):
        if notice not in notices:
            notices.append(notice)
    return notices


def _move(value: str, slide: int) -> None:
    st.session_state[_MOVE] = (value, slide, ())


def present(run: DeckRun | None) -> bool:
    """The deck's bar over the page (or the notes window); whether the page itself is drawn."""
    if run is None:
        return True
    st.sidebar.html(_CLICKER_JS, unsafe_allow_javascript=True)  # in the sidebar: the main area holds no script
    if run.view == "audience":
        st.html(_AUDIENCE_CSS)
    if run.room is not None:
        _follow(run)
    if not run.deck.steps:
        for notice in _link_notices(run):
            st.warning(notice, icon=":material/link_off:")
        return run.view != "notes"
    if run.view == "notes":
        _notes(run)
        return False
    with st.container(key="deck_bar"):
        _bar(run)
    return True


def _bar(run: DeckRun) -> None:
    last = len(run.deck.steps)
    left, middle, right = st.columns([3, 6, 3], vertical_alignment="center")
    left.button(
        _("Previous"),
        key="deck_prev",
        icon=":material/arrow_back:",
        on_click=_move,
        args=(run.value, run.slide - 1),
        disabled=run.slide <= 1,
        width="stretch",
    )
    right.button(
        _("Next"),
        key="deck_next",
        icon=":material/arrow_forward:",
        on_click=_move,
        args=(run.value, run.slide + 1),
        disabled=run.slide >= last,
        width="stretch",
    )
    progress = _("**Slide {slide} of {last}**").format(slide=run.slide, last=last)
    middle.progress(run.slide / last, text=f"{progress} · {quote_raw(run.step.title, 120)}")
    for notice in _link_notices(run):
        st.warning(notice, icon=":material/link_off:")
    if run.step.anchor:  # the page opens there (posviz.ui.sections reads this link); the link brings it back
        with st.container(key=f"deck_anchor_{run.slide}"):
            st.markdown(_("[Go to the section on this slide](#{anchor})").format(anchor=run.step.anchor))
    # Open in a room: its two links are what the presenter came for, and the rerun that opens the
    # room may draw the slide anew (a moved room switches page), which would fold the expander again.
    with st.expander(_("Notes and a second window"), icon=":material/co_present:", expanded=run.room is not None):
        _windows(run)
        if run.step.notes:
            st.markdown(run.step.notes)
        offline.offer(run.deck, "deck_export")


def _windows(run: DeckRun) -> None:
    """Links to the notes window and the audience window, both following this one through a room."""
    if run.room is None:
        st.caption(
            _(
                "Open a room to let other windows follow this one: the notes on your laptop, "
                "the figure alone on the projector."
            )
        )
        if st.button(_("Open a room"), key="deck_room", icon=":material/cast:"):
            code = ROOMS.open(run.value, run.slide)
            st.query_params["room"] = code
            st.rerun()
        return
    here = {k: v for k, v in st.query_params.to_dict().items() if k != "view"}
    path = st.context.url.split("?")[0] if st.context.url else ""
    notes = f"{path}?{urlencode({**here, 'view': 'notes'})}"
    audience = f"{path}?{urlencode({**here, 'view': 'audience'})}"
    st.markdown(
        _("Room `{room}`: [notes window]({notes}) · [audience window (the figure only)]({audience})").format(
            room=run.room, notes=notes, audience=audience
        )
    )


def _notes(run: DeckRun) -> None:
    """The notes window: this slide's title and notes, the next slide's title, the clicker's keys."""
    last = len(run.deck.steps)
    st.caption(_("{title} · notes window").format(title=quote_raw(_(run.deck.title), 120)))
    st.progress(run.slide / last, text=_("**Slide {slide} of {last}**").format(slide=run.slide, last=last))
    st.header(plain(run.step.title), anchor=False)
    for notice in _link_notices(run):
        st.warning(notice, icon=":material/link_off:")
    st.markdown(run.step.notes or _("*No notes for this slide.*"))
    if run.slide < last:
        st.caption(_("Next: {title}").format(title=quote_raw(run.deck.step(run.slide + 1).title, 120)))
    left, right = st.columns(2)
    left.button(_("Previous"), key="deck_prev", icon=":material/arrow_back:", on_click=_move,
                args=(run.value, run.slide - 1), disabled=run.slide <= 1, width="stretch")  # fmt: skip
    right.button(_("Next"), key="deck_next", icon=":material/arrow_forward:", on_click=_move,
                 args=(run.value, run.slide + 1), disabled=run.slide >= last, width="stretch")  # fmt: skip


def _follow(run: DeckRun) -> None:
    @st.fragment(run_every=FOLLOW_S)
    def follow() -> None:
        where = ROOMS.where(run.room or "")
        if where is not None and (where.deck, where.slide) != (run.value, run.slide):
            _move(where.deck, where.slide)
            st.rerun(scope="app")

    follow()

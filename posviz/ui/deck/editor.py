"""Writing a deck in the app: the shared sidebar's "Add this view to the deck", and the deck's steps.

The deck being written lives in the session (a list of plain dicts); it is checked by the same
reader as a file whenever it is presented or downloaded. Present it and its link carries it
whole (``deck=z.…``), so that link reopens it anywhere; download it as a TOML file to keep it.
"""

from __future__ import annotations

import secrets
from typing import Any

import streamlit as st

from posviz.i18n import _, ngettext
from posviz.ui.deck import model, offline
from posviz.ui.deck.links import view_params
from posviz.ui.deck.model import Deck
from posviz.ui.deck.present import DeckRun, go, load
from posviz.ui.params import plain
from posviz.ui.state import DECK_DRAFT, DECK_PROBLEMS

_DRAFT = DECK_DRAFT  # the session's keys are listed in posviz.ui.state


def _new_id() -> str:
    """A step's id: its widgets keep to it after a reorder."""
    return secrets.token_hex(4)


def _draft() -> dict[str, Any]:
    return st.session_state.setdefault(_DRAFT, {"title": _("My lecture"), "steps": []})


def _set_draft(deck: Deck) -> None:
    steps = [{"id": _new_id(), "title": s.title, "link": s.link, "notes": s.notes} for s in deck.steps]
    st.session_state[_DRAFT] = {"title": deck.title, "steps": steps}
    st.session_state["deck_ed_title"] = deck.title


def draft_deck() -> Deck:
    """The deck being written, read back as a file would be."""
    d = _draft()
    return model.from_data(
        {"title": d["title"], "step": [{k: s[k] for k in ("title", "link", "notes")} for s in d["steps"]]}
    )


def _add(page: str, title: str) -> None:
    """This view (its page and its link's settings, without the deck's own keys) as the deck's last step."""
    link = {k: v for k, v in st.query_params.to_dict().items() if k not in model.DECK_KEYS}
    params = view_params(page, st.session_state, link)
    link = model.Step(title, page, tuple(params.items())).link
    steps = _draft()["steps"]
    if len(steps) < model.MAX_STEPS:
        steps.append({"id": _new_id(), "title": title, "link": link, "notes": ""})
        st.session_state["deck_ed_pick"] = len(steps) - 1


def _shift(i: int, delta: int) -> None:
    steps = _draft()["steps"]
    j = i + delta
    if 0 <= j < len(steps):
        steps[i], steps[j] = steps[j], steps[i]
        st.session_state["deck_ed_pick"] = j


def _delete(i: int) -> None:
    steps = _draft()["steps"]
    if 0 <= i < len(steps):
        del steps[i]
        st.session_state["deck_ed_pick"] = max(min(i, len(steps) - 1), 0)


def _upload() -> None:
    file = st.session_state.get("deck_ed_upload")
    if file is None:
        return
    deck = model.loads(file.getvalue()[: model.MAX_FILE_BYTES + 1], name=file.name)
    _set_draft(deck)
    st.session_state[DECK_PROBLEMS] = list(deck.problems) + [p for s in deck.steps for p in s.problems]
    st.session_state["deck_ed_pick"] = 0


def _edit_copy(value: str) -> None:
    _set_draft(load(value))
    st.session_state["deck_ed_pick"] = 0


def sidebar(page: str, title: str, run: DeckRun | None) -> None:
    """The shared sidebar's deck tools (drawn on every page, in one place)."""
    st.button(
        _("Add this view to the deck"),
        key="deck_add",
        icon=":material/playlist_add:",
        on_click=_add,
        args=(page, title),
        width="stretch",
        help=_("Adds this page with its settings as the last step of the deck you are writing."),
    )
    d = _draft()
    steps = d["steps"]
    label = ngettext("Your deck: {n} step", "Your deck: {n} steps", len(steps)).format(n=len(steps))
    # Built and drawn only while open (a rerun on each toggle), as a figure's code block: closed, the
    # editor costs every rerun of every page one expander instead of its dozen widgets. Its label counts
    # the steps, and a new label is a new expander to Streamlit: it opens as the reader left it.
    was_open = bool(st.session_state.get("deck_ed_open", False))
    with st.expander(
        label, icon=":material/slideshow:", key="deck_ed_open", expanded=was_open, on_change="rerun"
    ) as box:
        if not box.open:
            return
        if run is not None:
            st.button(
                _("Edit a copy of the deck on screen"), key="deck_ed_copy", on_click=_edit_copy, args=(run.value,)
            )
        d["title"] = st.text_input(_("Deck title"), value=d["title"], max_chars=model.MAX_TITLE, key="deck_ed_title")
        for problem in st.session_state.pop(DECK_PROBLEMS, []):
            st.warning(problem, icon=":material/link_off:")
        if steps:
            _step_editor(steps)
            deck = draft_deck()
            st.download_button(
                _("Download the deck (TOML)"),
                data=model.dumps(deck),
                file_name="deck.toml",
                mime="application/toml",
                key="deck_ed_download",
                icon=":material/download:",
                width="stretch",
                on_click="ignore",
            )
            offline.offer(deck, "deck_ed_export")
            if st.button(_("Present this deck"), key="deck_ed_present", icon=":material/play_arrow:", width="stretch"):
                value = model.encode(deck)
                go(run or DeckRun(value, deck, 1, "presenter", None), value, 1)
        # The uploader is drawn only when asked for: a page's own uploader stays the only one on it.
        if st.toggle(_("Open a deck file"), key="deck_ed_open_file"):
            st.file_uploader(
                _("A deck file (TOML or JSON)"),
                type=["toml", "json"],
                key="deck_ed_upload",
                on_change=_upload,
                help=_("At most {kb} KB and {steps} steps.").format(
                    kb=model.MAX_FILE_BYTES // 1024, steps=model.MAX_STEPS
                ),
            )


def _step_editor(steps: list[dict[str, Any]]) -> None:
    state = st.session_state
    for s in steps:  # edits typed on the last run, before the list shows the titles
        s["title"] = state.get(f"deck_ed_t{s['id']}", s["title"])
        s["notes"] = state.get(f"deck_ed_n{s['id']}", s["notes"])
    pick = min(st.session_state.get("deck_ed_pick", 0), len(steps) - 1)
    st.session_state["deck_ed_pick"] = pick
    st.markdown("\n".join(f"{k + 1}. {plain(s['title'])}" for k, s in enumerate(steps)))
    # Labels that do not change when a title is edited: a widget's value is its label.
    i = st.selectbox(
        _("Edit step"), range(len(steps)), format_func=lambda k: _("Step {n}").format(n=k + 1), key="deck_ed_pick"
    )
    s = steps[i]
    s["title"] = st.text_input(_("Title"), value=s["title"], max_chars=model.MAX_TITLE, key=f"deck_ed_t{s['id']}")
    s["notes"] = st.text_area(
        _("Notes (Markdown)"), value=s["notes"], max_chars=model.MAX_NOTES, height=120, key=f"deck_ed_n{s['id']}"
    )
    st.caption(_("Link: `{link}`").format(link=s["link"][:200]))
    up, down, delete = st.columns(3)
    up.button(_("Up"), key="deck_ed_up", icon=":material/arrow_upward:", on_click=_shift, args=(i, -1),
              disabled=i == 0, width="stretch")  # fmt: skip
    down.button(_("Down"), key="deck_ed_down", icon=":material/arrow_downward:", on_click=_shift, args=(i, 1),
                disabled=i == len(steps) - 1, width="stretch")  # fmt: skip
    delete.button(_("Delete"), key="deck_ed_delete", icon=":material/delete:", on_click=_delete, args=(i,),
                  width="stretch")  # fmt: skip

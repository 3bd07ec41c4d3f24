"""Every ``st.session_state`` key posviz uses, what it holds, and the one way a widget's value is set.

A session holds three kinds of keys:

* **URL keys**: one per setting (``posviz.ui.params.PARAMS`` and each scheme's own ``Param``),
  the key of the widget bound to that query parameter. Streamlit owns their values.
* **Widget keys** that are not in the link: buttons, uploaders, the deck editor's fields, and
  families named by a prefix (``fig_<name>``, ``csv_<name>``, ``code_<slot>``, ``show_<part>``).
* **Scratch keys** posviz keeps between runs (the ``_``-prefixed ones below): plain data no
  widget is bound to.

Widget values are set only through :func:`seed`: before the widget is drawn in the run, by
assignment (``st.session_state[key] = value``), Streamlit's documented way in, which also tells
the browser to show the value. A drawn widget's key is never deleted to "reset" it: Streamlit
then forgets the value while the browser keeps showing (and sending back) the old one.

:data:`KEYS` lists every fixed key and :data:`FAMILIES` every prefix; ``tests/ui/test_state.py``
runs pages and fails on any key in a session that :func:`declared` does not know.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

# --- controls (posviz.ui.controls) -------------------------------------------------------------
PENDING = "_posviz_pending"  # {URL key: value} for controls to take on the next run (set_on_next_run)
FIXED = "_posviz_fixed"  # {URL key}: keys whose link value was corrected once (guards against loops)
BOUNDS = "_posviz_bounds"  # {URL key: (low, high)}: each number control's bounds when last drawn
RERUN = "_posviz_rerun"  # bool: a link was corrected or a notice came late, finish_run reruns
NOTICES = "_posviz_notices"  # {URL key: (message, value it was about)}: the header's link notices
HEADER_SHOWN = "_posviz_header_shown"  # bool: this run has drawn the notices already
PAGE = "_posviz_page"  # str: URL path of the page the last run drew
BOUND = "_posviz_bound"  # {URL key}: every URL key a control has drawn in this session
ENTERED = "_posviz_app_entered"  # bool: the session has had a run through app.py (streamlit_private)

# --- lecture decks (posviz.ui.deck) --------------------------------------------------------------
DECK_MOVE = "_deck_move"  # (deck value, slide, changes, notices): the move this run makes (a key, a room)
DECK_ARRIVE = "_deck_arrive"  # (values, notices, (deck value, slide)): the slide the page's first run seeds
DECK_OPENED = "_deck_opened"  # {deck value}: decks this session has opened (a link opens once, then follows)
DECK_NOTICES = "_deck_notices"  # {(deck value, slide): [notice]}: what the slide's link got wrong
DECK_SHOWN = "_deck_shown"  # (deck value, slide): the slide this session last moved to
DECK_DRAFT = "_deck_draft"  # {"title", "steps": [{"id", "title", "link", "notes"}]}: the deck being written
DECK_EXPORTS = "_deck_exports"  # {sha256 of a deck's TOML}: decks whose HTML file this session asked for
DECK_PROBLEMS = "deck_ed_problems"  # [notice]: an uploaded deck file's problems, shown once

# --- pages ------------------------------------------------------------------------------------------
MODELS_SEEN = "_models_seen"  # (model, vs, upload digest, layers) of the /models page's last run
MODELS_NOTICES = "_models_notices"  # {URL key: (notice, the model it is about)}: shown while that model is drawn
MODELS_SHOWN = "_models_shown_"  # + URL key ("model", "vs"): the value this page last put in the list
MODELS_HUB_BOX = "_models_hub_"  # + URL key: the Hub id text box under a model's list
T5_KEPT = "t5_kept_table"  # the /t5 bias table in use, kept while its editor is closed
LANG_FROM_BROWSER = "_lang_from_browser"

KEYS: dict[str, str] = {
    PENDING: "controls: values for controls to take on the next run",
    FIXED: "controls: URL keys whose link value was corrected once",
    BOUNDS: "controls: each number control's bounds when last drawn",
    RERUN: "controls: a corrected link asks for one more run",
    NOTICES: "controls: the link notices the header draws",
    HEADER_SHOWN: "controls: the header's notices are drawn on this run",
    PAGE: "controls: the page the last run drew",
    BOUND: "controls: the URL keys drawn in this session",
    ENTERED: "streamlit_private: the session has run through app.py",
    DECK_MOVE: "deck: the slide this run moves to",
    DECK_ARRIVE: "deck: the settings the arriving slide seeds",
    DECK_OPENED: "deck: decks opened from a link",
    DECK_NOTICES: "deck: notices about a slide's link",
    DECK_SHOWN: "deck: the slide last moved to",
    DECK_DRAFT: "deck editor: the deck being written",
    DECK_EXPORTS: "deck: the decks made into one HTML file",
    DECK_PROBLEMS: "deck editor: an uploaded file's problems",
    MODELS_SEEN: "/models: the models and depth of the last run",
    MODELS_NOTICES: "/models: a notice about a model, kept while it is drawn",
    T5_KEPT: "/t5: the bias table kept while its editor is closed",
    LANG_FROM_BROWSER: "language: the browser's language was read (a session's first run)",
    # Widgets that are not settings (their value is the widget's own).
    "lecture": "sidebar: lecture mode (a URL key drawn on every page)",
    "lang": "sidebar: the language switch (a URL key drawn on every page)",
    "step": "walk-throughs: the step slider (a URL key)",
    "step_prev": "walk-throughs: Previous",
    "step_next": "walk-throughs: Next",
    "deck_add": "sidebar: Add this view to the deck",
    "deck_prev": "deck bar / notes window: Previous (PageUp, ←)",
    "deck_next": "deck bar / notes window: Next (PageDown, →, Space)",
    "deck_room": "deck bar: Open a room",
    "deck_bar": "deck bar: its container",
    "deck_export": "deck bar's notes: make the deck one HTML file",
    "deck_export_file": "deck bar's notes: download that file",
    "deck_ed_open": "deck editor: its expander",
    "deck_ed_copy": "deck editor: Edit a copy of the deck on screen",
    "deck_ed_title": "deck editor: the deck's title",
    "deck_ed_pick": "deck editor: the step being edited",
    "deck_ed_up": "deck editor: move the step up",
    "deck_ed_down": "deck editor: move the step down",
    "deck_ed_delete": "deck editor: delete the step",
    "deck_ed_download": "deck editor: download the TOML file",
    "deck_ed_export": "deck editor: make the deck one HTML file",
    "deck_ed_export_file": "deck editor: download that file",
    "deck_ed_present": "deck editor: present the deck",
    "deck_ed_open_file": "deck editor: show the file uploader",
    "deck_ed_upload": "deck editor: the uploaded deck file",
    "models_upload": "/models: an uploaded config.json",
    "t5_upload": "/t5: an uploaded .safetensors table",
    "t5_upload_name": "/t5: the table picked in the uploaded file",
    "t5_apply_shape": "/t5: use the uploaded table's shape",
    "posviz_resync_guard": "reconnect: the guard component",
}

# Keys made per figure, section, step or upload: the prefix, and what each holds.
FAMILIES: dict[str, str] = {
    "fig_": "a figure's component (its box selection): fig_<name>",
    "csv_": "a figure's CSV download button: csv_<name>",
    "code_": "a figure's code block, open or not: code_<slot>",
    "show_": "a section drawn on demand, open or not (a URL key): show_<part>",
    "deck_ed_t": "deck editor: a step's title field, deck_ed_t<step id>",
    "deck_ed_n": "deck editor: a step's notes field, deck_ed_n<step id>",
    "deck_anchor_": "deck bar: the link to the slide's section, deck_anchor_<slide>",
    "cope_gates_": "/cope: the gates editor of one query, cope_gates_<digest>",
    MODELS_SHOWN: "/models: the value the page last put in a model's list, _models_shown_<model or vs>",
    MODELS_HUB_BOX: "/models: a model's Hub id text box, _models_hub_<model or vs>",
    "t5_table_": "/t5: the bias table's editor, t5_table_<buckets>_<heads>_<digest of its seed table>",
    "$$WIDGET_ID": "Streamlit's own ids of widgets drawn without a key",
}


def declared(key: str, url_keys: frozenset[str] = frozenset()) -> bool:
    """Whether ``key`` is listed here: a fixed key, a family's member, or one of ``url_keys``.

    ``url_keys``: every page's settings (``posviz.ui.deck.links.every_url_key()``; the shared ui does
    not import the schemes' settings itself).
    """
    return key in KEYS or key.startswith(tuple(FAMILIES)) or key in url_keys


def seed(values: Mapping[str, Any]) -> None:
    """Give widgets their values for this run, before any of them is drawn.

    Each key's value is assigned (never deleted: see the module docstring), so the browser
    shows exactly ``values`` whatever it showed before. Call only before the widgets are drawn.
    """
    state = st.session_state
    for key, value in values.items():
        state[key] = value

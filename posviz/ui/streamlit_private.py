"""The one place posviz touches a Streamlit private: the legacy ``pages/`` runner at a cold start.

Streamlit 1.67 decides per process whether a top-level ``pages/`` folder is a
legacy (v1) multipage app: ``PagesManager.uses_pages_directory`` is set from the
folder's existence when the first session starts, and only a call to
``st.navigation`` clears it. Until then, every run goes through
``script_runner._mpa_v1``, which runs the linked page's script on its own:
no ``app.py``, so no shared sidebar, no Lecture toggle, and a navigation of raw
file names. On a freshly started process a class opening one link in the same
second sends several first runs down that path at once (15 of 18 visits in a
measurement), and clearing the flag in one of them does not help the others,
which are already inside ``_mpa_v1``.

``ensure_app_entry`` therefore asks of each run itself whether it is a legacy
run (a ``_mpa_v1`` frame on the stack), not of the process-wide flag. A legacy
run clears the flag and reruns, and the rerun goes through ``app.py``. Once a
session has had a run that was not legacy and the flag is off, the check is
skipped (``AppTest`` sets the flag anew for every run, so its runs are checked).
The bounce costs a moment: the legacy run stops for the rerun, the page reads
"not running" with the old page's buttons on it, and a click on a fragment's
button then (Next after a restart) is dropped, because the new session has not
yet drawn that fragment (``AppSession.request_rerun``: "does not exist anymore").
``serve.py``, the container's entry, is imported once when the server starts,
before any session: it calls ``no_legacy_pages``, so that no run is ever legacy
and nothing bounces. ``ensure_app_entry`` keeps ``streamlit run app.py`` right.
``tests/ui/test_streamlit_private.py`` fails when Streamlit renames any of this;
``tests/test_cold_start.py`` opens concurrent deep links on a new process.
"""

from __future__ import annotations

import sys

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import script_runner

from posviz.ui.state import ENTERED as _ENTERED  # this session has had a run through app.py's st.navigation

_LEGACY_RUNNER = script_runner._mpa_v1.__code__  # the legacy multipage runner's code object


def _in_legacy_run() -> bool:
    """Whether this script run was started by Streamlit's legacy ``pages/`` runner."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code is _LEGACY_RUNNER:
            return True
        frame = frame.f_back
    return False


def no_legacy_pages() -> None:
    """Tell Streamlit, before its first session, that ``pages/`` is not a legacy multipage app (at server start)."""
    PagesManager.uses_pages_directory = False  # read when a session starts, only while it is None


def ensure_app_entry() -> None:
    """Send a run that Streamlit started without ``app.py`` back through it (see the module docstring)."""
    state = st.session_state
    if state.get(_ENTERED) and not PagesManager.uses_pages_directory:
        return
    if _in_legacy_run():
        PagesManager.uses_pages_directory = False
        st.rerun()
    state[_ENTERED] = True

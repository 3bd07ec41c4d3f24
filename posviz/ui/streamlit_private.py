"""The one place posviz touches Streamlit privates: the legacy ``pages/`` runner at a cold start, the
files a download button makes on click, and the link seed of a widget whose bounds moved.

**The legacy runner.**

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

**Files made on click.** A download button whose data is a callable (``data=callable``: a figure's
CSV is built only when someone asks for it) has its file made by
``MediaFileManager.execute_deferred`` when clicked. Streamlit 1.67 registers that file to no
session, and every script run that ends, in any session, sweeps unregistered files (the first
sweep marks one, the second deletes it). In a class, runs end many times a second, so the file is
often gone before the browser fetches it: 3 of 221 downloads answered 404 in a 40-student fault
test. ``keep_made_downloads`` registers each made file to the session whose button made it, under
the button's place, so it lives as long as that session's own files: until the session's next full
run. ``tests/ui/test_streamlit_private.py`` makes a file on click, sweeps twice, and reads it.

**A widget whose bounds moved.** A keyed slider or number box is a new widget to Streamlit when its
``min_value`` or ``max_value`` changes (CoPE's key ``j <= i`` when the query ``i`` moves), and a new
query-bound widget is seeded from the link, over session state. The link may still say a value
the new bounds leave out (the address bar holds what the widget showed), and Streamlit raised
``StreamlitValueAboveMaxError`` on screen: 2 times in a class of 40 on ``/cope``.
``posviz.ui.controls`` seeds the value the reader sees, clamped, whenever a control's bounds move, and
``seed_link`` makes the link say the same for this run's seeding
(``QueryParams._initial_query_params``); a history navigation (Back) is left to the link.
``tests/test_bounds_link.py`` moves the query under a kept key on a real server.
"""

from __future__ import annotations

import functools
import sys
from pathlib import PurePosixPath

import streamlit as st
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import get_script_run_ctx, script_runner

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
    keep_made_downloads()
    state = st.session_state
    if state.get(_ENTERED) and not PagesManager.uses_pages_directory:
        return
    if _in_legacy_run():
        PagesManager.uses_pages_directory = False
        st.rerun()
    state[_ENTERED] = True


MADE = "posviz-made"  # suffix of the place a made file is registered under (beside its button's)


def keep_made_downloads() -> None:
    """Register each file a download button makes on click to the button's session (see the module docstring).

    Idempotent: Streamlit's method is wrapped once per process.
    """
    execute = MediaFileManager.execute_deferred
    if getattr(execute, "__posviz_keeps__", False):
        return

    @functools.wraps(execute)
    def execute_deferred(self: MediaFileManager, file_id: str) -> str:
        url = execute(self, file_id)
        made = PurePosixPath(url).stem  # ".../media/<id>.csv": the made file's id
        with self._lock:
            entry = self._deferred_callables.get(file_id)
            if entry is not None and made in self._file_metadata:
                self._files_by_session_and_coord[entry["session_id"]][f"{entry['coordinates']}-{MADE}"] = made
        return url

    execute_deferred.__posviz_keeps__ = True
    MediaFileManager.execute_deferred = execute_deferred


def seed_link(key: str, text: str) -> None:
    """Seed this run's widget bound to ``key`` from ``text`` instead of the link (see the module docstring)."""
    ctx = get_script_run_ctx()
    if ctx is None or ctx.is_history_navigation:
        return
    with ctx.session_state.query_params() as params:
        params._initial_query_params[key] = [text]

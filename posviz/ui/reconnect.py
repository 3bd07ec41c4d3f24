"""A page that reconnects after a server restart reruns at once, so its buttons and downloads work.

Streamlit's front end (1.67, ``handleConnectionStateChanged`` in its ``index.*.js``)
asks the server for a run when its websocket reconnects only if the last run was
a fragment run, a run was under way, or a fragment has an auto-rerun interval
(``autoRerunIntervals.size > 0``). Otherwise it keeps drawing the old page: its
fragments (the Previous/Next step buttons) and its downloads belong to a session
that died with the old process, and they silently do nothing.

:func:`rerun_on_reconnect` declares one empty fragment with ``run_every`` (public
API), which gives every page an auto-rerun interval: a reconnect then always
reruns the whole page with the browser's widget state and query string, that is
the view the link holds. The interval itself is a day, longer than any lecture:
it never fires in a class (and when it does, it reruns an empty fragment).
``tests/ui/test_reconnect.py`` fails if Streamlit's front end drops that rule,
and ``tests/browser/test_fault_browser.py`` restarts a server under a live page.

Until that rerun has ended, the page still shows the old process's page, and a
click on a fragment's button (Previous/Next) is dropped by the server: the new
session has not drawn that fragment yet ("does not exist anymore", Streamlit's
``AppSession.request_rerun``), and a download names a file the new process does
not have. A class meets this window after every restart: 40 first runs queue on
a cold process for seconds. ``_guard`` (a components v2 element without
content, in app.py's sidebar) therefore marks the page from the moment it
reconnects until the run that follows has ended: its buttons are dimmed and take
no clicks (``posviz-resync`` on ``<body>``, styled by ``front/reconnect.css``), so a
student's click waits for a page that can answer it instead of vanishing. The
run has ended when that element has been drawn again (its data is new on every
run) and the app is idle; after ``GUARD_MS`` the page takes clicks whatever
happened. It reads the app's connection and run states from the attributes
Streamlit's front end keeps on its root element (``data-test-connection-state``,
``data-test-script-state``), as the fault tool does; the fault tool's browser
test fails if they change.
"""

from __future__ import annotations

import time
from datetime import timedelta

import streamlit as st

from posviz.ui.front import asset

# setInterval takes at most 2**31 - 1 ms (24.8 days); a longer interval would fire at once.
INTERVAL = timedelta(days=1)


GUARD_MS = 60_000  # a rerun that has not ended by then: the page takes clicks again whatever happens

# Static code, no user text (tests/test_security.py), in posviz/ui/front/reconnect.js and reconnect.css.
_guard = st.components.v2.component(
    "posviz_resync_guard", html="", css=asset("reconnect.css"), js=asset("reconnect.js"), isolate_styles=False
)


@st.fragment(run_every=INTERVAL)
def _reconnect_marker() -> None:
    """Nothing to draw: its auto-rerun interval is what makes a reconnect rerun the page."""


def rerun_on_reconnect() -> None:
    """Call once per full run, before the page can ``st.stop()`` (app.py, beside the sidebar's controls)."""
    _reconnect_marker()
    _guard(key="posviz_resync_guard", data=time.monotonic_ns())  # new data each run: the guard hears of it

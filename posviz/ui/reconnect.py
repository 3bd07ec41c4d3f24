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
"""

from __future__ import annotations

from datetime import timedelta

import streamlit as st

# setInterval takes at most 2**31 - 1 ms (24.8 days); a longer interval would fire at once.
INTERVAL = timedelta(days=1)


@st.fragment(run_every=INTERVAL)
def _reconnect_marker() -> None:
    """Nothing to draw: its auto-rerun interval is what makes a reconnect rerun the page."""


def rerun_on_reconnect() -> None:
    """Call once per full run, before the page can ``st.stop()`` (app.py, beside the sidebar's controls)."""
    _reconnect_marker()

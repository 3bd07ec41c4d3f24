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
no clicks (``posviz-resync`` on ``<body>``, styled by ``_GUARD_CSS``), so a
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

# setInterval takes at most 2**31 - 1 ms (24.8 days); a longer interval would fire at once.
INTERVAL = timedelta(days=1)


GUARD_MS = 60_000  # a rerun that has not ended by then: the page takes clicks again whatever happens

# Static code, no user text (tests/test_security.py). Installed once per page; its log
# (window.__posvizResync: [state, Date.now()]) lets the fault tool and its browser test see both edges.
_GUARD_JS = """
const LIMIT = 60000;  // posviz.ui.reconnect.GUARD_MS

function install() {
  const log = (window.__posvizResync = []);
  const guard = { since: 0, reached: false, connected: null };
  const app = document.querySelector('[data-testid="stApp"]');
  const mark = (on) => {
    document.body.classList.toggle("posviz-resync", on);
    log.push([on ? "on" : "off", Date.now()]);
  };
  const check = () => {
    const connection = app.getAttribute("data-test-connection-state");
    const script = app.getAttribute("data-test-script-state");
    if (connection !== "CONNECTED") { guard.connected = false; return; }
    if (guard.connected === false) { guard.since = Date.now(); guard.reached = false; mark(true); }
    guard.connected = true;
    if (guard.since && ((guard.reached && script === "notRunning") || Date.now() - guard.since > LIMIT)) {
      guard.since = 0;
      mark(false);
    }
  };
  // Every change of the two states (a reconnect can be brief), and a clock for LIMIT.
  new MutationObserver(check).observe(app, {
    attributes: true, attributeFilter: ["data-test-connection-state", "data-test-script-state"],
  });
  setInterval(check, 250);
  check();
  return guard;
}

export default function () {
  const guard = window.__posvizGuard || (window.__posvizGuard = install());
  // Called again on every run (its data is the run's own): a run after the reconnect has reached
  // app.py's sidebar; when the app is next idle, that run has ended and drawn the page's fragments.
  if (guard.since) guard.reached = true;
}
"""
_GUARD_CSS = """
.st-key-posviz_resync_guard { display: none; }
body.posviz-resync [data-testid="stMain"] button, body.posviz-resync [data-testid="stSidebar"] button {
  pointer-events: none; opacity: 0.55;
}
"""
_guard = st.components.v2.component("posviz_resync_guard", html="", css=_GUARD_CSS, js=_GUARD_JS, isolate_styles=False)


@st.fragment(run_every=INTERVAL)
def _reconnect_marker() -> None:
    """Nothing to draw: its auto-rerun interval is what makes a reconnect rerun the page."""


def rerun_on_reconnect() -> None:
    """Call once per full run, before the page can ``st.stop()`` (app.py, beside the sidebar's controls)."""
    _reconnect_marker()
    _guard(key="posviz_resync_guard", data=time.monotonic_ns())  # new data each run: the guard hears of it

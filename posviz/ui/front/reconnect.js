// The reconnect guard (posviz.ui.reconnect): from a reconnect until the rerun after it has ended, the
// page's buttons take no clicks. Reads the app's connection and run states from Streamlit's root element
// (HOOKS.md). Static, no user text. Its log (window.__posvizResync: [state, Date.now()]) lets the fault
// tool and its browser test see both edges.
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
    if (guard.connected === false) {
      guard.since = Date.now();
      guard.reached = false;
      mark(true);
      setTimeout(check, LIMIT + 1);  // the limit's own clock: no polling
    }
    guard.connected = true;
    if (guard.since && ((guard.reached && script === "notRunning") || Date.now() - guard.since > LIMIT)) {
      guard.since = 0;
      mark(false);
    }
  };
  // Every change of the two states (a reconnect can be brief); LIMIT has its own timer.
  new MutationObserver(check).observe(app, {
    attributes: true, attributeFilter: ["data-test-connection-state", "data-test-script-state"],
  });
  guard.check = check;
  check();
  return guard;
}

export default function () {
  const guard = window.__posvizGuard || (window.__posvizGuard = install());
  // Called again on every run (its data is the run's own): a run after the reconnect has reached
  // app.py's sidebar; when the app is next idle, that run has ended and drawn the page's fragments.
  // The run may already have ended when this is called: check now, not only on the next state change.
  if (guard.since) {
    guard.reached = true;
    guard.check();
  }
}

"""Waiting on the page's own state, never on the clock: the browser tests pass on a busy machine too.

``wait_steady`` waits until what a test is about to measure has stopped moving: every box
(charts, the main area, formulas, tables) the same over ``frames`` animation frames in a row,
and the fonts loaded. A loaded machine draws fewer frames a second, which only makes the wait
longer, never shorter.
"""

from __future__ import annotations

LAYOUT = (
    '[data-testid="stMain"], [data-testid="stMainBlockContainer"], .js-plotly-plot .main-svg,'
    ' .katex-display, [data-testid="stMetric"], [data-testid="stDataFrame"], .posviz-plot-wait'
)

# State lives on window under a key of its own, so two waits in a row start afresh.
_STEADY_JS = """([sel, frames, key]) => {
  const main = document.querySelector('[data-testid="stMain"]');
  const now = JSON.stringify([
    document.fonts ? document.fonts.status : 'loaded',
    main ? main.scrollHeight : 0,
    ...[...document.querySelectorAll(sel)].map(e => {
      const r = e.getBoundingClientRect();
      return [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)];
    }),
  ]);
  const s = window[key] = window[key] || {last: null, same: 0};
  if (now === s.last) s.same += 1; else { s.same = 0; s.last = now; }
  return s.same >= frames && (!document.fonts || document.fonts.status === 'loaded');
}"""

_counter = 0


def wait_steady(page, selector: str = LAYOUT, *, frames: int = 12, timeout_ms: int = 60_000) -> None:
    """Wait until the boxes of ``selector`` and the main area's height are unchanged for ``frames`` frames."""
    global _counter
    _counter += 1
    page.wait_for_function(
        _STEADY_JS, arg=[selector, frames, f"__posvizSteady{_counter}"], polling="raf", timeout=timeout_ms
    )

"""Zoom by drawing a box on T5's bucket heatmap, in a real Chromium: the link and the figure follow the box."""

from __future__ import annotations

import pytest
from test_app_browser import RENDER_TIMEOUT_MS, query, wait_idle
from test_app_browser import open_page as open_url
from waits import wait_steady

pytestmark = pytest.mark.browser

CHARTS = 6
BUCKETS = ".st-key-fig_t5_buckets .js-plotly-plot"

# Viewport pixels of data points (key j, query i) on the chart's first axes, and its drag mode.
_PIXELS_JS = """([sel, points]) => {
  const gd = document.querySelector(sel);
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, box = gd.getBoundingClientRect();
  return {dragmode: gd._fullLayout.dragmode,
          points: points.map(([j, i]) => [box.left + xa._offset + xa.d2p(j), box.top + ya._offset + ya.d2p(i)])};
}"""
_FIRST_JS = "sel => { const d = document.querySelector(sel)._fullData[0]; return [d.x[0], d.y[0], d.x.length]; }"


def test_a_box_drawn_on_the_bucket_heatmap_becomes_the_window(app_url, page, page_events):
    page.set_viewport_size({"width": 1400, "height": 1000})
    open_url(page, f"{app_url}/t5?q_len=1000&k_len=1000", charts=CHARTS)
    chart = page.locator(BUCKETS)
    chart.scroll_into_view_if_needed()
    wait_steady(page)  # the chart's place on screen, which the pixels below depend on
    corners = [(300.3, 500.2), (359.6, 549.6)]  # keys 301 .. 359, queries 501 .. 549
    found = page.evaluate(_PIXELS_JS, [BUCKETS, corners])
    if found["dragmode"] != "select":  # pick the box select tool in the chart's toolbar
        chart.hover()
        page.locator('.st-key-fig_t5_buckets .modebar-btn[data-val="select"]').click()
        found = page.evaluate(_PIXELS_JS, [BUCKETS, corners])
    (x0, y0), (x1, y1) = found["points"]
    page.mouse.move(x0, y0)
    page.mouse.down()
    for step in range(1, 11):
        page.mouse.move(x0 + (x1 - x0) * step / 10, y0 + (y1 - y0) * step / 10)
    page.mouse.up()
    page.wait_for_function("() => location.href.includes('k_start=')", timeout=RENDER_TIMEOUT_MS)
    wait_idle(page, settle_s=1.0)
    q = query(page)
    window, q_start, k_start = (int(float(q[key][0])) for key in ("window", "q_start", "k_start"))  # "59.0" too
    # the box corners land within a drawn cell (every 6th position here) of the positions asked for
    assert abs(k_start - 301) <= 3 and abs(q_start - 501) <= 3 and abs(window - 59) <= 3, q
    first_key, first_query, keys = page.evaluate(_FIRST_JS, BUCKETS)
    assert (first_key, first_query, keys) == (k_start, q_start, window)  # the figure draws the window, every cell
    assert not page_events.page_errors, page_events.page_errors


def test_the_toolbar_shows_a_figure_full_screen_and_back(app_url, page, page_events):
    """The toolbar's full-screen button (posviz.ui.plot), as st.plotly_chart had: the figure fills the
    screen, drawn at the screen's size, and Esc (here: the button again) brings it back as it was."""
    page.set_viewport_size({"width": 1280, "height": 720})
    open_url(page, f"{app_url}/t5", charts=CHARTS)
    chart = page.locator(BUCKETS)
    chart.scroll_into_view_if_needed()
    before = page.evaluate(
        "sel => { const l = document.querySelector(sel)._fullLayout; return [l.width, l.height]; }", BUCKETS
    )
    chart.hover()
    page.locator('.st-key-fig_t5_buckets .modebar-btn[data-title^="Full screen"]').click()
    page.wait_for_function(
        "sel => { const gd = document.querySelector(sel); return document.fullscreenElement === gd"
        " && Math.abs(gd._fullLayout.height - window.innerHeight) <= 2"
        " && Math.abs(gd._fullLayout.width - window.innerWidth) <= 2; }",
        arg=BUCKETS,
        timeout=RENDER_TIMEOUT_MS,
    )
    page.locator('.st-key-fig_t5_buckets .modebar-btn[data-title^="Full screen"]').click()
    page.wait_for_function(
        "([sel, [w, h]]) => { const l = document.querySelector(sel)._fullLayout;"
        " return !document.fullscreenElement && l.width === w && l.height === h; }",
        arg=[BUCKETS, before],
        timeout=RENDER_TIMEOUT_MS,
    )
    assert not page_events.page_errors, page_events.page_errors

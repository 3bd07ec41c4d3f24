"""/vision in a real headless Chromium at 1280 x 720: every chart renders, no exception, nothing overflows
sideways; in lecture mode the lecture probe finds no overflow, overlap or small text."""

from __future__ import annotations

import pytest
from lecture_probe import PROBE_JS, problems, scroll_through
from test_app_browser import ALERT, EXCEPTION, MAIN, assert_healthy, chart_fingerprints, full_page_screenshot
from test_app_browser import open_page as open_url

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SMALL_SCREEN = {"width": 1280, "height": 720}
VISION_CHARTS = 10  # grid, sequence, pairs, time, offsets, split, video head, ladders, V2PE ids, cost (all open)


@pytest.mark.parametrize("query, shot", [("", "vision_1280.png"), ("?lecture=1", "vision_lecture_1280.png")])
def test_vision_page_fits_a_small_screen(app_url, page, page_events, screenshots, query, shot):
    page.set_viewport_size(SMALL_SCREEN)
    open_url(page, f"{app_url}/vision{query}", charts=4)
    scroll_through(page)  # charts below the fold draw when scrolled to
    prints = chart_fingerprints(page)
    assert len(prints) == VISION_CHARTS and all(p["title"].strip() and p["traces"] for p in prints), prints
    assert page.locator(EXCEPTION).count() == 0
    alerts = page.locator(f"{MAIN} {ALERT}").all_inner_texts()
    assert not alerts, f"notices or errors on the default link: {alerts}"
    measures = page.evaluate(PROBE_JS)
    faults = problems(measures)
    assert measures["pageOverflow"] <= 1, f"the page scrolls sideways: {measures['wide']}"
    assert not faults["overflow"], faults["overflow"]
    if query:
        assert not faults["overlap"] and not faults["small"], faults
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / shot)


def test_a_hostile_link_gives_notices_not_a_traceback(app_url, page, page_events):
    page.set_viewport_size(SMALL_SCREEN)
    open_url(page, f"{app_url}/vision?merge=abc&frames=1e309&vl_model=%3Cscript%3E&q_row=-4", charts=4)
    alerts = " ".join(page.locator(f"{MAIN} {ALERT}").all_inner_texts())
    assert "merge" in alerts and "frames" in alerts and "vl_model" in alerts, alerts
    assert page.locator(f"{MAIN} script").count() == 0  # the link's markup is shown as text, never run
    assert_healthy(page, page_events)

"""A link with #anchor opens at that section, and a lecture walk-through pages by step (posviz.ui.sections)."""

from __future__ import annotations

import pytest
from test_app_browser import MAIN, RENDER_TIMEOUT_MS, wait_charts, wait_idle
from waits import wait_steady

pytestmark = pytest.mark.browser

PROJECTOR = {"width": 1280, "height": 720}
SECTION = "2-the-bucket-pipeline-step-by-step"  # /t5's walk-through, the anchor Streamlit gives its heading
_TOP_JS = "sel => document.querySelector(sel).getBoundingClientRect().top"
_HEADER_JS = "() => document.querySelector('[data-testid=\"stHeader\"]').getBoundingClientRect().bottom"


def test_every_section_heading_has_an_anchor_and_a_link_opens_there(app_url, page, page_events):
    page.set_viewport_size(PROJECTOR)
    page.goto(f"{app_url}/t5?lecture=1#{SECTION}", timeout=RENDER_TIMEOUT_MS)
    wait_idle(page)
    wait_charts(page, 4)
    wait_steady(page)  # the figures above the section have taken their full height
    ids = page.evaluate("() => [...document.querySelectorAll('[data-testid=\"stMain\"] h2')].map(h => h.id)")
    assert len(ids) >= 7 and all(ids), f"section headings without an anchor: {ids}"
    top, header = page.evaluate(_TOP_JS, f"[id='{SECTION}']"), page.evaluate(_HEADER_JS)
    assert header - 2 <= top <= header + 60, f"the linked section sits at {top:.0f} px (header ends at {header:.0f})"
    assert not page_events.page_errors, page_events.page_errors


def test_a_lecture_walk_through_pages_by_step(app_url, page, page_events):
    page.set_viewport_size(PROJECTOR)
    page.goto(f"{app_url}/t5?lecture=1", timeout=RENDER_TIMEOUT_MS)
    wait_idle(page)
    wait_charts(page, 4)
    page.locator(MAIN).get_by_role("button", name="Next", exact=True).click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('step') === '2'", timeout=RENDER_TIMEOUT_MS)
    wait_idle(page)
    wait_steady(page)
    top, header = page.evaluate(_TOP_JS, '[class*="st-key-step_next"]'), page.evaluate(_HEADER_JS)
    assert header <= top <= header + 60, f"after Next the step's buttons sit at {top:.0f} px (header {header:.0f})"
    assert not page_events.page_errors, page_events.page_errors

"""/models in a real headless Chromium at 1280 x 720: the charts render, titles fit, nothing overflows sideways;
a model opens by its Hub id from a link, against a local server that answers like the Hub."""

from __future__ import annotations

import pytest
from test_app_browser import (
    ALERT,
    CHART,
    EXCEPTION,
    MAIN,
    assert_healthy,
    chart_fingerprints,
    full_page_screenshot,
    query,
)
from test_app_browser import open_page as open_url

pytestmark = pytest.mark.browser

SMALL_SCREEN = {"width": 1280, "height": 720}
MODELS_CHARTS = 5  # Llama 3.1 8B: strip, inv_freq, wavelength, masks, reach

# For the main area and every chart: its right edge, and every title's left and right edge, in CSS pixels.
_BOXES_JS = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const charts = [...document.querySelectorAll('.js-plotly-plot')].map(e => {
    const box = e.getBoundingClientRect();
    const titles = [...e.querySelectorAll('.gtitle')].map(t => t.getBoundingClientRect())
      .filter(r => r.width > 0).map(r => [r.left - box.left, box.right - r.right]);
    return {width: box.width, right: box.right, titles};
  });
  return {
    doc: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
    main: [main.scrollWidth, main.clientWidth, main.getBoundingClientRect().right],
    charts,
  };
}"""


@pytest.mark.parametrize("query, shot", [("", "models_1280.png"), ("?lecture=1", "models_lecture_1280.png")])
def test_models_page_fits_a_small_screen(app_url, page, page_events, screenshots, query, shot):
    page.set_viewport_size(SMALL_SCREEN)
    open_url(page, f"{app_url}/models{query}", charts=MODELS_CHARTS)
    assert page.locator(EXCEPTION).count() == 0
    alerts = page.locator(f"{MAIN} {ALERT}").all_inner_texts()
    assert not alerts, f"notices or errors on the default link: {alerts}"
    prints = chart_fingerprints(page)
    assert len(prints) == MODELS_CHARTS and all(p["title"].strip() and p["traces"] for p in prints), prints
    if query:
        assert {p["fontSize"] for p in prints} == {20}, prints  # lecture mode's fonts
    boxes = page.evaluate(_BOXES_JS)
    doc_scroll, doc_client = boxes["doc"]
    main_scroll, main_client, main_right = boxes["main"]
    assert doc_scroll <= doc_client and main_scroll <= main_client, f"horizontal overflow: {boxes['doc']}"
    for c in boxes["charts"]:
        assert c["right"] <= main_right + 1, f"a chart runs past the main area: {c}"
        for left, right in c["titles"]:
            assert left >= -1 and right >= -1, f"a title is cut off at the chart's edge: {c}"
    assert page.locator(CHART).count() == MODELS_CHARTS
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / shot)


def test_two_models_side_by_side_in_lecture_mode(app_url, page, page_events, screenshots):
    page.set_viewport_size(SMALL_SCREEN)
    open_url(page, f"{app_url}/models?model=gemma-3-27b&vs=llama-4-scout&lecture=1", charts=12)
    boxes = page.evaluate(_BOXES_JS)
    assert boxes["doc"][0] <= boxes["doc"][1] and boxes["main"][0] <= boxes["main"][1], boxes
    for c in boxes["charts"]:
        assert all(left >= -1 and right >= -1 for left, right in c["titles"]), c
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "models_vs_lecture_1280.png")


@pytest.fixture(scope="module")
def hub_app(browser):
    """A server of its own whose HF_ENDPOINT is a local Hub (tests/data/local_hub.py): nothing leaves the machine."""
    from conftest import streamlit_server

    from tests.data.local_hub import LocalHub

    with LocalHub() as hub, streamlit_server("streamlit-hub", env={"HF_ENDPOINT": hub.url}) as server:
        yield server.url, hub


def test_a_hub_id_opens_from_a_link(hub_app, page, page_events):
    url, hub = hub_app
    page.set_viewport_size(SMALL_SCREEN)
    page.set_default_timeout(90_000)  # the first visit of this server imports torch
    open_url(page, f"{url}/models?model=org/llama-tiny", charts=MODELS_CHARTS)
    assert page.locator(EXCEPTION).count() == 0
    assert not page.locator(f"{MAIN} {ALERT}").all_inner_texts()
    prints = chart_fingerprints(page)
    assert any("llama-tiny" in p["title"] for p in prints), prints
    assert query(page)["model"] == ["org/llama-tiny"]  # the address bar still holds the model
    assert hub.hits["/org/llama-tiny/resolve/main/config.json"] == 1
    open_url(page, f"{url}/models?model=org/missing", charts=MODELS_CHARTS)  # the default model instead
    alerts = page.locator(f"{MAIN} {ALERT}").all_inner_texts()
    assert alerts and all("There is no model org/missing on the Hub" in a for a in alerts), alerts  # one notice
    assert page.locator(EXCEPTION).count() == 0
    assert_healthy(page, page_events)

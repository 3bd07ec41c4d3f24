"""Every page as the container serves it (serve.py, no proxy): accessible, quiet, compressed.

- axe-core (axe-playwright-python) finds no serious or critical violation on any page,
  default and lecture mode, every section open;
- the browser console shows no error (Streamlit's front end probed ``/<page>/_stcore/health``
  and logged two 404s on every deep link until ``posviz.static_gzip`` told it the base URL);
- a first visit to /t5 transfers at most 3 MB over HTTP (Streamlit's 10 MB of JavaScript,
  precompressed; the figures travel compressed in the websocket).
"""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from conftest import streamlit_server
from test_app_browser import every_section_open, wait_charts, wait_idle

from posviz import static_gzip
from posviz.schemes import PAGES

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LOAD_TIMEOUT_MS = 120_000
FIRST_VISIT_LIMIT = 3_000_000
CHARTS = {"t5": 4, "models": 5}  # charts to wait for before measuring; other pages: their first chart
SERIOUS = {"serious", "critical"}


@pytest.fixture(scope="module")
def container_url(browser, tmp_path_factory):
    """serve.py with Streamlit's static files precompressed, as the Dockerfile builds it."""
    packed = tmp_path_factory.mktemp("static")
    static_gzip.precompress(static_gzip.STATIC_DIR, packed)
    with streamlit_server("streamlit-container", "serve.py", {"POSVIZ_STATIC_GZ": str(packed)}) as server:
        yield server.url


def _open(browser, url: str):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(f"{m.text} {m.location.get('url', '')}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return context, page, errors


@pytest.mark.parametrize(
    ("lecture", "lang"), [(False, "en"), (True, "en"), (True, "zh")], ids=["default", "lecture", "zh"]
)
@pytest.mark.parametrize("key", [p.key for p in PAGES], ids=lambda k: k or "home")
def test_every_page_is_accessible_and_quiet(browser, container_url, key, lecture, lang):
    query = "&".join([*(["lecture=1"] if lecture else []), *([f"lang={lang}"] if lang != "en" else []),
                      every_section_open()])  # fmt: skip
    context, page, errors = _open(browser, f"{container_url}/{key}?{query}")
    try:
        page.goto(f"{container_url}/{key}?{query}", timeout=LOAD_TIMEOUT_MS)
        wait_idle(page, timeout_ms=LOAD_TIMEOUT_MS)
        if key:
            wait_charts(page, CHARTS.get(key, 1), timeout_ms=LOAD_TIMEOUT_MS)
            wait_idle(page, timeout_ms=LOAD_TIMEOUT_MS, settle_s=0.5)
        results = Axe().run(page)
        found = [v for v in results.response["violations"] if v["impact"] in SERIOUS]
        detail = [(v["id"], v["impact"], [n["html"][:120] for n in v["nodes"][:3]]) for v in found]
        assert not found, f"axe-core on /{key} (lecture={lecture}, lang={lang}): {detail}"
        assert not errors, f"console errors on /{key}: {errors}"
    finally:
        context.close()


def test_a_first_visit_transfers_at_most_3_mb(browser, container_url):
    context, page, errors = _open(browser, f"{container_url}/t5")
    try:
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        sizes: dict[str, int] = {}
        cdp.on("Network.loadingFinished", lambda e: sizes.__setitem__(e["requestId"], e["encodedDataLength"]))
        page.goto(f"{container_url}/t5", timeout=LOAD_TIMEOUT_MS)
        wait_idle(page, timeout_ms=LOAD_TIMEOUT_MS)
        wait_charts(page, CHARTS["t5"], timeout_ms=LOAD_TIMEOUT_MS)
        wait_idle(page, timeout_ms=LOAD_TIMEOUT_MS, settle_s=0.5)
        total = sum(sizes.values())
        assert len(sizes) > 50, "too few responses seen: the measurement saw nothing"
        assert total <= FIRST_VISIT_LIMIT, f"a first visit to /t5 transferred {total / 1e6:.2f} MB"
        assert not errors, errors
    finally:
        context.close()

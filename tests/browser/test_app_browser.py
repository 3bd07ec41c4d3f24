"""posviz in a real headless Chromium against a live ``streamlit run app.py``.

Selectors are Streamlit 1.67's ``data-testid`` attributes and Plotly's
``.js-plotly-plot`` divs (whose ``data`` / ``layout`` properties hold the figure).
"""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, urlparse

import pytest
from waits import wait_steady

from posviz.ui.sections import every_on_demand

pytestmark = pytest.mark.browser

RENDER_TIMEOUT_MS = 90_000  # first render of /t5 pays for torch and the cached computations
MIN_CHARTS = 6

APP = '[data-testid="stApp"]'
SIDEBAR = '[data-testid="stSidebar"]'
MAIN = '[data-testid="stMain"]'
EXCEPTION = '[data-testid="stException"]'
ALERT = '[data-testid="stAlert"], [data-testid="stAlertContainer"]'
CHART = ".js-plotly-plot"
NAV_LINK = '[data-testid="stSidebarNavLink"]'

_IDLE_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return false;
  const state = app.getAttribute('data-test-script-state');
  const conn = app.getAttribute('data-test-connection-state');
  return state === 'notRunning' && (conn === null || conn === 'CONNECTED')
    && document.querySelector('[data-testid="stStatusWidget"]') === null;
}"""

# One entry per Plotly chart: its element key, title, trace count and a checksum of
# every z / y value (Plotly keeps binary arrays as {dtype, bdata}: hash the text).
_FINGERPRINT_JS = """els => els.map(e => {
  const holder = e.closest('[class*="st-key-"]');
  const key = holder ? ([...holder.classList].find(c => c.startsWith('st-key-')) || '') : '';
  let sum = 0, count = 0, hash = 0;
  const walk = v => {
    if (v === null || v === undefined) return;
    if (typeof v === 'number') { if (Number.isFinite(v)) sum += v; count += 1; return; }
    if (typeof v === 'string') { for (let i = 0; i < v.length; i++) hash = (hash * 31 + v.charCodeAt(i)) | 0; return; }
    if (Array.isArray(v) || ArrayBuffer.isView(v)) { for (const x of v) walk(x); return; }
    if (typeof v === 'object' && typeof v.bdata === 'string') { walk(v.bdata); walk(v.dtype); return; }
  };
  for (const trace of (e.data || [])) { walk(trace.z); walk(trace.y); }
  const title = e.layout && e.layout.title;
  return {
    key,
    title: typeof title === 'string' ? title : ((title && title.text) || ''),
    traces: (e.data || []).length,
    zmax: e.data && e.data[0] ? (e.data[0].zmax ?? null) : null,
    fontSize: e.layout && e.layout.font ? (e.layout.font.size ?? null) : null,
    sum, count, hash,
  };
})"""


# ---------------------------------------------------------------- helpers


# Idle, and idle without a break for ``ms`` (the page's clock; a run in between starts it again).
_SETTLED_JS = (
    """([ms, key]) => {
  const idle = ("""
    + _IDLE_JS
    + """)();
  if (!idle) { window[key] = null; return false; }
  window[key] = window[key] || performance.now();
  return performance.now() - window[key] >= ms;
}"""
)
_settles = 0


def wait_idle(page, timeout_ms: int = RENDER_TIMEOUT_MS, settle_s: float = 1.0) -> None:
    """Wait for the app to be connected and not running for ``settle_s`` in a row.

    The settle period covers the one corrective rerun ``posviz.ui.controls`` may
    trigger between two runs.
    """
    global _settles
    _settles += 1
    page.wait_for_selector(APP, timeout=timeout_ms)
    page.wait_for_function(
        _SETTLED_JS, arg=[settle_s * 1000, f"__posvizIdleSince{_settles}"], polling=100, timeout=timeout_ms
    )


def wait_charts(page, minimum: int = MIN_CHARTS, timeout_ms: int = RENDER_TIMEOUT_MS) -> int:
    """Wait until at least ``minimum`` Plotly charts are drawn, scrolling the main area if needed."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        count = page.locator(CHART).count()
        if count >= minimum:
            # Drawn means Plotly has laid the chart out, not just created the div.
            page.wait_for_function(
                "n => [...document.querySelectorAll('.js-plotly-plot')]"
                ".filter(e => e._fullLayout && e.querySelector('.main-svg')).length >= n",
                arg=minimum,
                timeout=max(1, int((deadline - time.monotonic()) * 1000)),
            )
            return count
        if time.monotonic() > deadline:
            raise AssertionError(f"only {count} Plotly charts rendered, expected at least {minimum}")
        # Charts below the fold may be rendered lazily: scroll the main area a screen down.
        page.evaluate(
            "() => { const m = document.querySelector('[data-testid=\"stMain\"]') || document.scrollingElement;"
            " m.scrollTop = m.scrollTop + m.clientHeight >= m.scrollHeight ? 0 : m.scrollTop + m.clientHeight; }"
        )
        wait_steady(page)  # what this screen holds has drawn


def chart_fingerprints(page) -> list[dict]:
    return page.locator(CHART).evaluate_all(_FINGERPRINT_JS)


def assert_healthy(page, events) -> None:
    """No Streamlit exception box, no traceback text, no JS error, no dialog."""
    exceptions = page.locator(EXCEPTION)
    assert exceptions.count() == 0, f"exception on screen: {exceptions.first.inner_text()[:500]}"
    text = page.locator(APP).inner_text()
    assert "Traceback" not in text, "a traceback is shown in the app"
    assert not events.page_errors, f"uncaught JavaScript errors: {events.page_errors}"
    assert not events.dialogs, f"a dialog was opened: {events.dialogs}"


def assert_navigation_app(page) -> None:
    """The ``st.navigation`` app from ``app.py`` is running, not a bare page script."""
    nav = [" ".join(t.split()) for t in page.locator(NAV_LINK).all_inner_texts()]
    assert any("Why position?" in t for t in nav) and any("T5 relative bias" in t for t in nav), (
        f"sidebar navigation is not app.py's st.navigation: {nav}"
    )
    assert page.locator(f"{SIDEBAR} input[aria-label='Lecture mode']").count() == 1, "no Lecture mode toggle"
    assert "posviz" in page.title(), f"page title is {page.title()!r}"


def full_page_screenshot(page, path) -> None:
    """Screenshot the whole app: Streamlit scrolls inside ``stMain``, not the document,
    so the viewport is stretched to the main area's height for the shot."""
    height = page.evaluate(
        "() => { const m = document.querySelector('[data-testid=\"stMain\"]');"
        " return Math.max(m ? m.scrollHeight : 0, document.documentElement.scrollHeight); }"
    )
    original = page.viewport_size
    page.set_viewport_size({"width": original["width"], "height": min(max(height, original["height"]), 16_000)})
    try:
        wait_steady(page)  # Plotly and the data grids lay themselves out again
        page.screenshot(path=str(path), full_page=True)
    finally:
        page.set_viewport_size(original)


def every_section_open() -> str:
    """Query text that opens every section whose figures wait to be opened (``posviz.ui.sections``)."""
    return "&".join(f"{part.key}=true" for part in every_on_demand())


def open_page(page, url: str, *, charts: int = 0, all_open: bool = True) -> None:
    """Open ``url`` and wait for ``charts`` charts; ``all_open`` also opens every on-demand section."""
    if all_open:
        url += ("&" if "?" in url else "?") + every_section_open()
    page.goto(url, timeout=RENDER_TIMEOUT_MS)
    wait_idle(page)
    if charts:
        wait_charts(page, charts)
        wait_idle(page, settle_s=0.5)


def sidebar_slider(page, label: str):
    """The focusable thumb of the sidebar slider whose label contains ``label``."""
    widget = page.locator(f'{SIDEBAR} [data-testid="stSlider"]').filter(has_text=label)
    assert widget.count() == 1, f"expected one sidebar slider labelled {label!r}, found {widget.count()}"
    thumb = widget.locator('input[type="range"], [role="slider"]').first
    thumb.wait_for(state="attached")
    return thumb


def slider_value(thumb) -> int:
    value = thumb.get_attribute("aria-valuenow") or thumb.get_attribute("value") or thumb.input_value()
    return int(float(value))


def query(page) -> dict[str, list[str]]:
    # location.href, not page.url: the app rewrites the address with history.pushState
    return parse_qs(urlparse(page.evaluate("location.href")).query)


# ---------------------------------------------------------------- tests


def test_first_deep_link_on_fresh_server_runs_navigation_app(fresh_server_url, page, page_events, screenshots):
    """The very first visitor of a fresh server arrives by a deep link to /t5."""
    open_page(page, f"{fresh_server_url}/t5", charts=MIN_CHARTS)
    full_page_screenshot(page, screenshots / "t5_fresh_server_first_visit.png")
    assert_healthy(page, page_events)
    assert_navigation_app(page)


def test_home_renders(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/")
    assert "posviz" in page.title()
    assert page.locator("h1").filter(has_text="posviz").count() >= 1
    assert_navigation_app(page)
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "home.png")


def test_t5_renders_all_charts(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/t5", charts=MIN_CHARTS)
    assert_navigation_app(page)
    prints = chart_fingerprints(page)
    assert len(prints) >= MIN_CHARTS
    untitled = [p["key"] for p in prints if not p["title"].strip()]
    assert not untitled, f"charts without a title: {untitled}"
    empty = [p["key"] for p in prints if p["traces"] == 0 or p["count"] + abs(p["hash"]) == 0]
    assert not empty, f"charts without data: {empty}"
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "t5.png")


def test_t5_later_sections_draw_when_opened_and_the_link_keeps_them(app_url, page, page_events, screenshots):
    """At its defaults /t5 draws sections 1-3; a click opens a later section, and the address reopens it."""
    open_page(page, f"{app_url}/t5", charts=4, all_open=False)
    assert page.locator(CHART).count() == 4, "a closed section drew its figures"
    assert "show_attention" not in query(page)
    section = page.locator('[data-testid="stExpander"]').filter(has_text="Attention maps without and with the bias")
    assert section.count() == 1
    section.locator("summary").click()
    wait_charts(page, 6)
    wait_idle(page)
    assert page.locator(CHART).count() == 6
    assert query(page).get("show_attention") == ["true"], query(page)
    assert_healthy(page, page_events)

    open_page(page, page.evaluate("location.href"), charts=6, all_open=False)  # the shared link
    assert page.locator(CHART).count() == 6
    assert_healthy(page, page_events)


def _places_while_plotly_loads(page, url: str) -> list[dict]:
    """Each figure's place on ``url`` while Plotly's code never arrives: its height and its words."""
    page.route("**/plotly-cartesian.min.js", lambda route: None)  # the bundle never arrives
    page.goto(url, timeout=RENDER_TIMEOUT_MS)
    waiting = page.locator('[class*="st-key-fig_"] .posviz-plot-wait')
    waiting.first.wait_for(timeout=RENDER_TIMEOUT_MS)
    wait_idle(page)
    return waiting.evaluate_all("els => els.map(e => ({height: e.getBoundingClientRect().height, label: e.innerText}))")


def test_figures_hold_their_place_while_plotly_loads(app_url, page, page_events):
    """Until Plotly's bundle has loaded, each figure's place (posviz.ui.plot) is as tall as the figure
    and says what is coming: no jump when it arrives."""
    places = _places_while_plotly_loads(page, f"{app_url}/rope")
    assert len(places) >= 4 and min(p["height"] for p in places) >= 300, places
    assert all("Drawing the figure" in p["label"] for p in places), places
    assert_healthy(page, page_events)


def test_t5_slider_updates_url_and_charts(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/t5", charts=MIN_CHARTS)
    thumb = sidebar_slider(page, "num_buckets")
    before_value = slider_value(thumb)
    before = {p["key"] or str(i): p for i, p in enumerate(chart_fingerprints(page))}

    thumb.focus()
    for _ in range(2):
        thumb.press("ArrowRight")
    page.wait_for_function(
        "v => new URLSearchParams(location.search).get('num_buckets') === String(v)",
        arg=before_value + 2,
        timeout=RENDER_TIMEOUT_MS,
    )
    wait_idle(page)
    wait_charts(page)
    new_value = before_value + 2
    assert slider_value(sidebar_slider(page, "num_buckets")) == new_value
    assert query(page).get("num_buckets") == [str(new_value)]

    after = {p["key"] or str(i): p for i, p in enumerate(chart_fingerprints(page))}
    changed = [k for k in before if k in after and before[k] != after[k]]
    assert changed, "no chart changed after moving the num_buckets slider"
    buckets = "st-key-fig_t5_buckets"
    if buckets in before and buckets in after:
        assert before[buckets] != after[buckets], "the bucket heatmap did not re-render"
        if after[buckets]["zmax"] is not None:
            assert after[buckets]["zmax"] == new_value - 1
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "t5_num_buckets_slider.png")


def test_t5_bad_link_values_give_notices(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/t5?num_buckets=x3&q_len=abc&seed=%3Cscript%3E", charts=MIN_CHARTS)
    alerts = [" ".join(t.split()) for t in page.locator(ALERT).all_inner_texts()]
    for key in ("num_buckets", "q_len", "seed"):
        assert any(key in a for a in alerts), f"no notice mentions {key}: {alerts}"
    # The script text is shown as text, never run or turned into markup.
    assert any("<script>" in a for a in alerts), f"the seed notice does not quote the raw text: {alerts}"
    assert page.locator(f"{MAIN} script").count() == 0
    assert not page_events.dialogs, f"a dialog was opened: {page_events.dialogs}"
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "t5_bad_link.png")


def test_t5_corrected_link_values_are_written_back_to_the_address(app_url, page, page_events, screenshots):
    """The address bar is the link a teacher shares: it must hold the values the page shows."""
    open_page(page, f"{app_url}/t5?lecture=1&scale=0.33&step=2.5&q_len=abc&align=END&k_len=200", charts=MIN_CHARTS)
    wait_idle(page, settle_s=1.5)
    params = query(page)
    assert params.get("lecture") == ["true"], params
    assert params.get("scale") == ["0.35"], params
    assert params.get("step") == ["3"], params
    assert params.get("align") == ["end"], params
    assert "q_len" not in params, params  # refused: back to the default, which links leave out
    assert params.get("k_len") == ["200"], params
    assert page.locator(f"{SIDEBAR} input[aria-label='Lecture mode']").is_checked()
    assert_healthy(page, page_events)


def test_t5_lecture_mode_enlarges_fonts(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/t5", charts=MIN_CHARTS)
    default = {p["key"]: p["fontSize"] for p in chart_fingerprints(page)}

    open_page(page, f"{app_url}/t5?lecture=true", charts=MIN_CHARTS)
    toggle = page.locator(f"{SIDEBAR} input[aria-label='Lecture mode']")
    assert toggle.is_checked(), "Lecture mode toggle is off with ?lecture=true"
    lecture = {p["key"]: p["fontSize"] for p in chart_fingerprints(page)}
    common = [k for k in default if k in lecture and default[k] is not None and lecture[k] is not None]
    assert common, f"no chart font sizes to compare: {default} / {lecture}"
    smaller = [k for k in common if not lecture[k] > default[k]]
    assert not smaller, f"lecture mode does not enlarge the fonts of {smaller}: {default} -> {lecture}"
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "t5_lecture.png")


def test_t5_too_few_bidirectional_buckets_is_a_clear_error(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/t5?num_buckets=2")
    alerts = [" ".join(t.split()) for t in page.locator(ALERT).all_inner_texts()]
    assert any(re.search(r"num_buckets\s*(≥|>=)\s*4", a) for a in alerts), f"no num_buckets >= 4 error: {alerts}"
    assert page.locator(CHART).count() == 0, "charts drawn for an invalid configuration"
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "t5_num_buckets_2.png")


# ---------------------------------------------------------------- RoPE

ROPE_CHARTS = 10


def test_rope_renders_all_charts(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/rope", charts=ROPE_CHARTS)
    assert_navigation_app(page)
    prints = chart_fingerprints(page)
    assert len(prints) == ROPE_CHARTS
    assert not [p["key"] for p in prints if not p["title"].strip()], "charts without a title"
    assert not [p["key"] for p in prints if p["traces"] == 0 or p["count"] + abs(p["hash"]) == 0], "empty charts"
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "rope.png")


def test_rope_yarn_at_a_million_tokens(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/rope?method=yarn&seq_len=1048576&factor=32&layout=half", charts=ROPE_CHARTS)
    params = query(page)
    assert params.get("method") == ["yarn"] and params.get("seq_len") == ["1048576"], params
    assert page.locator(f"{SIDEBAR} input[aria-label='truncate']").count() == 1, "no YaRN options in the sidebar"
    titles = [p["title"] for p in chart_fingerprints(page)]
    assert any("distances up to 1048575" in t for t in titles), titles
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "rope_yarn_1m.png")


def test_rope_bad_links_and_rules(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/rope?dim=7&base=abc&layout=%3Cscript%3E", charts=ROPE_CHARTS)
    alerts = [" ".join(t.split()) for t in page.locator(ALERT).all_inner_texts()]
    for key in ("dim", "base", "layout"):
        assert any(key in a for a in alerts), f"no notice mentions {key}: {alerts}"
    assert page.locator(f"{MAIN} script").count() == 0
    assert_healthy(page, page_events)

    open_page(page, f"{app_url}/rope?method=dynamic&dim=2")
    alerts = [" ".join(t.split()) for t in page.locator(ALERT).all_inner_texts()]
    assert any(re.search(r"dim\s*(≥|>=)\s*4", a) for a in alerts), alerts
    assert page.locator(CHART).count() == 0, "charts drawn for an invalid configuration"
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "rope_dynamic_dim_2.png")


SHAW_CHARTS = 7
SKEW_CHARTS = 3


def test_shaw_renders_all_charts(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/shaw", charts=SHAW_CHARTS)
    assert_navigation_app(page)
    prints = chart_fingerprints(page)
    assert len(prints) == SHAW_CHARTS
    assert not [p["key"] for p in prints if not p["title"].strip()], "charts without a title"
    assert not [p["key"] for p in prints if p["traces"] == 0 or p["count"] + abs(p["hash"]) == 0], "empty charts"
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "shaw.png")


def test_shaw_huge_and_hostile_link(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/shaw?q_len=131072&k_len=131072&clip=abc&dim=7", charts=SHAW_CHARTS)
    alerts = [" ".join(t.split()) for t in page.locator(ALERT).all_inner_texts()]
    for key in ("clip", "dim"):
        assert any(f"{key}=" in a for a in alerts), f"no notice mentions {key}: {alerts}"
    params = query(page)
    assert params.get("dim") == ["6"], params  # corrected in the address bar
    titles = [p["title"] for p in chart_fingerprints(page)]
    assert any(t.startswith("R[") for t in titles), titles
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "shaw_huge.png")


def test_skew_steps_through_and_animates(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/skew", charts=SKEW_CHARTS)
    assert_navigation_app(page)
    first = chart_fingerprints(page)[0]
    assert first["title"].startswith("Step 1"), first
    page.locator(MAIN).get_by_role("button", name="Next").click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('step') === '2'", timeout=RENDER_TIMEOUT_MS)
    wait_idle(page)
    wait_charts(page, SKEW_CHARTS)
    assert chart_fingerprints(page)[0]["title"].startswith("Step 2")
    full_page_screenshot(page, screenshots / "skew_step_2.png")

    # The animation runs in the browser: Play moves its heatmap through the steps.
    animation = page.locator(f"{MAIN} [class*='st-key-fig_skew_masked_animation'] {CHART}")
    assert animation.count() == 1
    animation.get_by_text("▶ Play", exact=True).click()
    page.wait_for_function(
        """sel => { const e = document.querySelector(sel); return e && e.layout.title.text.startsWith('Step 4'); }""",
        arg=f"[class*='st-key-fig_skew_masked_animation'] {CHART}",
        timeout=20_000,
    )
    assert_healthy(page, page_events)


def test_skew_every_variant_and_bad_links(app_url, page, page_events, screenshots):
    for variant in ("unmasked", "rel_shift"):
        open_page(page, f"{app_url}/skew?variant={variant}&step=6", charts=SKEW_CHARTS)
        assert chart_fingerprints(page)[0]["title"].startswith("Step 6")
        assert_healthy(page, page_events)
        full_page_screenshot(page, screenshots / f"skew_{variant}_step_6.png")
    open_page(page, f"{app_url}/skew?seq_len=-5&variant=%3Cimg%20src=x%3E&step=2.5", charts=SKEW_CHARTS)
    alerts = [" ".join(t.split()) for t in page.locator(ALERT).all_inner_texts()]
    for key in ("seq_len", "variant", "step"):
        assert any(f"{key}=" in a for a in alerts), f"no notice mentions {key}: {alerts}"
    assert page.locator(f"{MAIN} img[src='x']").count() == 0
    assert_healthy(page, page_events)


# ---------------------------------------------------------------- CoPE

COPE_CHARTS = 6


def test_cope_renders_all_charts(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/cope", charts=COPE_CHARTS)
    assert_navigation_app(page)
    prints = chart_fingerprints(page)
    assert len(prints) >= COPE_CHARTS
    assert not [p["key"] for p in prints if not p["title"].strip()]
    assert not [p["key"] for p in prints if p["traces"] == 0 or p["count"] + abs(p["hash"]) == 0]
    assert page.locator(f"{MAIN} textarea").count() == 1
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "cope.png")


def test_cope_pitfall_toggle_adds_the_leak(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/cope?mode=random", charts=COPE_CHARTS)
    before = len(chart_fingerprints(page))
    toggle = page.locator(f"{MAIN} [data-testid='stCheckbox']").filter(has_text="mask after the gates")
    for _ in range(3):  # a click that lands during a rerun can be lost: try again, unless it took
        if not toggle.locator("input").is_checked():
            toggle.click()
        try:
            page.wait_for_function(
                "() => new URLSearchParams(location.search).get('mask_after') === 'true'", timeout=20_000
            )
            break
        except Exception:  # Playwright's TimeoutError
            wait_idle(page)
    wait_idle(page)
    wait_charts(page, before + 2)
    keys = {p["key"] for p in chart_fingerprints(page)}
    assert {"st-key-fig_cope_pitfall", "st-key-fig_cope_pitfall_difference"} <= keys, keys
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "cope_pitfall.png")


def test_cope_hostile_text_is_shown_as_text(app_url, page, page_events, screenshots):
    text = "%3Cscript%3Ealert(1)%3C%2Fscript%3E%20%3Cimg%20src%3Dx%20onerror%3Dalert(2)%3E%20**bold**."
    open_page(page, f"{app_url}/cope?text={text}&npos_max=abc", charts=COPE_CHARTS)
    alerts = [" ".join(t.split()) for t in page.locator(ALERT).all_inner_texts()]
    assert any("npos_max" in a for a in alerts), alerts
    assert page.locator(f"{MAIN} textarea").input_value().startswith("<script>alert(1)</script>")
    assert page.locator(f"{MAIN} script").count() == 0
    assert page.locator(f"{MAIN} img[src='x']").count() == 0
    assert not page_events.dialogs, page_events.dialogs
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "cope_hostile_text.png")


def test_moving_to_another_page_starts_from_its_own_defaults(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/skew?seq_len=12", charts=SKEW_CHARTS)
    page.locator(NAV_LINK).and_(page.get_by_role("link", name="RoPE", exact=True)).click()  # not "NoPE and DroPE"
    page.wait_for_function("() => location.pathname.endsWith('/rope')", timeout=RENDER_TIMEOUT_MS)
    wait_idle(page)
    wait_charts(page, 4)  # RoPE at its defaults: sections 1-4, the later ones wait to be opened
    assert not [k for k in query(page) if k.startswith("show_")], query(page)
    box = page.locator(f"{SIDEBAR} input[aria-label='Sequence length seq_len']")
    assert box.input_value() == "16384"
    assert "seq_len" not in query(page)


# ---------------------------------------------------------------- sinusoidal, ALiBi, compare

SINUSOIDAL_CHARTS = 6
ALIBI_CHARTS = 4
COMPARE_CHARTS = 4


def _all_charts_drawn(page, count: int) -> None:
    prints = chart_fingerprints(page)
    assert len(prints) == count, [p["key"] for p in prints]
    assert not [p["key"] for p in prints if not p["title"].strip()], "charts without a title"
    assert not [p["key"] for p in prints if p["traces"] == 0 or p["count"] + abs(p["hash"]) == 0], "empty charts"


def test_sinusoidal_renders_and_refuses_a_rope_layout(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/sinusoidal", charts=SINUSOIDAL_CHARTS)
    assert_navigation_app(page)
    _all_charts_drawn(page, SINUSOIDAL_CHARTS)
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "sinusoidal.png")
    open_page(page, f"{app_url}/sinusoidal?layout=half&seq_len=131072&dim=abc", charts=SINUSOIDAL_CHARTS)
    alerts = [" ".join(t.split()) for t in page.locator(ALERT).all_inner_texts()]
    for key in ("layout", "dim"):
        assert any(f"{key}=" in a for a in alerts), f"no notice mentions {key}: {alerts}"
    assert query(page).get("seq_len") == ["131072"]
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "sinusoidal_huge_bad_layout.png")


def test_alibi_renders_with_any_head_count(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/alibi?heads=12&causal=false", charts=ALIBI_CHARTS)
    assert_navigation_app(page)
    _all_charts_drawn(page, ALIBI_CHARTS)
    titles = [p["title"] for p in chart_fingerprints(page)]
    assert any("symmetric" in t for t in titles), titles
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "alibi_12_heads.png")
    open_page(page, f"{app_url}/alibi?heads=129&causal=%3Cscript%3E", charts=ALIBI_CHARTS)
    alerts = [" ".join(t.split()) for t in page.locator(ALERT).all_inner_texts()]
    for key in ("heads", "causal"):
        assert any(f"{key}=" in a for a in alerts), f"no notice mentions {key}: {alerts}"
    assert page.locator(f"{MAIN} script").count() == 0
    assert_healthy(page, page_events)


def test_compare_renders_and_links_carry_the_settings(app_url, page, page_events, screenshots):
    open_page(page, f"{app_url}/compare?seq_len=24&dim=32&seed=3", charts=COMPARE_CHARTS)
    assert_navigation_app(page)
    _all_charts_drawn(page, COMPARE_CHARTS)
    assert_healthy(page, page_events)
    full_page_screenshot(page, screenshots / "compare.png")
    link = page.locator(f"{MAIN} a").filter(has_text="the RoPE page with these settings")
    assert link.count() == 1
    href = link.evaluate("a => a.href")  # absolute, resolved by the browser
    params = parse_qs(urlparse(href).query)
    assert urlparse(href).path.endswith("/rope") and params.get("seq_len") == ["24"], href
    open_page(page, href, charts=ROPE_CHARTS)
    assert page.locator(f"{SIDEBAR} input[aria-label='Sequence length seq_len']").input_value() == "24"
    assert page.locator(f"{SIDEBAR} input[aria-label='Dimension dim']").input_value() == "32"
    assert query(page).get("dim") == ["32"]
    assert_healthy(page, page_events)

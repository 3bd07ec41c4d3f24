"""Lecture mode at projector sizes, measured in the DOM of a real Chromium, on every page.

At 1280 x 720 and 1024 x 768 with ``?lecture=1``: no formula wider than its box, no
text the room reads (formulas, metrics, tables, figure titles, ticks, legends) smaller
than the body text, Plotly titles inside their chart and clear of subplot titles,
legends and plots, no sideways scrolling, the sidebar out of the way. Every request
goes to the app's own server, and every page has its own tab title.

``POSVIZ_DOCS_SCREENSHOTS=1`` also writes the 1280 x 720 screenshots to ``docs/lecture/``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import pytest
from lecture_probe import PROBE_JS, problems, scroll_through
from test_app_browser import every_section_open
from waits import wait_steady

from posviz.schemes import PAGES as APP_PAGES

pytestmark = pytest.mark.browser

# Charts each page draws with every section open (URL path -> count); paths and titles come from the registry.
CHARTS = {
    "": 0,
    "sinusoidal": 6,
    "shaw": 7,
    "skew": 3,
    "t5": 6,
    "rope": 10,
    "alibi": 4,
    "cope": 6,
    "compare": 4,
    "models": 5,  # Llama 3.1 8B: strip, inv_freq, wavelength, masks, reach
    "vision": 10,
    "transformer_xl": 4,
    "xpos": 2,
    "kerple": 1,
    "fire": 3,
    "nope": 5,
    "stickbreaking": 3,
}
PAGES = [(p.key, p.title, CHARTS.get(p.key, 0)) for p in APP_PAGES]  # (URL path, st.Page title, charts)
FORMULA_PAGES = {  # st.latex at the top
    *("t5", "skew", "rope", "cope", "sinusoidal", "alibi", "vision"),
    *("transformer_xl", "xpos", "kerple", "fire", "stickbreaking"),
}
SIZES = [(1280, 720), (1024, 768)]
LOAD_TIMEOUT_MS = 120_000
DOCS = Path(__file__).resolve().parents[2] / "docs" / "lecture"
SHOT_WIDTH = 640  # docs screenshots: half size, 256 colours


@dataclass
class Visit:
    """What one page load showed and fetched."""

    measures: dict
    title: str
    charts: int
    requests: list[str] = field(default_factory=list)


def _idle(page) -> None:
    page.wait_for_function(
        "() => { const a = document.querySelector('[data-testid=\"stApp\"]');"
        " return a && a.getAttribute('data-test-script-state') === 'notRunning'"
        " && !document.querySelector('[data-testid=\"stStatusWidget\"]'); }",
        timeout=LOAD_TIMEOUT_MS,
    )


def _charts_drawn(page, minimum: int) -> int:
    page.wait_for_function(
        "n => [...document.querySelectorAll('.js-plotly-plot')]"
        ".filter(e => e._fullLayout && e.querySelector('.main-svg')).length >= n",
        arg=minimum,
        timeout=LOAD_TIMEOUT_MS,
    )
    return page.locator(".js-plotly-plot").count()


def _save_small(page, path: Path) -> None:
    """The whole page (Streamlit scrolls inside its main area), halved and reduced to 256 colours."""
    from PIL import Image

    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": min(max(height, size["height"]), 16_000)})
    try:
        wait_steady(page)  # Plotly and the tables lay themselves out again
        path.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(path), full_page=True)
    finally:
        page.set_viewport_size(size)
    with Image.open(path) as im:
        small = im.convert("RGB").resize((SHOT_WIDTH, round(im.height * SHOT_WIDTH / im.width)), Image.LANCZOS)
    small.quantize(colors=256, method=Image.Quantize.FASTOCTREE).save(path, optimize=True)


@pytest.fixture(scope="module")
def visit(app_url, browser, screenshots):
    """``visit(path, size, lecture=True)``: load a page once, measure it, remember the result."""
    done: dict[tuple, Visit] = {}

    def run(path: str, size: tuple[int, int], lecture: bool = True, lang: str = "en") -> Visit:
        key = (path, size, lecture, lang)
        if key in done:
            return done[key]
        charts = CHARTS[path]
        context = browser.new_context(viewport={"width": size[0], "height": size[1]})
        requests: list[str] = []
        try:
            page = context.new_page()
            page.on("request", lambda r: requests.append(r.url))
            query = "&".join([*(["lecture=1"] if lecture else []), *([f"lang={lang}"] if lang != "en" else []),
                              every_section_open()])  # fmt: skip
            page.goto(f"{app_url}/{path}?{query}", timeout=LOAD_TIMEOUT_MS)
            _idle(page)
            scroll_through(page)  # charts below the fold draw when scrolled to
            drawn = _charts_drawn(page, charts)
            _idle(page)
            wait_steady(page)  # every box in its final place before it is measured
            measures = page.evaluate(PROBE_JS)
            if lecture and size == SIZES[0]:
                name = f"{path or 'home'}{'' if lang == 'en' else '.' + lang}.png"
                _save_small(page, screenshots / "lecture" / name)
                if os.environ.get("POSVIZ_DOCS_SCREENSHOTS") == "1" and lang == "en":
                    _save_small(page, DOCS / name)
            done[key] = Visit(measures=measures, title=page.title(), charts=drawn, requests=requests)
        finally:
            context.close()
        return done[key]

    return run


@pytest.mark.parametrize("lang", ["en", "zh"])  # Chinese wraps differently: measured, not assumed
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("path", [p for p, _, _ in PAGES], ids=lambda p: p or "home")
def test_lecture_page_fits_the_room(visit, path, size, lang):
    v = visit(path, size, lang=lang)
    faults = problems(v.measures)
    assert not faults["overflow"], f"overflow at {size}: {faults['overflow']}"
    assert not faults["overlap"], f"overlap at {size}: {faults['overlap']}"
    assert not faults["small"], f"text smaller than the body ({v.measures['body']} px) at {size}: {faults['small']}"
    assert v.measures["body"] >= 20, "lecture body text is at least 20 px"
    assert not v.measures["sidebarOpen"], "the sidebar is collapsed in lecture mode"
    expected = CHARTS[path]
    assert v.charts >= expected and len(v.measures["charts"]) >= expected, "charts missing: the check saw too little"
    if path in FORMULA_PAGES:  # the formula was there to measure
        assert v.measures["formulas"], "no formula measured"


def test_every_page_of_the_app_is_visited():
    """The registry is the list: a page added to it gets a chart count here or this fails."""
    assert [p for p, _, _ in PAGES] == [p.key for p in APP_PAGES] and set(CHARTS) == {p.key for p in APP_PAGES}
    assert "models" in CHARTS and all(title for _, title, _ in PAGES)


def test_the_probe_finds_a_cut_off_formula_and_a_title_over_a_subplot_title():
    """The checks can fail: a formula wider than its box, overlapping boxes and a page title under the
    app header (lecture mode's larger root font made the header taller than the top padding) are reported."""
    box = dict(l=0, t=0, r=100, b=20)
    measures = {
        "body": 20,
        "formulas": [dict(text="f", scrollWidth=900, clientWidth=800, right=900, boxRight=800, size=20)],
        "metrics": [dict(label="m", value=14, labelSize=20, clipped=True)],
        "tables": [dict(size=14, right=0)],
        "charts": [
            dict(
                title="c",
                chart=dict(l=0, t=0, r=500, b=400),
                titles=[dict(text="subtitle", l=-10, t=30, r=300, b=50)],
                annotations=[dict(text="panel", l=100, t=40, r=200, b=60)],
                legends=[],
                plots=[],
                axisTitles=[],
                colorbars=[],
                small=["5 (15px)"],
            )
        ],
        "nav": [],
        "sliders": [dict(value="3", **box, thumb=dict(l=0, t=10, r=20, b=30))],
        "heading": dict(
            text="T5 relative position bias", l=32, t=48, r=500, b=124, header=dict(l=0, t=0, r=1280, b=86)
        ),
        "pageOverflow": 12,
        "wide": [],
    }
    found = problems(measures)
    assert len(found["overflow"]) == 4  # formula, metric label, title outside, sideways scroll
    assert len(found["overlap"]) == 3  # subtitle over the panel title, slider value over its thumb, title under header
    assert len(found["small"]) == 3  # metric value, table, chart text


def test_no_request_leaves_the_server(visit, app_url, browser):
    """Offline lecture halls and students' privacy: the favicon too comes from the app."""
    host = urlparse(app_url).netloc
    seen = []
    for path, _, _ in PAGES:
        seen += visit(path, SIZES[0]).requests
        seen += visit(path, SIZES[0], lecture=False).requests
    # moving between pages in the browser (st.navigation) fetches nothing from elsewhere either
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.on("request", lambda r: seen.append(r.url))
        page.goto(f"{app_url}/", timeout=LOAD_TIMEOUT_MS)
        _idle(page)
        for _, title, _ in PAGES[1:]:
            nav = page.locator('[data-testid="stSidebarNavLink"]')
            nav.and_(page.get_by_role("link", name=title, exact=True)).click()  # "RoPE" is in "NoPE and DroPE"
            page.wait_for_function("t => document.title.startsWith(t)", arg=title, timeout=LOAD_TIMEOUT_MS)
            _idle(page)
    finally:
        context.close()
    foreign = sorted(
        {u for u in seen if urlparse(u).scheme in ("http", "https", "ws", "wss") and urlparse(u).netloc != host}
    )
    assert len(seen) > 50, "too few requests recorded: the check saw nothing"
    assert not foreign, f"requests to other hosts: {foreign}"
    favicons = [u for u in seen if urlparse(u).netloc == host and "/media/" in u and u.endswith(".png")]
    assert favicons, "the favicon is not served by the app"


def test_every_page_has_its_own_tab_title(visit):
    titles = [visit(path, SIZES[0]).title for path, _, _ in PAGES]
    assert titles == [f"{title} · posviz" for _, title, _ in PAGES]
    assert len(set(titles)) == len(PAGES)
    assert [visit(path, SIZES[0], lecture=False).title for path, _, _ in PAGES] == titles


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("path", [p for p, _, _ in PAGES])
def test_nothing_is_cut_off_beside_the_open_sidebar(visit, path, size):
    """Outside lecture mode the sidebar takes 300 px of a small screen: nothing is cut off or drawn over."""
    v = visit(path, size, lecture=False)
    if path in FORMULA_PAGES:
        assert v.measures["formulas"], "no formula measured"
    found = problems(v.measures)
    cut = found["overflow"] + found["overlap"]
    assert not cut, f"at {size} with the sidebar open: {cut}"


def _table_sizes(page) -> list[float]:
    return [t["size"] for t in page.evaluate(PROBE_JS)["tables"]]


def test_tables_follow_lecture_mode_both_ways(app_url, browser):
    """A data grid keeps the root font size it was first drawn at (st.data_editor, like st.dataframe, reads it
    once): switching lecture mode on must still show it at the body size, and switching it off at the normal
    size. Read-only tables are static HTML (posviz.ui.tables); the grid left is T5's bias-table editor."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        page = context.new_page()
        page.goto(f"{app_url}/t5?show_table=true", timeout=LOAD_TIMEOUT_MS)
        _idle(page)
        page.wait_for_function(
            "() => document.querySelectorAll('[style*=\"--gdg-base-font-style\"]').length >= 1",
            timeout=LOAD_TIMEOUT_MS,
        )
        normal = _table_sizes(page)
        assert len(normal) >= 1 and all(abs(s - 14) < 0.5 for s in normal), normal

        page.locator("[data-testid='stSidebar'] label").filter(has_text="Lecture mode").click()
        page.wait_for_function("() => location.search.includes('lecture=true')", timeout=LOAD_TIMEOUT_MS)
        _idle(page)
        wait_steady(page)
        lecture = _table_sizes(page)
        body = page.evaluate(PROBE_JS)["body"]
        assert body >= 20 and all(s + 0.25 >= body for s in lecture), (body, lecture)

        page.locator("[data-testid='stExpandSidebarButton']").click()  # lecture mode collapsed the sidebar
        page.locator("[data-testid='stSidebar'] label").filter(has_text="Lecture mode").click()
        page.wait_for_function("() => !location.search.includes('lecture=true')", timeout=LOAD_TIMEOUT_MS)
        _idle(page)
        wait_steady(page)
        back = _table_sizes(page)
        assert all(abs(s - 14) < 0.5 for s in back), back  # the tables drawn at the lecture size, back down
    finally:
        context.close()

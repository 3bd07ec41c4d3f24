"""Lecture decks in a real Chromium at projector size: a clicker through a shipped deck, building a deck.

A clicker sends PageDown and PageUp (some send → and ←, or Space); the test presses them as a
clicker does, on the page, and checks each slide's address (page, deck, slide) and view (the
slide's settings in the widgets, the progress line, no notice, no error).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from waits import wait_steady

from posviz import i18n
from posviz.schemes import page_of
from posviz.ui.deck import model
from posviz.ui.deck.links import page_params, step_values
from posviz.ui.params import link_text

pytestmark = [pytest.mark.browser, pytest.mark.slow]

VIEWPORT = {"width": 1280, "height": 720}
TIMEOUT_MS = 120_000
STEP_ITEMS = '[data-testid="stSidebar"] [data-testid="stExpander"] ol li'  # the deck's steps, in order
IDLE = (
    "() => { const a = document.querySelector('[data-testid=\"stApp\"]');"
    " return a && a.getAttribute('data-test-script-state') === 'notRunning'"
    " && !document.querySelector('[data-testid=\"stStatusWidget\"]'); }"
)


@pytest.fixture(scope="module")
def deck_url(browser) -> Iterator[str]:
    """A server of this module's own (``POSVIZ_TEST_PORT`` pins its port), warmed up by one visit to ``/``."""
    import conftest as browser_conftest  # tests/browser/conftest.py: the server fixture's machinery

    port = os.environ.get("POSVIZ_TEST_PORT")
    with browser_conftest.streamlit_server("streamlit-deck", port=int(port) if port else None) as server:
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        page.goto(f"{server.url}/", timeout=TIMEOUT_MS)
        page.wait_for_function(IDLE, timeout=TIMEOUT_MS)
        context.close()
        yield server.url


@pytest.fixture
def tab(browser):
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    context.set_default_timeout(60_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        yield page
        assert not errors, errors
    finally:
        context.close()


def on_slide(page, slide: int) -> None:
    """Wait until the address says ``slide`` and the run that drew it has finished."""
    page.wait_for_function(
        "n => new URLSearchParams(location.search).get('slide') === String(n)", arg=slide, timeout=TIMEOUT_MS
    )
    page.wait_for_function(IDLE, timeout=TIMEOUT_MS)
    page.wait_for_function(
        "n => [...document.querySelectorAll('[data-testid=\"stProgress\"]')]"  # "Slide 4 of 19", "第 4 / 19 张"
        ".some(p => new RegExp('(^|\\\\D)' + n + '\\\\s*(of|/)\\\\s*\\\\d').test(p.innerText))",
        arg=slide,
        timeout=TIMEOUT_MS,
    )


_AT_SECTION_JS = """id => {
  const h = document.getElementById(id), bar = document.querySelector('[data-testid="stHeader"]');
  const main = document.querySelector('[data-testid="stMain"]');
  if (!h || !bar || !main) return false;
  const top = h.getBoundingClientRect().top, below = bar.getBoundingClientRect().bottom;
  const end = main.scrollTop + main.clientHeight >= main.scrollHeight - 2;
  return top >= below - 2 && (top <= below + 60 || (end && top < window.innerHeight / 2));
}"""


def check_view(page, deck: model.Deck, value: str, slide: int) -> None:
    """The address and the view are the slide's: page, deck keys, settings, no notice, no error."""
    step = deck.step(slide)
    url = urlparse(page.url)
    assert url.path.rstrip("/").rsplit("/", 1)[-1] == step.page, (slide, page.url)
    query = parse_qs(url.query)
    assert query["deck"] == [value] and query["slide"] == [str(slide)]
    assert page.locator('[data-testid="stException"]').count() == 0
    alerts = [a.inner_text() for a in page.locator('[data-testid="stAlert"]').all()]
    assert not [a for a in alerts if a.startswith("link_off")], (slide, alerts)
    assert not page.locator('[data-testid="stAlertContentError"]').count(), (slide, alerts)
    progress = page.locator('[data-testid="stProgress"]').first.inner_text()
    with i18n.use(deck.lang or "en"):  # the bar speaks the deck's language
        said = i18n._("**Slide {slide} of {last}**").format(slide=slide, last=len(deck.steps)).strip("*")
    assert said in progress and step.title.split(":")[0].split("：")[0] in progress
    values, _ = step_values(step)
    params = page_params(step.page)
    for key, expected in values.items():  # each widget shows the slide's value (waited for: drawn as the run goes)
        p = params[key]
        if p.widget == "number":
            selector = f'[data-testid="stSidebar"] input[aria-label="{p.label}"]'
            read = "e => parseFloat(e.value)"
        elif p.widget == "slider":
            selector = f'[data-testid="stSidebar"] [role="slider"][aria-label="{p.label}"]'
            read = "e => parseFloat(e.getAttribute('aria-valuenow'))"
        else:
            continue
        page.wait_for_function(
            f"([sel, want]) => {{ const e = document.querySelector(sel); if (!e) return true;"
            f" return Math.abs(({read})(e) - want) < 1e-6 * Math.max(1, Math.abs(want)); }}",
            arg=[selector, float(expected)],
            timeout=30_000,
        )
    if any(k.startswith("show_") and v for k, v in values.items()):
        assert page.locator("details[open]").count() >= 1, slide
    if step.anchor:  # the slide opens at its section: its heading just under Streamlit's header (or, for a
        # section at the end of the page, the page scrolled to its end with the heading in view)
        page.wait_for_function(_AT_SECTION_JS, arg=step.anchor, timeout=30_000)


def steps_are(sidebar, titles: list[str]) -> None:
    """The deck's list of steps in the sidebar reads ``titles``, in order."""
    items = sidebar.page.locator(STEP_ITEMS)
    items.first.wait_for(timeout=TIMEOUT_MS)
    sidebar.page.wait_for_function(
        "([sel, t]) => JSON.stringify([...document.querySelectorAll(sel)].map(li => li.innerText.trim()))"
        " === JSON.stringify(t)",
        arg=[STEP_ITEMS, titles],
        timeout=TIMEOUT_MS,
    )


# What a window shows: the address's settings, every widget's value (the deck editor's aside), the
# headings, each figure's title, the progress line, the notices. Read once the slide is settled.
_VIEW_JS = """() => {
  const skip = e => e.closest('[class*="st-key-deck_ed"], [class*="st-key-deck_add"]');
  const label = e => (e.getAttribute('aria-label') || e.closest('[data-testid^="st"]')?.innerText || '')
    .trim().slice(0, 60);
  const widgets = {};
  for (const e of document.querySelectorAll('input[type="number"], input[type="text"], textarea')) {
    if (!skip(e)) widgets['input ' + label(e)] = e.value;
  }
  for (const e of document.querySelectorAll('[role="slider"]')) {
    if (!skip(e)) widgets['slider ' + label(e)] = e.getAttribute('aria-valuenow');
  }
  for (const e of document.querySelectorAll('input[type="checkbox"]')) {
    if (!skip(e)) widgets['check ' + (e.closest('label')?.innerText || label(e)).trim()] = e.checked;
  }
  for (const g of document.querySelectorAll('[role="radiogroup"]')) {
    if (!skip(g)) widgets['radio ' + label(g)] = [...g.querySelectorAll('input')].map(i => i.checked).join();
  }
  const main = document.querySelector('[data-testid="stMain"]');
  const query = Object.fromEntries([...new URLSearchParams(location.search)].sort());
  return {
    path: location.pathname.split('/').pop(), query, widgets,
    headings: [...main.querySelectorAll('h1, h2, h3')].map(h => h.innerText.trim()),
    figures: [...main.querySelectorAll('[class*="st-key-fig_"]')].map(f =>
      (f.className.match(/st-key-(fig_\\S+)/) || [])[1] + ' ' + (f.querySelector('.gtitle')?.textContent || '')),
    progress: document.querySelector('[data-testid="stProgress"]')?.innerText.trim(),
    alerts: [...document.querySelectorAll('[data-testid="stAlert"]')].map(a => a.innerText.trim()),
  };
}"""

# The slide's figure (posviz/ui/front/clicker.js marks it): whole, under Streamlit's header, in the window.
_FIGURE_JS = """n => {
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main.querySelector('[class*="st-key-fig_"]')) return {none: true};
  const f = document.querySelector(`[data-posviz-slide-figure="${n}"]`);
  if (!f) return null;
  const r = f.getBoundingClientRect();
  const header = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect().bottom;
  return {top: r.top, bottom: r.bottom, header, height: window.innerHeight};
}"""


# What clicker.js's place() reads, for a failure's message: why no figure was marked.
_WHY_JS = """n => {
  const app = document.querySelector('[data-testid="stApp"]');
  return {
    address: location.search, state: app && app.getAttribute('data-test-script-state'),
    bars: [...document.querySelectorAll('[data-testid="stProgress"]')].map(b => b.textContent),
    anchor: document.querySelector(`.st-key-deck_anchor_${n} a`)?.getAttribute('href') || null,
    marked: [...document.querySelectorAll('[data-posviz-slide-figure]')]
      .map(f => f.getAttribute('data-posviz-slide-figure')),
    figures: [...document.querySelectorAll('[data-testid="stMain"] [class*="st-key-fig_"]')].map(f =>
      [(f.className.match(/st-key-(fig_\\S+)/) || [])[1], f.getAttribute('data-stale'),
       !!f.querySelector('.main-svg')]),
  };
}"""


def settled_view(page, deck: model.Deck, slide: int) -> dict:
    """The window's view of ``slide`` once drawn: its figure placed (or none on the page), nothing moving."""
    on_slide(page, slide)
    try:
        page.wait_for_function(f"n => ({_FIGURE_JS})(n) !== null", arg=slide, timeout=TIMEOUT_MS)
    except PlaywrightTimeoutError:
        raise AssertionError(f"slide {slide}'s figure never marked: {page.evaluate(_WHY_JS, slide)}") from None
    wait_steady(page)
    page.wait_for_function(IDLE, timeout=TIMEOUT_MS)
    view = page.evaluate(_VIEW_JS)
    view["figure"] = page.evaluate(_FIGURE_JS, slide)
    return view


def check_address(view: dict, deck: model.Deck, slide: int) -> None:
    """The address names the deck and slide, and each setting it carries (Streamlit writes a setting a move
    changes on a page already drawn) is the slide's, written as a moved control writes it: q_len=512,
    never 512.0."""
    step = deck.step(slide)
    params = page_params(step.page)
    values, _ = step_values(step)
    for key, text in view["query"].items():
        if key in model.DECK_KEYS:
            continue
        p = params[key]
        own = {"lecture": True, "lang": deck.lang or p.default}  # the deck's: lecture mode on, its language
        want = values.get(key, own.get(key, p.default))
        assert text == link_text(p, want), (slide, key, text)


def _without_settings(view: dict) -> dict:
    """The view but the figure's place and the address's settings (checked by ``check_address``)."""
    out = {k: v for k, v in view.items() if k != "figure"}
    out["query"] = {k: v for k, v in view["query"].items() if k in model.DECK_KEYS}
    return out


def check_figure_in_view(view: dict, slide: int) -> None:
    f = view["figure"]
    if f.get("none"):
        return
    assert f["top"] >= f["header"] - 2 and f["bottom"] <= f["height"] + 1, (slide, f)


@pytest.mark.parametrize("name", model.shipped_names())
def test_every_slide_reached_by_a_key_shows_what_its_link_shows(deck_url, browser, name):
    """Walked forward (PageDown) and back (PageUp) at 1280 × 720, each slide's view is the one a fresh
    window opened at its link shows (at 1024 × 768): settings, widgets, headings, figures, notices;
    and in both windows the slide's figure is whole on screen."""
    deck = model.from_link_value(name)
    last = len(deck.steps)
    fresh_context = browser.new_context(viewport={"width": 1024, "height": 768})
    walk_context = browser.new_context(viewport=VIEWPORT)
    try:
        fresh = fresh_context.new_page()
        expected = {}
        for slide in range(1, last + 1):
            fresh.goto(f"{deck_url}/?deck={name}&slide={slide}", timeout=TIMEOUT_MS)
            expected[slide] = settled_view(fresh, deck, slide)
            check_figure_in_view(expected[slide], slide)
            check_address(expected[slide], deck, slide)
        walk = walk_context.new_page()
        errors: list[str] = []
        walk.on("pageerror", lambda err: errors.append(str(err)))
        walk.goto(f"{deck_url}/?deck={name}", timeout=TIMEOUT_MS)
        order = [*range(1, last + 1), *range(last - 1, 0, -1)]
        for n, slide in enumerate(order):
            if n:
                walk.keyboard.press("PageDown" if slide > order[n - 1] else "PageUp")
            view = settled_view(walk, deck, slide)
            check_figure_in_view(view, slide)
            check_address(view, deck, slide)
            assert _without_settings(view) == _without_settings(expected[slide]), (name, slide, n)
        assert not errors, errors
    finally:
        fresh_context.close()
        walk_context.close()


def test_the_clickers_other_keys_and_the_address(deck_url, tab):
    """→ and Space go forward, ← back (as PageDown and PageUp); the address reopens the slide exactly."""
    name = "relative"
    deck = model.from_link_value(name)
    last = len(deck.steps)
    tab.goto(f"{deck_url}/?deck={name}&slide={last - 2}", timeout=TIMEOUT_MS)
    on_slide(tab, last - 2)
    for press, slide in (("ArrowRight", last - 1), ("ArrowLeft", last - 2), ("Space", last - 1), ("Space", last)):
        tab.keyboard.press(press)
        on_slide(tab, slide)
    check_view(tab, deck, name, last)
    tab.goto(tab.url, timeout=TIMEOUT_MS)
    on_slide(tab, last)
    check_view(tab, deck, name, last)


def test_presses_while_a_slide_opens_are_kept(deck_url, tab):
    """A press made as soon as the slide shows (its run still drawing) moves it; two quick presses move two."""
    name = "rope"
    tab.goto(f"{deck_url}/?deck={name}&slide=13", timeout=TIMEOUT_MS)
    tab.get_by_text("Slide 13 of").first.wait_for(timeout=TIMEOUT_MS)
    tab.keyboard.press("PageDown")  # no wait for the run to end
    on_slide(tab, 14)
    tab.keyboard.press("PageDown")
    tab.keyboard.press("PageDown")
    on_slide(tab, 16)
    tab.keyboard.press("PageUp")
    on_slide(tab, 15)


def test_building_editing_downloading_and_presenting_a_deck(deck_url, tab, tmp_path):
    tab.goto(f"{deck_url}/alibi?heads=4", timeout=TIMEOUT_MS)
    tab.wait_for_function(IDLE, timeout=TIMEOUT_MS)
    tab.get_by_role("button", name="Add this view to the deck").click()
    tab.wait_for_function(IDLE, timeout=TIMEOUT_MS)
    tab.locator('[data-testid="stSidebarNavLink"]').filter(has_text=page_of("skew").title).click()
    tab.wait_for_function("() => location.pathname.endsWith('/skew')", timeout=TIMEOUT_MS)
    tab.wait_for_function(IDLE, timeout=TIMEOUT_MS)
    tab.get_by_role("button", name="Add this view to the deck").click()
    tab.get_by_text("Your deck: 2 steps").click()  # open the deck's expander
    tab.wait_for_function(IDLE, timeout=TIMEOUT_MS)

    sidebar = tab.locator('[data-testid="stSidebar"]')
    title = sidebar.get_by_label("Title", exact=True)
    title.fill("The skew, by hand")
    title.press("Enter")
    steps_are(sidebar, [page_of("alibi").title, "The skew, by hand"])
    notes = sidebar.get_by_label("Notes (Markdown)")
    notes.fill("**Point** at the diagonal.")
    notes.press("Control+Enter")
    tab.wait_for_function(IDLE, timeout=TIMEOUT_MS)
    sidebar.get_by_role("button", name="Up", exact=True).click()
    steps_are(sidebar, ["The skew, by hand", page_of("alibi").title])
    tab.wait_for_function(IDLE, timeout=TIMEOUT_MS)

    with tab.expect_download() as download:
        sidebar.get_by_role("button", name="Download the deck (TOML)").click()
    path = tmp_path / "deck.toml"
    download.value.save_as(path)
    deck = model.loads(path.read_bytes())
    assert deck.problems == ()
    assert [s.title for s in deck.steps] == ["The skew, by hand", page_of("alibi").title]
    assert deck.steps[0].page == "skew" and deck.steps[0].notes == "**Point** at the diagonal."
    assert deck.steps[1].page == "alibi" and deck.steps[1].params == (("heads", "4"),)

    sidebar.get_by_role("button", name="Present this deck").click()
    on_slide(tab, 1)
    value = parse_qs(urlparse(tab.url).query)["deck"][0]
    assert model.from_link_value(value) == deck  # the link carries the deck whole
    check_view(tab, deck, value, 1)
    tab.keyboard.press("PageDown")
    on_slide(tab, 2)
    check_view(tab, deck, value, 2)


def test_another_window_follows_the_presenter(deck_url, tab):
    name = "rope"
    deck = model.from_link_value(name)
    tab.goto(f"{deck_url}/?deck={name}&slide=3", timeout=TIMEOUT_MS)
    on_slide(tab, 3)
    tab.get_by_text("Notes and a second window").click()
    tab.get_by_role("button", name="Open a room").click()
    tab.wait_for_function("() => new URLSearchParams(location.search).has('room')", timeout=TIMEOUT_MS)
    link = tab.get_by_role("link", name="notes window")
    link.wait_for(timeout=TIMEOUT_MS)
    notes = tab.context.new_page()
    notes.goto(link.get_attribute("href"), timeout=TIMEOUT_MS)
    notes.wait_for_function(IDLE, timeout=TIMEOUT_MS)
    notes.get_by_role("heading", name=deck.step(3).title).wait_for(timeout=TIMEOUT_MS)
    assert notes.locator(".js-plotly-plot").count() == 0  # the notes, no figure
    notes.wait_for_function(IDLE, timeout=TIMEOUT_MS)
    notes.get_by_role("button", name="Next").wait_for(timeout=TIMEOUT_MS)
    notes.keyboard.press("PageDown")  # the clicker in the notes window ...
    notes.get_by_role("heading", name=deck.step(4).title).wait_for(timeout=TIMEOUT_MS)
    on_slide(tab, 4)  # ... moves the presenter's window too
    check_view(tab, deck, name, 4)
    assert re.search(r"[?&]room=", tab.url)

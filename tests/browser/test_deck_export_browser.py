"""A deck exported as one HTML file (python -m posviz.deck export), opened from a file:// URL with the
network off in Chromium: figures drawn and interactive, the clicker's keys, the blank screen, a
presenter window that follows and leads, and a print of one page per slide."""

from __future__ import annotations

import re

import pytest

from posviz.deck.export import build
from posviz.deck.slides import slides_of
from posviz.ui.deck import model

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DECK = {
    "title": "Exported <deck>",
    "step": [
        {"title": "ALiBi's slopes", "link": "/alibi?heads=12", "notes": "**Geometric**: `2^(-8h/n)`."},
        {"title": "Home", "link": "/", "notes": "No figure here."},
        {"title": "T5's buckets", "link": "/t5?q_len=32&k_len=32&step=4#2-the-bucket-pipeline-step-by-step"},
    ],
}
CURRENT = ".slide.current"


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    deck = model.from_data(DECK)
    path = tmp_path_factory.mktemp("export") / "deck.html"
    path.write_text(build(deck.title, slides_of(deck)), encoding="utf-8")
    return path


@pytest.fixture
def offline(browser):
    """A window with the network off: any request that is not for the file itself is refused and kept."""
    context = browser.new_context(viewport={"width": 1280, "height": 720}, offline=True)
    asked: list[str] = []
    context.route(re.compile(r"^(?!file:).*"), lambda route: (asked.append(route.request.url), route.abort()))
    errors: list[str] = []
    context.on("weberror", lambda e: errors.append(str(e.error)))
    yield context
    assert not asked, asked
    assert not errors, errors
    context.close()


def at_slide(page, n: int, of: int = 3) -> None:
    page.wait_for_function("n => location.hash === '#' + n", arg=n)
    page.wait_for_function(
        "([n, of]) => document.querySelector('.slide.current .slide-count')?.textContent === `${n} / ${of}`",
        arg=[n, of],
    )


def test_the_file_walks_with_the_clicker_and_draws_each_figure(exported, offline):
    page = offline.new_page()
    page.goto(exported.as_uri())
    page.wait_for_selector(f"{CURRENT} .main-svg")
    assert page.locator(f"{CURRENT} h1").inner_text() == "ALiBi's slopes"
    assert page.locator(f"{CURRENT} .gtitle").first.text_content().startswith("Slopes of 12 heads")
    page.wait_for_function("() => parseFloat(document.querySelector('.progress').style.width) > 33")
    # Interactive: hovering a point shows its value, as in the app.
    box = page.locator(f"{CURRENT} .nsewdrag").first.bounding_box()
    page.mouse.move(box["x"] + 2, box["y"] + 2)
    for dx in range(0, int(box["width"]), 6):
        page.mouse.move(box["x"] + dx, box["y"] + box["height"] * 0.1)
        if page.locator(f"{CURRENT} .hoverlayer .hovertext").count():
            break
    assert page.locator(f"{CURRENT} .hoverlayer .hovertext").count()
    page.keyboard.press("PageDown")
    at_slide(page, 2)
    assert page.locator(f"{CURRENT} .no-figure").count() == 1
    page.keyboard.press("Space")
    at_slide(page, 3)
    page.wait_for_selector(f"{CURRENT} .main-svg")
    assert "step 4" in page.locator(f"{CURRENT} .gtitle").first.text_content().lower()
    page.keyboard.press("ArrowRight")  # the last slide: stays
    at_slide(page, 3)
    page.keyboard.press("PageUp")
    at_slide(page, 2)
    page.keyboard.press("ArrowLeft")
    at_slide(page, 1)
    for key in ("b", "."):
        page.keyboard.press(key)
        assert page.locator("#blank").is_visible()
        page.keyboard.press(key)
        assert not page.locator("#blank").is_visible()


def test_a_presenter_window_follows_and_leads(exported, offline):
    page = offline.new_page()
    page.goto(exported.as_uri())
    page.wait_for_selector(f"{CURRENT} .main-svg")
    with page.expect_popup() as popup:
        page.keyboard.press("p")
    notes = popup.value
    notes.wait_for_selector(".presenter-view")
    notes.wait_for_function("() => document.querySelector('.presenter-view h1').textContent === \"ALiBi's slopes\"")
    assert "<strong>Geometric</strong>" in notes.locator(".presenter-view .notes").inner_html()
    assert notes.locator(".next h2").inner_text() == "Next: Home"
    page.keyboard.press("PageDown")  # the projected window leads ...
    notes.wait_for_function("() => document.querySelector('.presenter-view h1').textContent === 'Home'")
    notes.wait_for_selector(".next .main-svg")  # ... the next slide's figure, in the presenter window
    notes.keyboard.press("PageDown")  # ... and the presenter window leads
    at_slide(page, 3)
    notes.keyboard.press("b")
    page.wait_for_function("() => !document.getElementById('blank').hidden")


def test_print_gives_one_page_per_slide(exported, offline):
    page = offline.new_page()
    page.goto(exported.as_uri())
    page.wait_for_selector(f"{CURRENT} .main-svg")
    page.emulate_media(media="print")
    page.wait_for_function("() => document.documentElement.dataset.print === 'ready'")
    assert page.locator(".slide .main-svg").count() >= 2  # every slide's figure drawn for the page
    pdf = page.pdf(prefer_css_page_size=True, print_background=True)
    pages = len(re.findall(rb"/Type\s*/Page\b", pdf))
    assert pages == len(DECK["step"]), pages

"""The language switch in a real Chromium: the view stays (link keys, walk-through step, figures), only the
language changes; the browser's own language chooses when the link says nothing."""

from __future__ import annotations

import re

import pytest
from test_app_browser import CHART, SIDEBAR, open_page, query, wait_idle

pytestmark = pytest.mark.browser

CJK = re.compile(r"[\u4e00-\u9fff]")
T5_CHARTS = 6
FIGURE_TITLES_JS = "() => [...document.querySelectorAll('.js-plotly-plot')].map(e => e._fullLayout.title.text || '')"
FIGURE_DATA_JS = (
    "() => [...document.querySelectorAll('.js-plotly-plot')].map(e => JSON.stringify(e.data.map(t => t.z || t.y)))"
)


def _switch(page, code: str) -> None:
    """Click the sidebar's language radio option ``code`` ("en" or "zh")."""
    page.locator(SIDEBAR).locator('[data-testid="stRadio"]').filter(has_text="语言").get_by_text(
        code, exact=True
    ).click()


def _wait_language(page, zh: bool) -> None:
    page.wait_for_function(
        "zh => { const h = document.querySelector('h1'); return h && /[\\u4e00-\\u9fff]/.test(h.textContent) === zh; }",
        arg=zh,
        timeout=90_000,
    )
    wait_idle(page)


def test_switching_language_keeps_the_view(app_url, page, page_events):
    open_page(page, f"{app_url}/t5?num_buckets=16&q_len=64&k_len=64&step=3", charts=T5_CHARTS)
    before = query(page)
    titles_en = page.evaluate(FIGURE_TITLES_JS)
    data_en = page.evaluate(FIGURE_DATA_JS)
    assert not any(CJK.search(t) for t in titles_en)

    _switch(page, "zh")
    _wait_language(page, zh=True)
    page.wait_for_function(
        "n => [...document.querySelectorAll('.js-plotly-plot')].filter(e => /[\\u4e00-\\u9fff]/.test("
        "e._fullLayout.title.text || '')).length >= n",
        arg=T5_CHARTS - 1,
        timeout=90_000,
    )
    after = query(page)
    assert after.pop("lang") == ["zh"]
    assert after == before, "every other link key is kept"
    assert page.locator(CHART).count() == len(titles_en)
    assert page.evaluate(FIGURE_DATA_JS) == data_en, "the same figures, in another language"

    page.reload()  # the link reopens the view in Chinese
    wait_idle(page)
    _wait_language(page, zh=True)
    assert query(page) == {**before, "lang": ["zh"]}

    _switch(page, "en")
    _wait_language(page, zh=False)
    assert query(page) == before, "English is the default: lang leaves the link"
    assert not page_events.page_errors, page_events.page_errors


def test_moving_to_another_page_keeps_the_language(app_url, page, page_events):
    open_page(page, f"{app_url}/xpos?lang=zh", charts=2)
    _wait_language(page, zh=True)
    page.locator('[data-testid="stSidebarNavLink"]').nth(2).click()
    wait_idle(page)
    _wait_language(page, zh=True)
    assert query(page).get("lang") == ["zh"]


def test_the_browser_language_chooses_when_the_link_says_nothing(app_url, browser):
    context = browser.new_context(locale="zh-CN")
    try:
        page = context.new_page()
        page.goto(f"{app_url}/xpos", timeout=90_000)
        _wait_language(page, zh=True)
        page.wait_for_function("() => location.search.includes('lang=zh')", timeout=60_000)
    finally:
        context.close()


def test_a_link_in_the_text_keeps_the_language(app_url, page, page_events):
    """A link in the prose (Streamlit opens it in a new tab) opens its page in the same language, and the
    page's own lang attribute says Chinese."""
    open_page(page, f"{app_url}/transformer_xl?lang=zh", charts=4)
    _wait_language(page, zh=True)
    page.wait_for_function("() => document.documentElement.lang === 'zh-CN'", timeout=60_000)
    with page.expect_popup() as opened:
        page.locator('[data-testid="stMarkdownContainer"] a[href^="/skew"]').first.click()
    other = opened.value
    other.wait_for_load_state()
    wait_idle(other)
    _wait_language(other, zh=True)
    assert query(other).get("lang") == ["zh"] and query(other).get("variant") == ["rel_shift"]

"""Every Streamlit DOM hook the front-end files rely on (posviz/ui/front/HOOKS.md) is in a real page.

A Streamlit upgrade that renames a ``data-testid``, drops a state attribute or changes the
``st-key-<key>`` class fails here by name, instead of silently unstyling lecture mode or leaving
the reconnect guard deaf.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_front import listed_hooks  # noqa: E402

pytestmark = pytest.mark.browser
TIMEOUT_MS = 60_000


def selector(hook: str) -> str:
    """The CSS selector that finds ``hook`` in the page."""
    if hook.startswith("data-testid="):
        return f"[{hook}]"
    if hook.startswith(("data-test-", "data-stale")):
        return f"[{hook}]"
    if hook.startswith("st-key-"):  # a family of keys (``st-key-fig_<name>``) or one key's class
        return f'[class*="{hook}"]' if hook.endswith("_") else f".{hook}"
    if hook.startswith("--"):
        return f'[style*="{hook}"]'
    raise ValueError(hook)


def by_link() -> dict[str, list[str]]:
    links: dict[str, list[str]] = {}
    for hook, (_, link) in listed_hooks().items():
        links.setdefault(link, []).append(hook)
    return links


def _idle(page) -> None:
    page.wait_for_function(
        "() => { const a = document.querySelector('[data-testid=\"stApp\"]');"
        " return a && a.getAttribute('data-test-script-state') === 'notRunning'; }",
        timeout=TIMEOUT_MS,
    )


@pytest.mark.parametrize("link", sorted(by_link()))
def test_each_hook_is_in_the_page_its_list_names(app_url, page, link):
    page.goto(f"{app_url}{link}")
    _idle(page)
    hooks = by_link()[link]
    if 'data-testid="stCode"' in hooks:  # a code block is drawn when its expander opens
        page.get_by_text("PyTorch code").first.click()
    missing = []
    for hook in hooks:
        try:
            page.wait_for_selector(selector(hook), state="attached", timeout=TIMEOUT_MS)
        except Exception:  # Playwright's TimeoutError: name every missing hook, not the first only
            missing.append(hook)
    assert not missing, f"Streamlit no longer draws these hooks at {link}: {missing}"

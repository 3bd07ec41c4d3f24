"""Fixtures for the real-browser tests: a live ``streamlit run`` server and headless Chromium.

Browser policy: with ``POSVIZ_REQUIRE_BROWSER=1`` (set in CI) a missing Chromium, a
missing Playwright package or a failed launch FAILS the tests; otherwise they skip.
Playwright never downloads a browser here: Debian's ``/usr/bin/chromium`` is used.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tools import procs  # the tools' server: one way to start, wait for and stop streamlit
from tools.browser import CHROMIUM_ARGS  # one launch list for the tools and the tests

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
CHROMIUM = Path(os.environ.get("POSVIZ_CHROMIUM", "/usr/bin/chromium"))  # override only to test the policy
HEALTH_TIMEOUT_S = 60.0  # the torch import makes the first start slow
VIEWPORT = {"width": 1400, "height": 1000}
WARMUP_TIMEOUT_MS = 90_000


def browser_required() -> bool:
    return os.environ.get("POSVIZ_REQUIRE_BROWSER") == "1"


def unavailable(reason: str) -> None:
    """Fail under ``POSVIZ_REQUIRE_BROWSER=1``, skip otherwise."""
    if browser_required():
        pytest.fail(f"POSVIZ_REQUIRE_BROWSER=1 but the browser tests cannot run: {reason}", pytrace=False)
    pytest.skip(f"browser tests skipped: {reason} (set POSVIZ_REQUIRE_BROWSER=1 to make this an error)")


def _tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "<no log>"


@dataclass
class Server:
    """A running ``streamlit run app.py``: its base URL and its log (stdout and stderr)."""

    url: str
    port: int
    process: subprocess.Popen
    log: Path


@contextlib.contextmanager
def streamlit_server(
    name: str = "streamlit", script: str = "app.py", env: dict[str, str] | None = None, port: int | None = None
) -> Iterator[Server]:
    """Start ``streamlit run <script>`` (app.py; serve.py is the container's) on ``port`` (a free one by
    default), wait for health.

    The server is :mod:`tools.procs`'s, the one the measuring tools start; a server that exits or does not
    answer in time fails the test with the end of its log.
    """
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    port = port or procs.free_port()
    log = ARTIFACTS / f"{name}.log"
    process = procs.start_server(
        port,
        log_path=log,
        extra_args=["--browser.gatherUsageStats=false"],
        env={"PYTHONUNBUFFERED": "1", **(env or {})},
        script=script,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        try:
            procs.wait_healthy(url, HEALTH_TIMEOUT_S, process)
        except RuntimeError as err:
            pytest.fail(f"streamlit: {err}; its log ({log}):\n{_tail(log)}", pytrace=False)
        yield Server(url=url, port=port, process=process, log=log)
    finally:
        procs.stop_server(process)


@pytest.fixture(scope="session")
def browser():
    """Headless Debian Chromium driven by Playwright's sync API (never a downloaded browser)."""
    if not CHROMIUM.exists():
        unavailable(f"{CHROMIUM} is missing")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as err:
        unavailable(f"the playwright package is not importable ({err})")
    problem = None
    try:
        playwright = sync_playwright().start()
    except Exception as err:  # the driver itself may be broken
        problem = f"Playwright did not start: {_first_line(err)}"
    if problem:
        unavailable(problem)
    try:
        try:
            chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        except Exception as err:
            problem = f"Playwright could not launch {CHROMIUM}: {_first_line(err)}"
        if problem:
            unavailable(problem)
        try:
            yield chromium
        finally:
            chromium.close()
    finally:
        playwright.stop()


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


@dataclass
class PageEvents:
    """What a page did that a test may want to assert against."""

    dialogs: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)


def _new_page(browser, events: PageEvents):
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(30_000)
    page = context.new_page()

    def on_dialog(dialog) -> None:
        events.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on("pageerror", lambda err: events.page_errors.append(str(err)))
    return context, page


@pytest.fixture(scope="module")
def app_url(browser) -> Iterator[str]:
    """Base URL of a module-wide server, warmed up by one visit to ``/``.

    The warm-up pays the first run's cost (torch import) once, outside any test's
    timeouts, and leaves Streamlit out of its legacy ``pages/``-folder mode
    (``app.py`` sits next to a folder named ``pages/``), so later tests do not
    depend on their order. A deep link as the very first visit of a fresh server
    has its own test (``fresh_server_url``).
    """
    with streamlit_server() as server:
        context, page = _new_page(browser, PageEvents())
        try:
            page.goto(f"{server.url}/", timeout=WARMUP_TIMEOUT_MS)
            page.wait_for_function(
                "() => { const a = document.querySelector('[data-testid=\"stApp\"]');"
                " return a && a.getAttribute('data-test-script-state') === 'notRunning'"
                " && document.querySelector('[data-testid=\"stSidebarNavLink\"]') !== null; }",
                timeout=WARMUP_TIMEOUT_MS,
            )
        finally:
            context.close()
        yield server.url


@pytest.fixture
def fresh_server_url(browser) -> Iterator[str]:
    """Base URL of a server of its own that no browser has visited yet."""
    with streamlit_server("streamlit-fresh") as server:
        yield server.url


@pytest.fixture
def page_events() -> PageEvents:
    return PageEvents()


@pytest.fixture
def page(browser, page_events):
    """A fresh browser context and page per test; dialogs are recorded and dismissed."""
    context, page = _new_page(browser, page_events)
    try:
        yield page
    finally:
        context.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS

"""A class opening one link at once on a freshly started process: every first visit runs through ``app.py``.

Until some run has called ``st.navigation``, Streamlit 1.67 treats the top-level
``pages/`` folder as a legacy multipage app and runs a deep link's page script on
its own (no shared sidebar, no Lecture toggle, a navigation of raw file names).
``posviz.ui.streamlit_private.ensure_app_entry`` sends every such run back through
``app.py``. This test opens deep links concurrently on a new server, several rounds,
and checks each visit's last run: the app's own navigation and the Lecture toggle.
The container's entry, ``serve.py``, switches the legacy runner off when the server
starts: there, no first run stops early for a rerun (a bounce would drop a click on
a fragment's button made in that moment).
"""

from __future__ import annotations

import asyncio

import pytest

from posviz.schemes import PAGES
from tools.procs import own_server, run_async
from tools.session import Session

DEEP_LINKS = ("t5", "rope?base=500000", "skew?step=3", "shaw", "models", "sinusoidal")
ROUNDS = 3


async def _first_visits(url: str) -> list[tuple[str, list[str], bool, int]]:
    async def visit(index: int, link: str) -> tuple[str, list[str], bool, int]:
        page, _, query = link.partition("?")
        session = Session(url, page, query, index=index, seed=0, keys=None, rerun_timeout=180)
        async with session.connected():
            await session.open()
        return link, session.app_pages, session.widget("lecture") is not None, session.bounces

    return await asyncio.gather(*(visit(i, link) for i, link in enumerate(DEEP_LINKS)))


@pytest.mark.slow
@pytest.mark.parametrize("round_", range(ROUNDS))
def test_concurrent_first_visits_on_a_new_process_run_through_app_py(round_: int) -> None:
    app_pages = sorted(p.key for p in PAGES)
    with own_server(timeout=180) as (url, _):
        visits = run_async(_first_visits(url))
    for link, pages, lecture, _ in visits:
        assert lecture, f"/{link}: no Lecture toggle, so the page ran without app.py"
        assert sorted(pages) == app_pages, f"/{link}: navigation {pages} is not the app's"


@pytest.mark.slow
def test_the_container_entry_never_bounces_a_first_visit() -> None:
    app_pages = sorted(p.key for p in PAGES)
    with own_server(timeout=180, script="serve.py") as (url, _):
        visits = run_async(_first_visits(url))
    for link, pages, lecture, bounces in visits:
        assert lecture and sorted(pages) == app_pages, f"/{link}: ran without app.py"
        assert bounces == 0, f"/{link}: {bounces} run(s) stopped early for a rerun"

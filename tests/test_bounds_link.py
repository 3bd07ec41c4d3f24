"""A control whose bounds move under a kept value, on a real server, as a browser drives it.

On ``/cope`` the key ``j`` is bounded by the query ``i`` and defaults to ``i // 2``. Opened at
32 tokens (``i = 31``, ``j = 15``), moving ``i`` to 20 and then to 14 showed Streamlit's
``StreamlitValueAboveMaxError`` ("The value 15 is greater than the max_value 14") in place of
the page: a keyed slider whose ``max_value`` changed is a new widget to Streamlit, which took
the value kept under its key, or the link's, over session state. A class of 40 on ``/cope``
met it 2 times (cd839cf: 1). Now ``j`` stays where it was while it fits (15 under ``i = 20``),
is clamped when it does not (14 under ``i = 14``), and stays there when ``i`` moves back up
(``posviz.ui.controls`` and ``posviz.ui.streamlit_private.seed_link``).
"""

from __future__ import annotations

import pytest

from tools.procs import own_server, run_async
from tools.session import Session


async def _move_query_under_a_kept_key(url: str) -> tuple[Session, list]:
    session = Session(url, "cope", "", index=0, seed=0, keys=None, rerun_timeout=180)
    shown = []
    async with session.connected():
        await session.open()
        for query in (20.0, 14.0, 20.0):
            await session.set_value(session.widget("query"), [query])
            key = session.widget("key")
            shown.append(key and key.value)
    return session, shown


@pytest.mark.slow
def test_a_kept_value_outside_its_moved_bounds_is_clamped_not_raised() -> None:
    with own_server(timeout=180) as (url, _):
        session, shown = run_async(_move_query_under_a_kept_key(url))
    assert session.result.exceptions == [], session.result.exceptions
    assert shown == [[15.0], [14.0], [14.0]], shown

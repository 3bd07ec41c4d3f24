"""The load test, short: 10 sessions x 2 control changes on /t5 against a server it starts itself.

The full measurement (50 sessions x 5 changes, 1 vs N processes behind nginx) is
``python -m posviz.loadtest`` and ``deploy/scale_out.py``; numbers in the README.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from posviz import loadtest
from posviz.loadtest import Widget, changed_value, percentile, with_param


@pytest.fixture(scope="module")
def short_run() -> dict:
    with loadtest.own_server(timeout=180) as (url, process):
        return asyncio.run(
            loadtest.load(
                url,
                page="t5",
                sessions=10,
                changes=2,
                think=0.3,
                ramp=1.0,
                timeout=420,
                rerun_timeout=180,
                settle=1.0,
                pids=[process.pid],
            )
        )


def test_every_session_finishes_without_errors_or_exceptions(short_run: dict) -> None:
    assert short_run["errors"] == 0, short_run["error_samples"]
    assert short_run["finished"] == 10
    assert short_run["exceptions"] == 0, short_run["exception_samples"]
    assert short_run["rerun_s"]["count"] == 20  # every change was a completed rerun
    assert short_run["open_s"]["count"] == 10


def test_the_runs_drew_the_page_and_used_its_controls(short_run: dict) -> None:
    # A rerun that only drew the sidebar (a wrong page hash, say) would finish without charts.
    assert short_run["full_runs_without_charts"] == 0
    assert short_run["charts_per_full_run"]["p50"] >= 5
    assert sum(short_run["controls_changed"].values()) == 20
    assert "lecture" not in short_run["controls_changed"]
    assert short_run["rss_mb"]["peak"] >= short_run["rss_mb"]["before"] > 0


def test_bounds_are_enforced() -> None:
    with pytest.raises(ValueError, match="sessions must be"):
        asyncio.run(loadtest.load("http://127.0.0.1:9", sessions=loadtest.MAX_SESSIONS + 1))


def test_changes_stay_in_range_and_differ() -> None:
    rng = random.Random(0)
    w = Widget(id="$$ID-x-q_len", key="q_len", kind="number", value=1.0, lo=1.0, hi=4.0, step=1.0)
    for _ in range(200):
        new = changed_value(w, rng)
        assert 1.0 <= new <= 4.0 and new != w.value
        w.value = new
    radio = Widget(id="r", key="align", kind="radio", value="start", options=("start", "end"))
    assert changed_value(radio, rng) == "end"
    slider = Widget(id="s", key="step", kind="slider", value=[5.0], lo=1.0, hi=5.0, step=1.0)
    assert 1.0 <= changed_value(slider, rng)[0] < 5.0


def test_link_rewrite_and_percentile() -> None:
    assert with_param("q_len=16&align=end", "q_len", "32") == "align=end&q_len=32"
    assert with_param("q_len=16&align=end", "q_len", None) == "align=end"
    assert Widget(id="a", key="k", kind="number", value=32.0).link_text() == "32"
    assert Widget(id="a", key="k", kind="slider", value=[0.25]).link_text() == "0.25"
    assert Widget(id="a", key="k", kind="toggle", value=False).link_text() == "false"
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.0
    assert percentile(list(map(float, range(1, 101))), 95) == 95.0
    assert percentile([], 95) is None

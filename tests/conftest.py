"""Which tests are ``slow``: ``pytest -m "not slow"`` is the quick run, plain ``pytest`` (CI) runs all.

Slow, in one place: every browser test (a real Chromium against a live server), the
load test (ten real sessions against a server it starts), the benchmark's quick run, and
the fuzzing of every page through AppTest with hypothesis-generated links.
"""

from __future__ import annotations

import os

import pytest

# No test may reach the internet: a model id in a link (a fuzzed one too) makes /models ask the Hub. By default the
# Hub is a closed port on this machine (refused at once); tests of the Hub path point HF_ENDPOINT at a local server
# (tests/data/local_hub.py). HF_HUB_OFFLINE is not used here: huggingface_hub reads it once, at import.
os.environ.setdefault("HF_ENDPOINT", "http://127.0.0.1:9")

SLOW_FIXTURES = {"short_run"}  # the load test's server and sessions
SLOW_FILES = {"test_fuzz.py"}  # every page through AppTest, hypothesis-generated links
SLOW_TESTS = {"test_quick_bench_structure_and_chart_size"}  # the benchmark, every page at three lengths


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        if (
            item.get_closest_marker("browser") is not None
            or SLOW_FIXTURES & set(getattr(item, "fixturenames", ()))
            or item.path.name in SLOW_FILES
            or item.originalname in SLOW_TESTS
        ):
            item.add_marker(pytest.mark.slow)

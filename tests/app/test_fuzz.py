"""URL fuzzing across every page: random keys and values never break a page.

Whatever a link carries (unknown keys, huge numbers, unicode, markup, repeated
keys), the page runs without an exception, shows no markup from the link, and
draws its charts unless it explains with a rule error why the combination
cannot be computed.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posviz.schemes import PAGES as REGISTERED

from .conftest import all_url_keys, charts, errors, open_page, warnings

PAGES = [p.path for p in REGISTERED]
KEYS = all_url_keys()
NASTY = [
    "",
    " ",
    "-0",
    "1e309",
    "-1e309",
    "9" * 400,
    "nan",
    "inf",
    "0x10",
    "1_000",
    "３",  # a full-width digit
    "1.0000000001",
    "<script>alert(1)</script>",
    "**bold** [link](http://example.com) $x$",
    "\u202e\u0000\ufeff",
    "😀" * 50,
    "true",
    "END",
]
values = st.one_of(
    st.sampled_from(NASTY),
    st.integers(-(10**30), 10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=60),
)
keys = st.one_of(st.sampled_from(KEYS), st.text(min_size=1, max_size=12))
links = st.dictionaries(keys, st.one_of(values, st.lists(values, min_size=2, max_size=3)), max_size=6)


def test_every_page_is_fuzzed():
    assert len(PAGES) >= 6 and "pages/t5.py" in PAGES


def assert_survives(page: str, params: dict) -> None:
    at = open_page(page, **params)
    assert not at.exception, (page, params, [e.value for e in at.exception])
    for text in warnings(at) + errors(at):
        assert "<script>" not in text and "](http" not in text, text
    if page != "pages/home.py":
        assert charts(at) or errors(at), (page, params)


@pytest.mark.parametrize("page", PAGES)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(params=links)
def test_random_links(page, params):
    assert_survives(page, params)


@pytest.mark.parametrize("page", PAGES)
def test_every_key_with_every_nasty_value(page):
    # One link per nasty value, carrying it in every key at once.
    for value in NASTY:
        assert_survives(page, dict.fromkeys(KEYS, value))

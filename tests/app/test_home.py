"""AppTest: the home page (why attention needs position) and the shared sidebar."""

from __future__ import annotations

import pytest

from .conftest import assert_healthy, open_page, value_of, warnings


@pytest.fixture(scope="module")
def home():
    return open_page()


def _metric(at, starts_with: str) -> float:
    found = [m for m in at.metric if m.label.startswith(starts_with)]
    assert len(found) == 1, [m.label for m in at.metric]
    return float(found[0].value.split()[0])  # "0 (float rounding)" reads as 0


def test_home_renders_without_exception(home):
    assert_healthy(home)
    assert home.title and "position" in home.title[0].value
    assert len(home.dataframe) >= 2  # the permutation table and the scheme map


def test_permutation_demo_needs_position(home):
    # Without a position term, self-attention is permutation-equivariant: each word's output is
    # the same in "dog bites man" and "man bites dog" up to float rounding.
    without = _metric(home, "Largest change, no position term")
    with_bias = _metric(home, "... with a T5 relative bias")
    assert without == pytest.approx(0.0, abs=1e-5)
    assert with_bias > 1e-2


def test_page_link_to_t5(home):
    links = home.get("page_link")
    assert any(link.proto.page == "t5" for link in links), [link.proto for link in links]
    t5 = next(link for link in links if link.proto.page == "t5")
    assert "T5" in t5.proto.label


def test_sidebar_has_lecture_toggle(home):
    toggles = [t.key for t in home.sidebar.get("toggle")]
    assert toggles[0] == "lecture", toggles  # first in the shared sidebar, above the deck's controls
    assert value_of(home, "lecture") is False


@pytest.mark.parametrize(
    ("raw", "on", "notice"),
    [("1", True, False), ("true", True, False), ("off", False, False), ("maybe", False, True)],
)
def test_lecture_link_on_home(raw, on, notice):
    at = open_page(lecture=raw)
    assert_healthy(at)
    assert value_of(at, "lecture") is on
    assert any("lecture=" in w for w in warnings(at)) is notice, warnings(at)

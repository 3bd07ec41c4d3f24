"""AppTest: the home page (why attention needs position) and the shared sidebar."""

from __future__ import annotations

import pytest

from posviz.schemes import SCHEMES

from .conftest import assert_healthy, open_page, tables, value_of, warnings


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
    assert not home.dataframe  # read-only tables are static HTML (posviz.ui.tables), no data grid
    demo, schemes = tables(home)  # the permutation table and the scheme map
    assert list(schemes["scheme"]) == [s.title for s in SCHEMES] and list(schemes["how"]) == [s.how for s in SCHEMES]
    assert list(demo["word"]) == ["dog", "bites", "man"] * 2
    assert list(demo["position term"]) == ["none"] * 3 + ["T5 bias"] * 3


def _vector(text: str) -> list[float]:
    return [float(v) for v in text.split(", ")]


def test_permutation_table_shows_each_words_output_in_both_orders(home):
    demo = tables(home)[0]
    before, after = "output in 'dog bites man'", "output in 'man bites dog'"
    for _, row in demo.iterrows():
        a, b = _vector(row[before]), _vector(row[after])
        assert len(a) == len(b) == 4
        largest = max(abs(x - y) for x, y in zip(a, b, strict=True))  # of the 3-decimal texts: within 1e-3
        if row["position term"] == "none":
            assert a == b and row["largest change"] == "0 (float rounding)", row.to_dict()
        else:
            assert float(row["largest change"]) == pytest.approx(largest, abs=1.5e-3), row.to_dict()
    with_bias = demo[demo["position term"] == "T5 bias"]
    assert max(float(c) for c in with_bias["largest change"]) == _metric(home, "... with a T5 relative bias")


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
    assert toggles[0] == "lecture" and set(toggles) <= {"lecture", "deck_ed_open_file"}, (
        toggles
    )  # and the deck editor's
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


def _home_at(url: str, **params: str | list[str]):
    from streamlit.testing.v1 import AppTest

    from .conftest import APP, TIMEOUT

    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.context["url"] = url  # the address the browser reports (without its query string)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def test_an_unknown_page_opens_home_with_a_notice():
    at = _home_at("http://localhost:8501/nosuchpage", x="1")
    assert_healthy(at)
    assert "position" in at.title[0].value  # home
    notices = [w for w in warnings(at) if "no page" in w]
    assert len(notices) == 1 and "/nosuchpage" in notices[0] and "sidebar" in notices[0], warnings(at)


def test_home_itself_has_no_page_notice():
    for url in ("http://localhost:8501", "http://localhost:8501/"):
        assert not [w for w in warnings(_home_at(url)) if "no page" in w]


def test_an_unknown_page_is_quoted_safely():
    at = _home_at("http://localhost:8501/%3Cscript%3Ealert(1)%3C%2Fscript%3E")
    notice = next(w for w in warnings(at) if "no page" in w)
    assert "<script>" not in notice.replace("\\<script\\>", "")


def test_a_repeated_key_says_which_value_was_used():
    at = open_page(lecture=["true", "false"])
    assert_healthy(at)
    assert value_of(at, "lecture") is False
    notice = next(w for w in warnings(at) if "lecture" in w)
    assert "appears 2 times" in notice and "last one" in notice, notice
    assert at.query_params.get("lecture") is None  # the address bar: the value used (off, the default)

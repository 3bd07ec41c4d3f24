"""The language reaches every path a text takes: cached figures, wrapped titles, snippet comments, decks."""

from __future__ import annotations

import re

import pytest

from posviz.figures import xpos
from posviz.figures.layout import wrap
from posviz.i18n import _, use
from posviz.ui.cache import chart
from posviz.ui.code import translated_comments
from posviz.ui.deck.model import loads
from posviz.ui.language import browser_language

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_a_cached_figure_is_keyed_by_the_language():
    args = dict(dim=16, scale_base=512.0, seq_len=64, lecture=False)
    english = chart(xpos.decay, **args)
    with use("zh"):
        chinese = chart(xpos.decay, **args)
        again = chart(xpos.decay, **args)
    assert again is chinese and chinese is not english
    assert CJK.search(chinese.spec["layout"]["title"]["text"])
    assert not CJK.search(english.spec["layout"]["title"]["text"])
    assert chart(xpos.decay, **args) is english
    assert chinese.csv() == english.csv(), "CSV headers stay English: data files are read by code"


def test_wrapping_counts_a_chinese_character_as_two_narrow_ones():
    english = "RoPE rotates each pair of dimensions by an angle that grows with the position; pairs turn apart."
    assert wrap(english, size=16, width=300) == (
        "RoPE rotates each pair of dimensions<br>by an angle that grows with the<br>position; pairs turn apart."
    )
    chinese = "旋转位置编码把每一对维度按位置旋转一个角度，角度随位置线性增长；不同的维度对转得快慢不同。"
    lines = wrap(chinese, size=16, width=300).split("<br>")
    assert len(lines) > 1 and "".join(lines) == chinese
    budget = int(300 / (0.5 * 16))
    assert all(2 * len(line) <= budget + 2 for line in lines), lines  # a wide character counts twice
    assert not any(line.startswith(("，", "。", "；")) for line in lines)


def test_snippet_comments_are_translated_and_the_code_is_not():
    code = "q_pos = shown(q_len, 1) + offset  # query positions i\nx = '# query positions i'\n"
    with use("zh"):
        out = translated_comments(code)
    assert out.splitlines()[0] == "q_pos = shown(q_len, 1) + offset  # " + _zh("query positions i")
    assert out.splitlines()[1] == code.splitlines()[1], "a # inside a string is code"
    assert translated_comments(code) == code


def _zh(text: str) -> str:
    with use("zh"):
        return _(text)


@pytest.mark.parametrize(
    ("locale", "lang"),
    [("zh-CN", "zh"), ("zh_TW", "zh"), ("zh-Hans-SG", "zh"), ("en-GB", "en"), ("fr", None), ("", None)],
)
def test_the_browser_language(locale, lang):
    assert browser_language(locale) == lang


def test_a_deck_may_set_its_language_and_a_wrong_one_is_a_notice():
    deck = loads('title = "t"\nlang = "zh"\n[[step]]\ntitle = "a"\nlink = "/t5"\n')
    assert deck.lang == "zh" and not deck.problems
    wrong = loads('title = "t"\nlang = "tlh"\n[[step]]\ntitle = "a"\nlink = "/t5"\n')
    assert wrong.lang == "" and "tlh" in wrong.problems[0]
    with use("zh"):
        assert CJK.search(loads('title = "t"\nlang = "tlh"\n').problems[0])


def test_every_fragment_of_a_page_is_drawn_in_the_language():
    """A fragment's own rerun skips app.py (where a run's language is chosen): pages make theirs with
    posviz.ui.language.fragment, which chooses it first."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for path in sorted((root / "pages").glob("*.py")):
        assert "st.fragment" not in path.read_text(encoding="utf-8"), f"{path.name}: use posviz.ui.language.fragment"

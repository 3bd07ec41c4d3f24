"""AppTest: every page in Chinese (``lang=zh``) with no English sentence left, and in English without it."""

from __future__ import annotations

import re

import pytest

from posviz.i18n import LANGUAGES
from posviz.schemes import PAGES
from tests.i18n_texts import english_left, page_texts

from .conftest import assert_healthy, open_page

CJK = re.compile(r"[\u4e00-\u9fff]")
PAGE_FILES = {p.key: p.path for p in PAGES}


def english_in(at) -> list[str]:
    return [f"{where}: {run!r} in {text[:80]!r}" for where, text in page_texts(at) for run in english_left(text)]


@pytest.mark.slow
@pytest.mark.parametrize("page", list(PAGE_FILES), ids=lambda key: key or "home")
def test_every_page_reads_in_chinese(page):
    at = open_page(PAGE_FILES[page], lang="zh")
    assert_healthy(at)
    assert CJK.search(at.title[0].value), at.title[0].value
    left = english_in(at)
    assert not left, f"/{page}: {len(left)} English texts left:\n" + "\n".join(left[:30])


@pytest.mark.parametrize("page", ["xpos"])
def test_a_page_reads_in_english_without_lang(page):
    at = open_page(PAGE_FILES[page])
    assert_healthy(at)
    # The language switch names each language in itself ("Language · 语言", "简体中文"): never translated.
    texts = [text for _where, text in page_texts(at) if "语言" not in text and text not in LANGUAGES.values()]
    assert not [t for t in texts if CJK.search(t)], "Chinese on an English page"


def test_a_wrong_lang_reads_as_english_with_a_notice():
    at = open_page(PAGE_FILES["xpos"], lang="klingon")
    assert not at.exception
    assert not CJK.search(at.title[0].value)
    assert any("lang" in w.value for w in at.warning), [w.value for w in at.warning]

"""Static tables: markdown written by posviz.ui.tables, read back by an independent parser."""

from __future__ import annotations

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from posviz.ui.tables import markdown_table
from tests.markdown_tables import cells, read_tables


def test_a_frame_comes_back_with_its_index_under_its_name():
    frame = pd.DataFrame(
        {"token": ["The", "|x*", "$a$", "<script>", ":smile:"], "gate": [0.5, 0.25, 1.0, 0.0, 0.125]},
        index=pd.RangeIndex(5, name="j"),
    )
    (back,) = read_tables(markdown_table(frame))
    assert list(back.columns) == ["j", "token", "gate"]
    assert list(back["j"]) == ["0", "1", "2", "3", "4"]
    assert list(back["token"]) == ["The", "|x*", "$a$", "<script>", ":smile:"]
    assert [float(g) for g in back["gate"]] == [0.5, 0.25, 1.0, 0.0, 0.125]


def test_numbers_align_right_and_text_left():
    text = markdown_table(
        {"id": ["t", "h"], "pairs": [16, 24], "wave": [6.3, 198.7], "ok": [True, False]}, hide_index=True
    )
    assert cells(text.splitlines()[1]) == [":---", "---:", "---:", ":---"]


def test_every_markup_character_is_escaped():
    text = markdown_table({"a": ["*b* _c_ `d` [e](f) <g> | $h$ # i"]}, hide_index=True)
    body = text.splitlines()[2]
    for ch in "*_`[]()<>$#":
        assert f"\\{ch}" in body, ch
    assert body.count("|") == 3  # the two outer separators and the escaped one


@given(
    st.lists(st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=12), min_size=1, max_size=6)
)
def test_any_text_comes_back_as_written(texts):
    (back,) = read_tables(markdown_table({"text": texts}, hide_index=True))
    assert list(back["text"]) == [t.strip() for t in texts]

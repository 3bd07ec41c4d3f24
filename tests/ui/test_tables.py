"""Static tables: HTML written by posviz.ui.tables, read back by an independent parser."""

from __future__ import annotations

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from posviz.ui.tables import html_table
from tests.html_tables import parse_tables, read_tables


def test_a_frame_comes_back_with_its_index_under_its_name():
    frame = pd.DataFrame(
        {"token": ["The", "|x*", "$a$", "<script>alert(1)</script>", "&amp;"], "gate": [0.5, 0.25, 1.0, 0.0, 0.125]},
        index=pd.RangeIndex(5, name="j"),
    )
    (back,) = read_tables(html_table(frame, label="tokens"))
    assert list(back.columns) == ["j", "token", "gate"]
    assert list(back["j"]) == ["0", "1", "2", "3", "4"]
    assert list(back["token"]) == ["The", "|x*", "$a$", "<script>alert(1)</script>", "&amp;"]
    assert [float(g) for g in back["gate"]] == [0.5, 0.25, 1.0, 0.0, 0.125]


def test_the_markup_holds_no_tag_from_the_data():
    text = html_table({'<b onload="x">': ["<img src=x onerror=alert(1)>"]}, label='<i>"label"</i>', hide_index=True)
    assert "<b" not in text and "<img" not in text and "<i>" not in text


def test_numbers_align_right_and_text_left():
    columns = {"id": ["t", "h"], "pairs": [16, 24], "wave": [6.3, 198.7], "ok": [True, False]}
    (table,) = parse_tables(html_table(columns, label="axes", hide_index=True))
    assert table["numeric"] == [False, True, True, False]


def test_a_tall_table_is_a_focusable_labelled_region_with_a_height():
    (table,) = parse_tables(html_table({"a": list(range(40))}, label="forty rows", hide_index=True, height=300))
    region = table["region"]
    assert region["tabindex"] == "0" and region["role"] == "region" and region["aria-label"] == "forty rows"
    assert region["style"] == "max-height: 300px"
    (short,) = parse_tables(html_table({"a": [1]}, label="one row", hide_index=True))
    assert "style" not in short["region"]


LINE_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@given(st.lists(LINE_TEXT, min_size=1, max_size=6))
def test_any_text_comes_back_as_written(texts):
    (back,) = read_tables(html_table({"text": texts}, label="t", hide_index=True))
    assert list(back["text"]) == texts

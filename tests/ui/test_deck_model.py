"""Deck files: parsing, limits, hostile input, the TOML writer and the deck carried in a link."""

from __future__ import annotations

import base64
import json
import tomllib
import zlib

from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.ui.deck import model
from posviz.ui.deck.links import page_params, step_values
from posviz.ui.deck.model import MAX_FILE_BYTES, MAX_NOTICES, MAX_STEPS, Deck, Step

GOOD = """
title = "A small deck"

[[step]]
title = "Buckets"
link = "/t5?num_buckets=16&bidirectional=false#3-bucket-index-of-every-pair"
notes = \"\"\"
**Ask** the room: where do the buckets get wider?
\"\"\"

[[step]]
title = "RoPE"
link = "https://posviz.example/rope?base=500000"
"""


def test_a_good_deck_reads_as_written():
    deck = model.loads(GOOD)
    assert deck.problems == ()
    assert deck.title == "A small deck"
    first, second = deck.steps
    assert (first.page, first.params, first.anchor) == (
        "t5",
        (("num_buckets", "16"), ("bidirectional", "false")),
        "3-bucket-index-of-every-pair",
    )
    assert first.notes == "**Ask** the room: where do the buckets get wider?\n"
    assert first.link == "/t5?num_buckets=16&bidirectional=false#3-bucket-index-of-every-pair"
    assert (second.page, second.params, second.problems) == ("rope", (("base", "500000"),), ())


def test_json_reads_like_toml():
    assert model.loads(json.dumps(model.to_data(model.loads(GOOD))), name="x.JSON") == model.loads(GOOD)


def test_a_bad_step_keeps_its_place_and_the_rest_works():
    deck = model.loads(
        """
title = "t"
[[step]]
title = "fine"
link = "/shaw?clip=4"
[[step]]
title = "nowhere"
link = "/nosuchpage?x=1&x=2#bad anchor!"
[[step]]
link = "/t5?deck=other&slide=9&q_len=40"
colour = "red"
"""
    )
    fine, nowhere, third = deck.steps
    assert fine.problems == () and fine.params == (("clip", "4"),)
    assert nowhere.page == ""  # opens the home page
    assert any("/nosuchpage, which is not a posviz page" in p for p in nowhere.problems)
    assert any("gives x twice" in p for p in nowhere.problems)
    assert any("anchor" in p for p in nowhere.problems) and nowhere.anchor == ""
    assert third.title == "Step 3" and third.params == (("q_len", "40"),)  # the deck's own keys are dropped
    assert any("colour" in p for p in deck.problems)


def test_step_values_give_the_same_notices_as_a_link():
    step = Step("x", "t5", (("num_buckets", "abc"), ("q_len", "40"), ("clip", "3"), ("zzz", "1")))
    values, notices = step_values(step)
    assert values == {"num_buckets": 32, "q_len": 40}
    assert notices[0] == "num_buckets=abc in the link is not a whole number; using 32 instead."
    assert "not a setting of this page" in notices[1] and "not a setting of any posviz page" in notices[2]


def test_a_setting_the_page_does_not_draw_is_a_notice():
    step = Step("x", "rope", (("method", "linear"), ("beta_fast", "16"), ("factor", "2")))
    values, notices = step_values(step)
    assert values == {"method": "linear", "factor": 2.0}
    assert notices == [
        "beta_fast=16 in the link is not used with the page's other settings (it belongs to another choice); "
        "it is ignored."
    ]


def test_page_params_know_each_pages_keys():
    assert {"num_buckets", "show_bias", "lecture", "step"} <= set(page_params("t5"))
    assert page_params("rope")["seq_len"].default == 16384  # the page's own default
    assert "num_buckets" not in page_params("rope")


def test_limits():
    many = "title='m'\n" + "[[step]]\nlink='/t5'\n" * (MAX_STEPS + 5)
    deck = model.loads(many)
    assert len(deck.steps) == MAX_STEPS and any("only its first" in p for p in deck.problems)
    assert model.loads("x" * (MAX_FILE_BYTES + 1)).problems[0].startswith("The deck file is larger")
    long_notes = model.loads(f"[[step]]\nlink='/'\nnotes='{'n' * 5000}'\n")
    assert len(long_notes.steps[0].notes) == model.MAX_NOTES
    noisy = model.loads("".join(f"[[step]]\nlink='/x{i}'\nbad{i}=1\n" for i in range(30)))
    assert len(noisy.problems) == MAX_NOTICES


def test_hostile_files_become_notices():
    for text in ("[[step]", "step = 3", "step = [1, 'a']", "title = 5\n[[step]]\ntitle = []", b"\xff\xfe", "[]"):
        deck = model.loads(text)
        assert deck.problems or any(s.problems for s in deck.steps), text
    assert model.loads("[1,2]", name="d.json").problems[0].startswith("The deck is not a table")
    deep = "[" * 5000 + "]" * 5000
    assert model.loads(deep, name="d.json").problems  # Python's recursion limit, not a crash


def test_text_is_cleaned_and_markup_in_notices_is_escaped():
    deck = model.loads('title = "a\\u0000b\\u202e"\n[[step]]\nlink = "/<script>alert(1)</script>"\n')
    assert deck.title == "ab"
    problem = deck.steps[0].problems[0]
    assert "\\>" in problem and ">" not in problem.replace("\\>", "")  # every markup character escaped


def test_the_link_forms():
    assert model.parse_link("?seq_len=8")[:2] == ("", (("seq_len", "8"),))
    assert model.parse_link("skew?seq_len=8")[0] == "skew"
    assert model.parse_link("http://host/base/path/alibi/")[0] == "alibi"
    assert model.parse_link("http://[::1")[3]  # urlsplit refuses it: a notice, the home page


def test_every_shipped_step_opens_without_a_notice():
    for name in model.shipped_names():
        deck = model.from_link_value(name)
        assert deck.problems == () and 10 <= len(deck.steps) <= 20, name
        for n, step in enumerate(deck.steps, start=1):
            values, notices = step_values(step)
            assert not step.problems and not notices, (name, n, step.problems, notices)
            assert len(values) == len(step.params) and step.notes.strip(), (name, n)
        assert model.dumps(deck) and model.loads(model.dumps(deck)) == deck


def test_shipped_and_unknown_names():
    assert {"relative", "rope", "models"} <= set(model.shipped_names())
    deck = model.from_link_value("../etc/passwd")
    assert deck.steps == () and "is not one of the decks" in deck.problems[0]


def test_inline_decks_round_trip_and_refuse_bombs():
    deck = model.loads(GOOD)
    value = model.encode(deck)
    assert value.startswith("z.") and model.from_link_value(value) == deck
    assert "damaged" in model.decode(value[:-8]).problems[0]
    assert "damaged" in model.decode("z.!!!").problems[0]
    bomb = "z." + base64.urlsafe_b64encode(zlib.compress(b" " * (MAX_FILE_BYTES * 50), 9)).decode()
    assert "larger than" in model.decode(bomb).problems[0]
    assert "longer than" in model.decode("z." + "A" * model.MAX_INLINE).problems[0]


texts = st.text(st.characters(codec="utf-8"), max_size=300)


@settings(max_examples=150, deadline=None)
@given(title=texts, notes=texts, step_title=texts)
def test_the_toml_writer_round_trips_any_text(title, notes, step_title):
    deck = model.from_data({"title": title, "step": [{"title": step_title, "link": "/t5?q_len=4", "notes": notes}]})
    text = model.dumps(deck)
    tomllib.loads(text)  # valid TOML
    assert model.loads(text) == deck
    assert model.from_link_value(model.encode(deck)) == deck


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400) | st.text(max_size=400))
def test_no_file_makes_the_parser_raise(data):
    deck = model.loads(data)
    assert isinstance(deck, Deck)
    model.loads(data, name="d.json")
    model.decode("z." + (data if isinstance(data, str) else data.hex()))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["title", "step", "x"]), json_values | st.lists(json_values), max_size=3))
def test_any_structure_gives_a_deck(data):
    deck = model.from_data(data)
    assert all(isinstance(s, Step) and s.title for s in deck.steps)

"""Parsing URL query values: hostile text falls back to a valid value with a safe notice."""

from __future__ import annotations

import math
import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posviz.ui.params import MAX_LEN, Param, parse, quote_raw
from tests.registry import all_params

PARAMS = all_params()  # the shared keys and every scheme's own

NUMERIC = [p for p in PARAMS.values() if p.kind in ("int", "float")]
NOTICE_LIMIT = 400

HOSTILE = [
    "abc",
    "-3",
    "1e99",
    "-1e99",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "Infinity",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "**bold** [link](javascript:alert(1)) `code` $x$",
    "ünïcødé ✓ 日本語",
    "\u202eevil",
    "\x00\x1b[31m\n\r\t",
    "",
    "   ",
    "9" * 10_000,
    "<" * 5000,
    "1" + "0" * 400,
    "0x10",
    "1,5",
    "True",
    "[1]",
]


def unescaped(notice: str) -> str:
    """The notice with every markdown backslash escape ``\\X`` removed, read left to right."""
    return re.sub(r"\\.", "", notice, flags=re.DOTALL)


def assert_valid(param: Param, value, *, lo=None, hi=None) -> None:
    lo = param.min if lo is None else lo
    hi = param.max if hi is None else hi
    if param.kind == "bool":
        assert isinstance(value, bool)
    elif param.kind == "choice":
        assert value in param.options
    elif param.kind == "text":
        assert isinstance(value, str)
        assert len(value) <= param.max
        assert all(ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf", "Cs") for ch in value)
    elif param.kind == "int":
        assert isinstance(value, int)
        assert not isinstance(value, bool)
        assert lo <= value <= hi
    else:
        assert isinstance(value, float)
        assert math.isfinite(value)
        assert lo <= value <= hi
        if param.step:
            steps = (value - lo) / param.step
            assert abs(steps - round(steps)) < 1e-6  # on the slider's grid


def assert_safe_notice(notice: str) -> None:
    assert len(notice) <= NOTICE_LIMIT
    bare = unescaped(notice)
    assert "<" not in bare
    assert ">" not in bare
    assert "`" not in bare
    assert "\n" not in notice
    assert "\r" not in notice
    assert "\x00" not in notice


# --- hostile values ----------------------------------------------------------------------------------


@pytest.mark.parametrize("key", list(PARAMS))
@pytest.mark.parametrize("raw", HOSTILE)
def test_hostile_values_fall_back_with_a_safe_notice(key, raw):
    param = PARAMS[key]
    value, notice = parse(param, raw)
    assert_valid(param, value)
    if notice is None:
        # taken as is: only when the text really is a valid value (e.g. "True" for a toggle, "-3" for scale)
        assert param.kind in ("bool", "float", "text") or raw.strip().lstrip("-").isdigit()
    else:
        assert_safe_notice(notice)
        assert f"{key}=" in notice


@pytest.mark.parametrize("raw", ["abc", "nan", "inf", "", "<script>alert(1)</script>"])
def test_malformed_int_uses_the_default(raw):
    value, notice = parse(PARAMS["q_len"], raw)
    assert value == PARAMS["q_len"].default == 128
    assert notice is not None
    assert "using 128 instead" in notice


@pytest.mark.parametrize(
    ("key", "raw", "want"),
    [("q_len", "1e99", MAX_LEN), ("q_len", "-3", 1), ("heads", "0", 1), ("heads", "99", 64), ("scale", "9", 4.0)],
)
def test_out_of_range_lands_on_the_nearest_bound(key, raw, want):
    value, notice = parse(PARAMS[key], raw)
    assert value == want
    assert "allowed" in notice and f"using {want:g}" in notice


def test_a_repeated_key_uses_its_last_value_and_says_so():
    value, notice = parse(PARAMS["q_len"], ["8", "16"])
    assert value == 16
    assert "q_len appears 2 times" in notice and "(8, 16)" in notice and "q_len=16" in notice
    value, notice = parse(PARAMS["q_len"], ["8", "abc"])
    assert value == 128 and "appears 2 times" in notice and "not a whole number" in notice
    assert parse(PARAMS["q_len"], ["8"]) == (8, None)


def test_script_tag_is_escaped_in_the_notice():
    _, notice = parse(PARAMS["num_buckets"], "<script>alert(1)</script>")
    assert "\\<script\\>" in notice
    assert "<script>" not in notice


def test_very_long_text_is_cut_in_the_notice():
    _, notice = parse(PARAMS["seed"], "x" * 100_000)
    assert len(notice) <= NOTICE_LIMIT
    assert "x" * 40 in notice
    assert "x" * 41 not in notice


def test_notices_say_why():
    assert "not a whole number" in parse(PARAMS["heads"], "abc")[1]
    assert "not a number" in parse(PARAMS["scale"], "abc")[1]
    assert "not a finite number" in parse(PARAMS["scale"], "nan")[1]
    assert "below the smallest allowed, 1" in parse(PARAMS["q_len"], "-3")[1]
    assert f"above the largest allowed, {MAX_LEN}" in parse(PARAMS["k_len"], "1e99")[1]
    assert "not on or off" in parse(PARAMS["bidirectional"], "maybe")[1]
    assert "not one of start, end" in parse(PARAMS["align"], "middle")[1]


# --- valid values ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "raw", "want"),
    [
        ("q_len", "1", 1),
        ("q_len", "131072", 131072),
        ("k_len", " 512 ", 512),
        ("num_buckets", "32", 32),
        ("max_distance", "128", 128),
        ("heads", "64", 64),
        ("head", "0", 0),
        ("seed", str(2**31 - 1), 2**31 - 1),
        ("scale", "0.35", 0.35),
        ("scale", "-4", -4.0),
        ("scale", "4", 4.0),
        ("scale", "-3", -3.0),
        ("align", "end", "end"),
        ("align", "END", "end"),
        ("align", " Start ", "start"),
    ],
)
def test_valid_values_have_no_notice(key, raw, want):
    value, notice = parse(PARAMS[key], raw)
    assert notice is None
    assert value == want
    assert type(value) is type(want)


@pytest.mark.parametrize(
    ("raw", "want"),
    [("true", True), ("TRUE", True), ("1", True), ("on", True), ("false", False), ("0", False), ("False", False)],
)
def test_bool_words(raw, want):
    for key in ("bidirectional", "lecture"):
        value, notice = parse(PARAMS[key], raw)
        assert value is want
        assert notice is None


@pytest.mark.parametrize("raw", ["2", "-1", "truthy", "", "yes please"])
def test_bool_refuses_other_words(raw):
    value, notice = parse(PARAMS["bidirectional"], raw)
    assert value is True  # the default
    assert "not on or off" in notice


def test_scale_snaps_to_the_step():
    value, notice = parse(PARAMS["scale"], "0.33")
    assert value == pytest.approx(0.35)
    assert "step 0.05" in notice
    assert "using 0.35" in notice


def test_scale_at_the_top_does_not_snap_above_the_maximum():
    value, _ = parse(PARAMS["scale"], "3.999")
    assert value == pytest.approx(4.0)
    assert value <= 4.0


def test_float_noise_off_the_grid_lands_on_it_without_a_notice():
    """1e-9 is within float noise of 0 (step 0.001): the value is 0.0, not 1e-9 kept off the grid."""
    value, notice = parse(PARAMS["mscale"], "1e-09")
    assert value == 0.0
    assert notice is None
    value, notice = parse(PARAMS["scale"], "0.35000000001")
    assert value == 0.35
    assert notice is None


def test_int_with_a_fraction_is_rounded_with_a_notice():
    value, notice = parse(PARAMS["heads"], "3.4")
    assert value == 3
    assert isinstance(value, int)
    assert "not a whole number" in notice


def test_tighter_bounds_from_other_settings():
    # the head shown must be below the number of heads
    value, notice = parse(PARAMS["head"], "7", max_value=3)
    assert value == 3  # the nearest bound
    assert "above the largest allowed, 3" in notice
    assert parse(PARAMS["head"], "3", max_value=3) == (3, None)


def test_default_is_clamped_into_tighter_bounds():
    value, notice = parse(PARAMS["q_len"], "abc", max_value=64)
    assert value == 64
    assert "using 64 instead" in notice


def test_quote_raw_escapes_markdown_and_html():
    assert quote_raw("<b>") == "\\<b\\>"
    assert quote_raw("a\nb") == "a?b"
    assert quote_raw("y" * 50) == "y" * 40 + "\\.\\.\\."


# --- every parameter, any text ---------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(list(PARAMS)), st.text(max_size=300))
def test_any_text_gives_a_valid_value(key, raw):
    param = PARAMS[key]
    value, notice = parse(param, raw)
    assert_valid(param, value)
    if notice is not None:
        assert_safe_notice(notice)


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from([p.key for p in NUMERIC]),
    st.one_of(
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.integers(-(2**40), 2**40).map(str),
        st.floats(-10, 10).map(lambda x: f"{x:.3f}"),
        st.from_regex(r"\A[-+]?[0-9]{0,8}(\.[0-9]{0,4})?([eE][-+]?[0-9]{1,3})?\Z"),
    ),
)
def test_numeric_text_gives_a_valid_value(key, raw):
    param = PARAMS[key]
    value, notice = parse(param, raw)
    assert_valid(param, value)
    if notice is None:
        assert value == pytest.approx(float(raw), rel=0, abs=1e-9)  # taken unchanged (up to snapping noise)
    else:
        assert_safe_notice(notice)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 64), st.text(max_size=20) | st.integers(-100, 100).map(str))
def test_head_within_tighter_bounds(heads, raw):
    value, notice = parse(PARAMS["head"], raw, max_value=heads - 1)
    assert isinstance(value, int)
    assert 0 <= value <= heads - 1
    if notice is not None:
        assert_safe_notice(notice)


def test_a_number_too_large_for_a_float_is_out_of_range_not_infinite():
    value, notice = parse(PARAMS["q_len"], "9" * 500)
    assert value == MAX_LEN
    assert "above the largest allowed" in notice
    value, notice = parse(PARAMS["q_len"], "-" + "9" * 500)
    assert value == 1 and "below the smallest allowed" in notice
    assert "not a finite number" in parse(PARAMS["q_len"], "-inf")[1]


# --- free text (the CoPE page's text) ------------------------------------------------------------------


def test_text_is_kept_as_typed():
    text = "<b>bold</b> **x** [a](javascript:alert(1)) ünï ✓\n\tnext line"
    assert parse(PARAMS["text"], text) == (text, None)


@pytest.mark.parametrize("raw", ["a\x00b", "\x1b[31mred", "\u202eevil", "a\u200bb", "x\x7fy"])
def test_text_control_characters_are_removed_with_a_notice(raw):
    value, notice = parse(PARAMS["text"], raw)
    assert all(ch.isprintable() for ch in value)
    assert "control characters" in notice and "text=" in notice
    assert_safe_notice(notice)


def test_text_line_breaks_are_normalised_silently():
    assert parse(PARAMS["text"], "a\r\nb\rc") == ("a\nb\nc", None)


def test_long_text_is_cut_with_a_notice():
    limit = int(PARAMS["text"].max)
    value, notice = parse(PARAMS["text"], "<" * (limit + 500))
    assert value == "<" * limit
    assert f"longer than the {limit} characters allowed" in notice
    assert_safe_notice(notice)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=400))
def test_any_text_parses_to_clean_text(raw):
    value, notice = parse(PARAMS["text"], raw)
    assert_valid(PARAMS["text"], value)
    if notice is not None:
        assert_safe_notice(notice)

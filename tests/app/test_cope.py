"""AppTest: the CoPE page with every gate mode, empty and very long text, and hostile links."""

from __future__ import annotations

import numpy as np
import pytest
import streamlit as st

from posviz.encodings.tokens import tokenize
from posviz.figures import cope, cope_query
from posviz.figures.cope import COPE_MAX_TOKENS
from posviz.ui.cope.settings import COPE_MAX_CHARS, COPE_TEXT, CopeSettings
from posviz.ui.settings import params_of

from .conftest import (
    array,
    assert_healthy,
    change,
    chart,
    charts,
    count_calls,
    errors,
    has_widget,
    heatmap_z,
    open_code,
    open_cope,
    tables,
    value_of,
    warnings,
    widget,
)

MAX_CHART_CHARS = 1_200_000
PARAMS = params_of(CopeSettings)
N_DEFAULT = len(tokenize(COPE_TEXT))
FIGURES = ("cope_gates", "cope_positions", "cope_interpolation", "cope_position_logits", "cope_attention")
FIGURES += ("cope_counting",)


@pytest.fixture(scope="module")
def cope_default():
    return open_cope()


# --- the default view ----------------------------------------------------------------------------


def test_defaults_render(cope_default):
    at = cope_default
    assert_healthy(at)
    assert {c.key.removeprefix("fig_") for c in charts(at)} == set(FIGURES)
    for key in ("mode", "npos_max", "dim", "seed", "temperature", "mask_after", "text"):
        assert value_of(at, key) == PARAMS[key].default, key
    assert value_of(at, "query") == N_DEFAULT - 1  # the last token
    assert value_of(at, "key") == (N_DEFAULT - 1) // 2
    assert any(f"{N_DEFAULT} tokens. The page reads up to {COPE_MAX_CHARS}" in c.value for c in at.caption)
    assert at.title[0].value.startswith("CoPE")


def test_the_text_box_help_states_the_limits():
    """The help is one catalogue text, its numbers written out: they are the page's limits."""
    help_text = PARAMS["text"].help
    assert f"at most {COPE_MAX_CHARS} characters and {COPE_MAX_TOKENS} tokens" in help_text, help_text


def test_tokens_are_shown(cope_default):
    (frame,) = [t for t in tables(cope_default) if "token" in t.columns]
    assert list(frame["token"]) == tokenize(COPE_TEXT)


def test_default_pair_has_a_fractional_position_between_two_different_embeddings(cope_default):
    """At defaults the interpolation section interpolates: p_ij is not a whole number, and the two
    integer positions around it give different logits z_i[floor] != z_i[ceil]."""
    (row,) = [t for t in tables(cope_default) if "p_ij" in t.columns]
    p, floor, ceil, w = (float(row[c].iloc[0]) for c in ("p_ij", "floor", "ceil", "w"))
    assert p != int(p) and floor == np.floor(p) and ceil == floor + 1 and 0.05 < w < 0.95
    z_floor, z_ceil, value = (float(row[c].iloc[0]) for c in ("z_i[floor]", "z_i[ceil]", "z_i[p_ij]"))
    assert abs(z_ceil - z_floor) > 0.1  # two different embeddings e[floor] and e[ceil]
    assert value == pytest.approx(w * z_ceil + (1 - w) * z_floor, abs=1e-5)
    assert min(z_floor, z_ceil) < value < max(z_floor, z_ceil)  # strictly between: an interpolation
    c = chart(cope_default, "cope_interpolation")
    marks = c.spec["data"][1]  # the two integer positions, drawn as squares
    assert list(array(marks["x"])) == [floor, ceil]
    assert not any("whole number" in cap.value for cap in cope_default.caption)


def test_count_sentences_gates_fire_on_sentence_ends():
    at = open_cope(mode="count-sentences")
    assert_healthy(at)
    assert any("whole number" in cap.value for cap in at.caption)  # gates 0/1: an integer position, said so
    c = chart(at, "cope_gates")
    z, x = heatmap_z(c), array(c.spec["data"][0]["x"])
    tokens = tokenize(COPE_TEXT)
    ends = np.array([t in ".!?" for t in tokens])
    last = z[-1]  # the last query sees every key
    np.testing.assert_array_equal(last, ends[x].astype(float))


def test_exports(cope_default):
    buttons = cope_default.get("download_button")
    assert len(buttons) == len(charts(cope_default))
    codes = [e.code[0].value for e in open_code(cope_default).expander if e.label == "PyTorch code"]
    assert len(codes) == len(buttons)
    assert all("flip(-1).cumsum(dim=-1).flip(-1)" in code for code in codes)


def test_every_chart_has_titles_and_png_export(cope_default):
    for c in charts(cope_default):
        assert c.title.strip(), c.key
        assert c.config["toImageButtonOptions"]["scale"] == 2
        assert c.size < MAX_CHART_CHARS


# --- every control --------------------------------------------------------------------------------


def test_count_tokens_is_relative():
    at = change(open_cope(), "mode", "count-tokens")
    c = chart(at, "cope_positions")
    z, x, y = heatmap_z(c), array(c.spec["data"][0]["x"]), array(c.spec["data"][0]["y"])
    i, j = np.meshgrid(y, x, indexing="ij")
    causal = j <= i
    np.testing.assert_array_equal(z[causal], np.minimum(i - j + 1, 15)[causal])
    assert np.isnan(z[~causal]).all()  # drawn as masked
    assert [t.get("name") for t in c.spec["data"][1:]].count("clamped at 15") == 1  # the clamp markers
    assert any("relative position encoding" in i.value for i in at.info)


def test_random_mode_and_temperature():
    at = change(open_cope(), "mode", "random")
    before = heatmap_z(chart(at, "cope_gates"))
    finite = before[~np.isnan(before)]
    assert ((finite > 0) & (finite < 1)).all()
    change(at, "temperature", 2.0)
    after = heatmap_z(chart(at, "cope_gates"))
    assert not np.allclose(np.nan_to_num(before), np.nan_to_num(after))
    assert "/ 2)" in chart(at, "cope_gates").subtitle


def test_custom_mode_has_a_gate_table():
    at = change(open_cope(), "mode", "custom")
    editors = [d for d in at.dataframe if d.proto.editing_mode != 0]
    assert len(editors) == 1
    table = editors[0].value
    assert list(table["token"]) == tokenize(COPE_TEXT)
    words = np.array([t[0].isalnum() for t in tokenize(COPE_TEXT)], dtype=float)
    np.testing.assert_array_equal(table["gate"].to_numpy(), words)
    z = heatmap_z(chart(at, "cope_gates"))
    np.testing.assert_array_equal(z[-1], words)


def test_npos_max_clamps():
    at = change(open_cope(), "npos_max", 3)
    z = heatmap_z(chart(at, "cope_positions"))
    assert np.nanmax(z) == 2
    assert chart(at, "cope_positions").spec["data"][0]["zmax"] == 2


def test_query_and_key():
    at = change(open_cope(), "mode", "random")
    change(at, "query", 10)
    assert widget(at, "key").max == 10
    change(at, "key", 4)
    assert chart(at, "cope_interpolation").title.startswith("Query i = 10, key j = 4")
    bars = chart(at, "cope_counting").spec["data"][0]
    assert list(array(bars["x"])) == list(range(10, -1, -1))  # distances i - j for j = 0 .. i


def test_dim_and_seed_change_the_toy(cope_default):
    for key, value in (("dim", 8), ("seed", 5)):
        at = change(open_cope(mode="random"), key, value)
        z = heatmap_z(chart(at, "cope_position_logits"))
        assert not np.allclose(np.nan_to_num(z), np.nan_to_num(heatmap_z(chart(cope_default, "cope_position_logits"))))


def test_mask_after_shows_the_leak():
    at = change(open_cope(mode="random"), "mask_after", True)
    assert {"fig_cope_pitfall", "fig_cope_pitfall_difference"} <= {c.key for c in charts(at)}
    diff = heatmap_z(chart(at, "cope_pitfall_difference"))
    finite = diff[~np.isnan(diff)]
    assert (finite >= -1e-5).all() and finite.max() > 0.5
    assert any("has no future gates" in w for w in warnings(at))  # the last token: nothing to leak
    change(at, "query", 5)
    assert any("future keys' gates sum to" in w for w in warnings(at))


def test_lecture_mode():
    at = open_cope(lecture="1")
    assert_healthy(at)
    assert {c.spec["layout"]["font"]["size"] for c in charts(at)} == {20}


# --- text: empty, long, hostile ---------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_text_says_what_to_do(text):
    at = open_cope(text=text)
    assert not at.exception
    assert any("no tokens" in e for e in errors(at)), errors(at)
    assert not charts(at)


def test_text_typed_into_the_box():
    at = open_cope()
    widget(at, "text").set_value("One. Two three. Four!").run()
    assert_healthy(at)
    assert value_of(at, "query") == 6
    assert list(array(chart(at, "cope_gates").spec["data"][0]["x"])) == list(range(7))


def test_very_long_text_reads_4096_tokens_and_shows_a_sample():
    long_text = ("The cat sat. " * 2000)[:COPE_MAX_CHARS]  # 20000 characters, about 6000 tokens
    at = open_cope(text=long_text, mode="random", mask_after="1")
    assert_healthy(at)
    assert any(f"the page reads the first {COPE_MAX_TOKENS}" in w for w in warnings(at)), warnings(at)
    assert value_of(at, "query") == COPE_MAX_TOKENS - 1
    found = charts(at)
    assert len(found) == len(FIGURES) + 2
    for c in found:
        assert c.size < MAX_CHART_CHARS, (c.key, c.size)
    assert "Strided sample" in chart(at, "cope_gates").subtitle
    assert any("only those rows are computed" in c.value for c in at.caption)


def test_text_longer_than_allowed_is_cut_with_a_notice():
    at = open_cope(text="a " * COPE_MAX_CHARS)
    assert not at.exception
    assert len(value_of(at, "text")) == COPE_MAX_CHARS
    assert any("text=" in w and "longer than" in w for w in warnings(at)), warnings(at)


HOSTILE = [
    ({"text": "<script>alert(1)</script> **bold** [x](javascript:alert(1))"}, "text", None, False),
    ({"text": "a\x00b\x1b[31m c"}, "text", "ab[31m c", True),
    ({"mode": "sideways"}, "mode", "random", True),
    ({"mode": "count-sentences"}, "mode", "count-sentences", False),
    ({"mode": "RANDOM"}, "mode", "random", False),
    ({"npos_max": "abc"}, "npos_max", 16, True),
    ({"npos_max": "1e309"}, "npos_max", 4097, True),  # out of range: the nearest bound
    ({"npos_max": "0"}, "npos_max", 1, True),
    ({"temperature": "inf"}, "temperature", 8.0, True),
    ({"temperature": "0"}, "temperature", 0.5, True),
    ({"temperature": "nan"}, "temperature", 8.0, True),
    ({"dim": "3"}, "dim", 2, True),
    ({"dim": "-5"}, "dim", 2, True),
    ({"seed": "<script>"}, "seed", 0, True),
    ({"query": "999"}, "query", N_DEFAULT - 1, True),
    ({"query": "-1"}, "query", 0, True),
    ({"query": "5", "key": "9"}, "key", 5, True),  # key <= query
    ({"key": "x"}, "key", (N_DEFAULT - 1) // 2, True),
    ({"mask_after": "maybe"}, "mask_after", False, True),
]


@pytest.mark.parametrize(("params", "key", "expected", "notice"), HOSTILE, ids=lambda v: str(v)[:30])
def test_hostile_link(params, key, expected, notice):
    at = open_cope(**params)
    assert_healthy(at)
    value = value_of(at, key)
    if expected is not None:
        assert value == (pytest.approx(expected) if isinstance(expected, float) else expected)
    mentioned = [w for w in warnings(at) if f"{key}=" in w]
    assert bool(mentioned) is notice, warnings(at)
    for w in mentioned:
        assert len(w) < 300 and "<script>" not in w
    assert len(charts(at)) >= len(FIGURES)
    for md in at.markdown:  # user text never reaches markdown unescaped
        assert "<script>" not in md.value


def test_script_text_stays_text():
    at = open_cope(text="<script>alert(1)</script>")
    assert_healthy(at)
    tokens = [t for t in tables(at) if "token" in t.columns][0]["token"].tolist()
    assert tokens == ["<", "script", ">", "alert", "(", "1", ")", "<", "/", "script", ">"]
    ticks = chart(at, "cope_gates").spec["layout"]["xaxis"]["ticktext"]
    assert ticks[0] == "0 &lt;" and all("<" not in t for t in ticks)
    assert not has_widget(at, "head")


# --- the figure cache: keyed by the figures' arguments, the gate table's bytes among them ---------


def count_builds(monkeypatch) -> dict[str, int]:
    """How many times each figure of the main sections is built, from now on."""
    names = [(cope, n) for n in ("gates", "positions", "position_logits", "attention")]
    names += [(cope_query, n) for n in ("interpolation", "counting")]
    return count_calls(monkeypatch, [(module, f"{name}_figure") for module, name in names])


def test_moving_the_inspected_pair_rebuilds_only_its_figures(monkeypatch):
    counts = count_builds(monkeypatch)
    st.cache_resource.clear()
    at = open_cope(mode="random")
    assert set(counts.values()) == {1}
    change(at, "key", 3)
    assert counts == {**dict.fromkeys(counts, 1), "interpolation_figure": 2}
    change(at, "query", 10)
    assert counts == {**dict.fromkeys(counts, 1), "interpolation_figure": 3, "counting_figure": 2}
    assert chart(at, "cope_interpolation").title.startswith("Query i = 10, key j = 3")  # j stays while it fits


def test_temperature_rebuilds_nothing_outside_random_mode(monkeypatch):
    counts = count_builds(monkeypatch)
    st.cache_resource.clear()
    at = open_cope(mode="count-sentences")  # the gates do not use the temperature
    before = dict(counts)
    assert set(before.values()) == {1}
    z = heatmap_z(chart(at, "cope_gates"))
    change(at, "temperature", 2.0)
    assert counts == before
    np.testing.assert_array_equal(heatmap_z(chart(at, "cope_gates")), z)


def test_the_gate_table_is_part_of_every_figures_key():
    from posviz.ui.cache import chart as cached

    s = CopeSettings(mode="custom", npos_max=64)  # no clamp: every gate counts
    toy = dict(text=s.text, mode=s.mode, temperature=s.temperature, npos_max=s.npos_max, dim=s.dim, seed=s.seed)
    ones = np.ones(N_DEFAULT, dtype=np.float32)
    edited = ones.copy()
    edited[-2] = 0.25  # one gate edited in the table
    first = cached(cope.gates, **toy, custom=ones.tobytes())
    assert cached(cope.gates, **toy, custom=ones.tobytes()) is first  # the same table: served from the cache
    other = cached(cope.gates, **toy, custom=edited.tobytes())
    np.testing.assert_array_equal(array(first.spec["data"][0]["z"]).astype(np.float64)[-1], ones)
    np.testing.assert_array_equal(array(other.spec["data"][0]["z"]).astype(np.float64)[-1], edited)
    counting = [cached(cope_query.counting, **toy, custom=t.tobytes(), query=N_DEFAULT - 1) for t in (ones, edited)]
    bars = [array(c.spec["data"][0]["y"]) for c in counting]
    assert bars[0][0] - bars[1][0] == pytest.approx(0.75)  # p_i0 sums every gate: one counted 0.25, not 1

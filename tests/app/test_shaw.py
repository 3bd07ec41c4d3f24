"""AppTest: the Shaw page with default, changed, hostile and huge link parameters."""

from __future__ import annotations

import numpy as np
import pytest
import streamlit as st

from posviz.ui.shaw.settings import TOY_MAX_LEN, ShawSettings

from .conftest import (
    array,
    assert_healthy,
    change,
    chart,
    charts,
    count_calls,
    errors,
    has_widget,
    open_code,
    open_shaw,
    value_of,
    warnings,
)

DEFAULTS = ShawSettings()
CHARTS = ("shaw_index", "shaw_table", "shaw_R_row_", "shaw_scores", "shaw_attention", "shaw_value_term", "shaw_memory")
MAX_CHART_CHARS = 1_200_000


@pytest.fixture(scope="module")
def shaw_default():
    return open_shaw()


def assert_complete(at):
    assert_healthy(at)
    keys = [c.key for c in charts(at)]
    for name in CHARTS:
        assert any(k.startswith(f"fig_{name}") for k in keys), (name, keys)
    for c in charts(at):
        assert c.title.strip() and c.size < MAX_CHART_CHARS, (c.key, c.size)


def test_defaults_render(shaw_default):
    assert_complete(shaw_default)
    assert shaw_default.title[0].value == "Shaw relative positions"
    for key in ("q_len", "k_len", "clip", "dim", "row", "separate", "align", "seed"):
        assert value_of(shaw_default, key) == getattr(DEFAULTS, key), key
    assert has_widget(shaw_default, "lecture") and not has_widget(shaw_default, "num_buckets")


def test_index_chart_holds_the_tensor2tensor_matrix(shaw_default):
    c = chart(shaw_default, "shaw_index")
    idx = array(c.spec["data"][2]["z"])
    i, j = np.meshgrid(np.arange(DEFAULTS.q_len), np.arange(DEFAULTS.k_len), indexing="ij")
    np.testing.assert_array_equal(idx, np.clip(j - i, -DEFAULTS.clip, DEFAULTS.clip) + DEFAULTS.clip)


def test_exports(shaw_default):
    for c in charts(shaw_default):
        assert c.config["toImageButtonOptions"]["scale"] == 2
    codes = [c.value for c in open_code(shaw_default).code]
    assert any("index = rel.clamp(-clip, clip) + clip" in code for code in codes)
    assert any("R = table_k[index_all]" in code for code in codes)


@pytest.mark.parametrize(
    ("key", "value"),
    [("q_len", 20.0), ("k_len", 70.0), ("clip", 0.0), ("clip", 100.0), ("dim", 8.0), ("seed", 5.0), ("row", 3)],
)
def test_every_control(key, value):
    at = change(open_shaw(), key, value)
    assert_complete(at)


def test_separate_off_shows_one_shared_table():
    at = change(open_shaw(), "separate", False)
    c = chart(at, "shaw_table")
    assert len(c.spec["data"]) == 1 and "shared" in c.spec["layout"]["annotations"][0]["text"]


def test_align_end_moves_the_queries():
    at = change(open_shaw(k_len="40"), "align", "end")
    c = chart(at, "shaw_index")
    assert array(c.spec["data"][0]["y"])[0] == 40 - DEFAULTS.q_len


def test_row_follows_q_len():
    at = open_shaw(q_len="5", row="30")
    assert_healthy(at)
    assert value_of(at, "row") == 4 or any("row=" in w for w in warnings(at))


def test_queries_after_keys_is_a_clear_error():
    at = open_shaw(q_len="50", k_len="10", align="end")
    assert not at.exception
    assert errors(at) and not charts(at)


def test_huge_lengths_compute_only_the_rows_shown():
    at = open_shaw(q_len="131072", k_len="131072", clip="64")
    assert_complete(at)
    assert any(f"at most {TOY_MAX_LEN}" in i.value for i in at.info)
    z = array(chart(at, "shaw_index").spec["data"][2]["z"])
    assert z.shape[0] <= 128 and z.shape[1] <= 128
    assert "Strided" in chart(at, "shaw_index").subtitle


@pytest.mark.parametrize(
    ("params", "key", "expected"),
    [
        ({"clip": "-1"}, "clip", 0),  # out of range: the nearest bound
        ({"clip": "abc"}, "clip", DEFAULTS.clip),
        ({"clip": "1e309"}, "clip", 4096),
        ({"dim": "7"}, "dim", 6),
        ({"dim": "999"}, "dim", 256),
        ({"dim": "<b>x</b>"}, "dim", DEFAULTS.dim),
        ({"separate": "perhaps"}, "separate", True),
        ({"row": "-3"}, "row", 0),
        ({"q_len": "nan"}, "q_len", DEFAULTS.q_len),
        ({"align": "<script>"}, "align", "start"),
    ],
)
def test_hostile_link(params, key, expected):
    at = open_shaw(**params)
    assert_complete(at)
    assert value_of(at, key) == expected
    notes = [w for w in warnings(at) if f"{key}=" in w]
    assert notes and all("<script>" not in w and "<b>" not in w for w in notes)


def test_lecture_mode_enlarges_every_chart():
    at = open_shaw(lecture="true")
    assert_complete(at)
    assert {c.spec["layout"]["font"]["size"] for c in charts(at)} == {20}


def test_a_control_rebuilds_only_the_figures_that_depend_on_it(monkeypatch):
    from posviz.figures import shaw, shaw_toy

    lookup = ("index_figure", "table_figure", "relations_figure", "bytes_figure")
    toy = ("scores_figure", "attention_figure", "value_term_figure")
    counts = count_calls(monkeypatch, [(shaw, n) for n in lookup] + [(shaw_toy, n) for n in toy])
    st.cache_resource.clear()
    at = open_shaw(q_len="24", k_len="40")
    assert set(counts.values()) == {1}, counts
    change(at, "row", 5)  # R[i] reads only the row
    assert counts["relations_figure"] == 2 and sum(counts.values()) == len(counts) + 1, counts
    change(at, "separate", False)  # a^V: the tables and the value term, not the scores (they read a^K)
    assert counts["table_figure"] == counts["value_term_figure"] == 2, counts
    assert sum(counts.values()) == len(counts) + 3, counts


def test_zoom_window_shows_the_clipping_around_position_100000():
    at = open_shaw(q_len="131072", k_len="131072", clip="4", window="32", q_start="100000", k_start="100000")
    assert_healthy(at)
    c = chart(at, "shaw_index")
    x = array(c.spec["data"][0]["x"])
    assert list(x) == list(range(100000, 100032))  # every key of the window, at full resolution
    index = array(c.spec["data"][2]["z"])  # the third panel: clip(r, -K, K) + K
    assert index.shape == (32, 32) and index[0, 0] == 4 and index[0, 31] == 8 and index[31, 0] == 0
    assert "Window" in c.subtitle

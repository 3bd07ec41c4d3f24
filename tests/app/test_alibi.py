"""AppTest: the ALiBi page with default, changed, hostile and huge link parameters."""

from __future__ import annotations

import numpy as np
import pytest

from posviz.encodings.alibi import alibi_slopes
from posviz.encodings.positions import display_stride
from posviz.figures.alibi import GRID_POINTS

from .conftest import array, assert_healthy, chart, charts, has_widget, open_alibi, tables, value_of, warnings, widget

CHARTS = 4


@pytest.fixture(scope="module")
def default():
    return open_alibi()


def test_defaults_render(default):
    at = default
    assert_healthy(at)
    assert at.title[0].value.startswith("ALiBi")
    assert len(charts(at)) == CHARTS
    assert value_of(at, "heads") == 8 and value_of(at, "seq_len") == 512 and value_of(at, "causal") is True
    for c in charts(at):
        assert c.title.strip() and c.spec["data"] and c.size < 600_000, c.key
    assert len(tables(at)) == 1 and len(tables(at)[0]) == 8 and not at.dataframe and not at.table  # markdown


def test_table_and_legend_write_each_slope_alike(default):
    """head 5's m = 1/32 = 0.03125: 0.0312 in the legend and the table (the table once showed 0.0313)."""
    names = [t["name"] for t in chart(default, "alibi_receptive_field").spec["data"] if t["name"].startswith("head ")]
    legend = [n.split("m = ")[1].split(":")[0] for n in names]
    table = list(tables(default)[0]["slope m"])
    assert legend == table and table[4] == "0.0312" and table[0] == "0.5"


def test_slopes_chart_is_get_slopes(default):
    y = array(chart(default, "alibi_slopes").spec["data"][0]["y"])
    np.testing.assert_allclose(y, [1 / 2**h for h in range(1, 9)], rtol=1e-6)


@pytest.mark.parametrize("heads", ["1", "12", "100", "128"])
def test_any_head_count(heads):
    at = open_alibi(heads=heads)
    assert_healthy(at)
    assert value_of(at, "heads") == int(heads)
    ys = np.concatenate([array(t["y"]) for t in chart(at, "alibi_slopes").spec["data"]])
    np.testing.assert_allclose(ys, alibi_slopes(int(heads)).numpy(), rtol=1e-6)
    assert len(tables(at)[0]) == int(heads)


def test_symmetric_bias_when_not_causal():
    at = open_alibi(causal="false", seq_len="6", heads="2")
    assert_healthy(at)
    trace = chart(at, "alibi_bias").spec["data"][0]
    bias = array(trace["customdata"])[..., 1]  # the values (the colour is log10 of their magnitude)
    np.testing.assert_allclose(bias, -0.0625 * np.abs(np.subtract.outer(np.arange(6), np.arange(6))), rtol=1e-6)


@pytest.mark.parametrize(
    "key, raw",
    [("heads", "129"), ("heads", "0"), ("heads", "abc"), ("seq_len", "-5"), ("seq_len", "1e309"), ("causal", "maybe")],
)
def test_hostile_links_give_notices(key, raw):
    at = open_alibi(**{key: raw})
    assert_healthy(at)
    assert any(key in w for w in warnings(at)), warnings(at)
    assert len(charts(at)) == CHARTS


def test_longest_sequence_most_heads_stays_small():
    at = open_alibi(seq_len="131072", heads="128")
    assert_healthy(at)
    assert sum(c.size for c in charts(at)) < 2_500_000
    assert "16 of 128 heads" in chart(at, "alibi_bias").subtitle


def test_zoom_window_link_draws_every_cell_around_position_100000():
    at = open_alibi(seq_len="131072", window="32", q_start="100000", k_start="99990")
    assert_healthy(at)
    c = chart(at, "alibi_bias")
    trace = c.spec["data"][0]
    x, y = array(trace["x"]), array(trace["y"])
    assert list(y) == list(range(100000, 100032)) and list(x) == list(range(99990, 100022))  # full resolution
    assert "Window" in c.subtitle and "i = 100000…100031" in c.subtitle and "every one" in c.subtitle
    bias = array(trace["customdata"])[..., 1]  # head 1, m = 1/2: -(i - j) / 2 where j <= i, blank after
    i, j = np.meshgrid(y, x, indexing="ij")
    np.testing.assert_allclose(bias[j <= i], (-(i - j) / 2)[j <= i], rtol=1e-6)
    assert np.isnan(array(trace["z"]).astype(np.float64)[j > i]).all()
    assert value_of(at, "window") == 32 and value_of(at, "q_start") == 100000 and value_of(at, "k_start") == 99990


def test_zoom_window_wider_than_the_grid_is_strided_and_says_so():
    at = open_alibi(seq_len="131072", window="1000", q_start="5000", k_start="5000")
    assert_healthy(at)
    c = chart(at, "alibi_bias")
    y = array(c.spec["data"][0]["y"])
    stride = int(y[1] - y[0])
    assert y[0] == 5000 and y[-1] == 5999 and len(y) <= GRID_POINTS and stride == display_stride(1000, GRID_POINTS)
    assert (np.diff(y)[:-1] == stride).all() and stride > 1
    assert "Window" in c.subtitle and f"every {stride}th" in c.subtitle


def test_zoom_controls_appear_with_a_window_and_a_future_only_window_survives():
    at = open_alibi()
    assert not has_widget(at, "q_start")
    widget(at, "window").set_value(16).run()
    assert_healthy(at)
    assert has_widget(at, "q_start") and has_widget(at, "k_start")
    assert list(array(chart(at, "alibi_bias").spec["data"][0]["x"])) == list(range(16))
    at = open_alibi(window="16", q_start="0", k_start="400")  # every key after every query: all masked
    assert_healthy(at)
    assert "all masked" in chart(at, "alibi_bias").subtitle

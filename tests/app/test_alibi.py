"""AppTest: the ALiBi page with default, changed, hostile and huge link parameters."""

from __future__ import annotations

import numpy as np
import pytest

from posviz.encodings.alibi import alibi_slopes

from .conftest import array, assert_healthy, chart, charts, open_alibi, value_of, warnings

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
    assert len(at.dataframe) == 1 and len(at.dataframe[0].value) == 8


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
    assert len(at.dataframe[0].value) == int(heads)


def test_symmetric_bias_when_not_causal():
    at = open_alibi(causal="false", seq_len="6", heads="2")
    assert_healthy(at)
    bias = array(chart(at, "alibi_bias").spec["data"][0]["customdata"])[..., 1]  # z is its log colour
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

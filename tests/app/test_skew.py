"""AppTest: the skew page, every step of every variant, hostile links."""

from __future__ import annotations

import numpy as np
import pytest
import streamlit as st

from posviz.encodings.skew import VARIANTS
from posviz.figures.skew import step_titles
from posviz.ui.skew.settings import MAX_SEQ_LEN, SkewSettings

from .conftest import (
    array,
    assert_healthy,
    chart,
    charts,
    count_calls,
    has_widget,
    open_skew,
    value_of,
    warnings,
    widget,
)

DEFAULTS = SkewSettings()


def assert_complete(at):
    assert_healthy(at)
    keys = [c.key for c in charts(at)]
    assert any(k.startswith("fig_skew_") and "_step_" in k for k in keys), keys
    if value_of(at, "seq_len") <= 64:
        assert any(k.endswith("_animation") for k in keys), keys
    else:
        assert any("animation" in i.value for i in at.info)
    assert "fig_skew_memory" in keys


@pytest.fixture(scope="module")
def skew_default():
    return open_skew()


def test_defaults_render(skew_default):
    assert_complete(skew_default)
    assert value_of(skew_default, "seq_len") == DEFAULTS.seq_len == 8
    assert value_of(skew_default, "variant") == "masked"
    assert not has_widget(skew_default, "mem_len")  # only Transformer-XL has a memory
    c = chart(skew_default, "skew_masked_step_1")
    assert array(c.spec["data"][0]["z"]).shape == (8, 8)
    assert c.spec["layout"]["xaxis"]["ticktext"] == [str(r) for r in range(-7, 1)]


def test_memory_chart_compares_r_and_er(skew_default):
    c = chart(skew_default, "skew_memory")
    names = [t["name"] for t in c.spec["data"]]
    assert names[0].startswith("Shaw R") and names[1].startswith("skew Er")
    r, er = (array(t["y"]).astype(float) for t in c.spec["data"][:2])
    lengths = array(c.spec["data"][0]["x"]).astype(float)
    assert lengths.max() >= 4096
    np.testing.assert_allclose(r / er, lengths)


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_step_of_every_variant(variant):
    at = open_skew(variant=variant)
    assert_complete(at)
    titles = step_titles(variant)
    assert at.button(key="step_prev").disabled
    for step in range(1, len(titles) + 1):
        if step > 1:
            at.button(key="step_next").click().run()
        assert_healthy(at)
        assert value_of(at, "step") == step
        c = chart(at, f"skew_{variant}_step_{step}")
        assert c.title == titles[step - 1]
    assert at.button(key="step_next").disabled
    assert any("Largest |skew − gather|" in cap.value for cap in at.caption)


def test_rel_shift_memory_widens_the_keys():
    at = open_skew(variant="rel_shift", mem_len="5", step="4")
    assert_complete(at)
    assert value_of(at, "mem_len") == 5
    z = array(chart(at, "skew_rel_shift_step_4").spec["data"][0]["z"])
    assert z.shape == (8, 13)


def test_colour_by_row():
    at = open_skew(colour="row", step="2")
    assert_complete(at)
    z = array(chart(at, "skew_masked_step_2").spec["data"][0]["z"]).astype(float)
    np.testing.assert_array_equal(z[:, 1:], np.repeat(np.arange(8.0)[:, None], 8, axis=1))
    assert np.isnan(z[:, 0]).all()


def test_changing_controls():
    at = open_skew()
    for key, value in (("seq_len", 12.0), ("dim", 4.0), ("seed", 3.0), ("variant", "unmasked"), ("step", 4)):
        widget(at, key).set_value(value).run()
        assert_complete(at)
        assert value_of(at, key) == value
    z = array(chart(at, "skew_unmasked_step_4").spec["data"][0]["z"])
    assert z.shape == (12, 12)


def test_largest_length():
    at = open_skew(seq_len=str(MAX_SEQ_LEN), step="3")
    assert_complete(at)
    c = chart(at, "skew_masked_step_3")
    assert array(c.spec["data"][0]["z"]).shape == (MAX_SEQ_LEN + 1, MAX_SEQ_LEN)
    assert c.size < 2_000_000  # 512 x 513 float32 cells, base64
    assert "customdata" not in c.spec["data"][0]  # provenance hover up to L = 64 only


@pytest.mark.parametrize(
    ("params", "key", "expected"),
    [
        ({"seq_len": "513"}, "seq_len", 512),  # out of range: the nearest bound
        ({"seq_len": "0"}, "seq_len", 1),
        ({"seq_len": "1e309"}, "seq_len", 512),
        ({"dim": "3"}, "dim", 2),
        ({"variant": "<img src=x>"}, "variant", "masked"),
        ({"colour": "purple"}, "colour", "distance"),
        ({"step": "7"}, "step", 6),
        ({"step": "-1"}, "step", 1),
        ({"variant": "rel_shift", "mem_len": "99999"}, "mem_len", 256),
    ],
)
def test_hostile_link(params, key, expected):
    at = open_skew(**params)
    assert_complete(at)
    assert value_of(at, key) == expected
    notes = [w for w in warnings(at) if f"{key}=" in w]
    assert notes and all("<img src=x>" not in w for w in notes)


def test_lecture_mode():
    at = open_skew(lecture="1")
    assert_complete(at)
    assert {c.spec["layout"]["font"]["size"] for c in charts(at)} == {20}


def test_colour_rebuilds_only_the_coloured_figures(monkeypatch):
    from posviz.figures import skew, skew_check, skew_memory

    counts = count_calls(
        monkeypatch,
        [
            (skew, "skew_step_figure"),
            (skew, "skew_animation_figure"),
            (skew_check, "skew_check_figure"),
            (skew_memory, "bytes_figure"),
        ],
    )
    st.cache_resource.clear()
    at = open_skew(step="5", seq_len="10")
    assert_complete(at)
    assert counts == {"skew_step_figure": 0, "skew_animation_figure": 1, "skew_check_figure": 1, "bytes_figure": 1}
    widget(at, "colour").set_value("row").run()
    assert_complete(at)
    assert counts == {"skew_step_figure": 0, "skew_animation_figure": 2, "skew_check_figure": 1, "bytes_figure": 1}
    at.button(key="step_prev").click().run()  # step 4: a coloured matrix
    assert counts["skew_step_figure"] == 1 and counts["skew_check_figure"] == 1

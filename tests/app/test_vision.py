"""AppTest: the /vision page with default, changed and hostile link parameters."""

from __future__ import annotations

import numpy as np
import pytest

from posviz.encodings.multimodal import mrope_position_ids

from .conftest import array, assert_healthy, chart, charts, open_page, warnings

PAGE = "pages/vision.py"
CHARTS = 10  # with every on-demand section open
FIRST = 4  # drawn at once


def open_vision(**params):
    return open_page(PAGE, **params)


@pytest.fixture(scope="module")
def default():
    return open_vision()


def test_defaults_render_every_figure_titled_and_labelled(default):
    at = default
    assert_healthy(at)
    assert at.title[0].value.startswith("Images and video")
    assert len(charts(at)) == CHARTS
    for c in charts(at):
        assert c.title.strip() and c.spec["data"], c.key
        assert any(t.strip() for t in c.axis_titles("xaxis")), c.key  # panels share one where they share x
        assert any(t.strip() for t in c.axis_titles("yaxis")), c.key
        assert c.size < 200_000, c.key
    assert at.slider(key="merge").value == 2 and at.radio(key="vl_model").value == "qwen2_vl"


def test_first_sections_draw_at_once_the_rest_on_demand():
    at = open_page(PAGE, all_open=False)
    assert_healthy(at)
    assert [c.key for c in charts(at)] == [
        "fig_vision_grid",
        "fig_vision_sequence",
        "fig_vision_pairs",
        "fig_vision_time",
    ]
    assert len(charts(at)) == FIRST


def test_sequence_chart_carries_the_transformers_ids(default):
    # defaults: text 2, image 3 x 4 tokens (m = 2), text 3, video 6 x 2 x 2 tokens, text 3
    types = [0] * 2 + [1] * 12 + [0] * 3 + [2] * 24 + [0] * 3
    import torch

    ids = mrope_position_ids(torch.tensor(types), [(1, 6, 8)], [(6, 4, 4)], model="qwen2_vl")
    traces = {t.get("name"): t for t in chart(default, "vision_sequence").spec["data"]}
    for a, name in enumerate(("time t id", "height h id", "width w id")):
        np.testing.assert_array_equal(array(traces[name]["y"]), ids[a].numpy())
    assert "original Qwen code (largest id)" in traces  # a 6-patch video outruns its 2-token side


@pytest.mark.parametrize(
    "params",
    [
        dict(vl_model="qwen3_vl", frames="3", text_mid="0"),
        dict(vl_model="qwen2_5_vl", fps="0.5", tokens_per_second="4", frames="12"),
        dict(video="false", merge="1", image_rows="16", image_cols="16"),
        dict(encoder="gemma4", q_row="0", q_col="0", seed="9"),
        dict(encoder="pixtral", merge="4", image_rows="16", image_cols="16", q_row="63", q_col="63"),
        dict(lecture="true"),
        dict(video_model="hunyuan_video", latent_frames="8", latent_height="6", latent_width="6", v2pe_stride="1"),
        dict(video_model="wan2.1", latent_frames="1", latent_height="1", latent_width="1", v2pe_stride="256"),
    ],
)
def test_changed_settings_render(params):
    at = open_vision(**params)
    assert_healthy(at)
    assert len(charts(at)) == CHARTS
    assert not warnings(at), warnings(at)


def test_an_unknown_model_falls_back_with_a_notice():
    at = open_vision(vl_model="llava")
    assert_healthy(at)
    assert any("vl_model" in w for w in warnings(at)), warnings(at)
    assert at.radio(key="vl_model").value == "qwen2_vl"


def test_qwen25_time_ids_are_seconds():
    at = open_vision(vl_model="qwen2_5_vl", fps="1", tokens_per_second="2", frames="4")
    assert_healthy(at)
    traces = chart(at, "vision_time").spec["data"]
    by_second = next(t for t in traces if t["name"].startswith("Qwen2.5"))
    np.testing.assert_array_equal(array(by_second["y"]), [0, 4, 8, 12])  # 2 frames / 1 fps x 2 per second


@pytest.mark.parametrize(
    "key, raw",
    [
        ("merge", "0"),
        ("merge", "99"),
        ("image_rows", "-3"),
        ("frames", "1e309"),
        ("fps", "nan"),
        ("tokens_per_second", "<script>alert(1)</script>"),
        ("encoder", "**bold**"),
        ("q_row", "500"),
        ("video", "maybe"),
        ("text_before", "9" * 400),
        ("show_offsets", "perhaps"),
        ("video_model", "**bold**"),
        ("video_model", "<script>alert(1)</script>"),
        ("latent_frames", "1e309"),
        ("latent_height", "0"),
        ("latent_width", "-7"),
        ("v2pe_stride", "3"),
        ("v2pe_stride", "nan"),
        ("show_video_rope", "perhaps"),
        ("show_v2pe", "2"),
    ],
)
def test_hostile_links_give_notices(key, raw):
    at = open_vision(vl_model="qwen2_5_vl", **{key: raw})  # fps and tokens_per_second are Qwen2.5-VL's
    assert not at.exception, [e.value for e in at.exception]
    assert any(key in w for w in warnings(at)), warnings(at)
    assert charts(at)
    for text in warnings(at):
        assert "<script>" not in text


def test_video_head_carries_the_generators_angles():
    # HunyuanVideo on a 2 x 3 x 2 latent: pairs 16/56/56 of 128, theta 256, frame-major patches
    at = open_vision(video_model="hunyuan_video", latent_frames="2", latent_height="3", latent_width="2")
    assert_healthy(at)
    heat, strip = chart(at, "vision_video_head").spec["data"]
    dims, theta = (16, 56, 56), 256.0
    want = [
        [p * theta ** (-2 * j / d) for p, d in zip((f, h, w), dims, strict=True) for j in range(d // 2)]
        for f in range(2)
        for h in range(3)
        for w in range(2)
    ]
    np.testing.assert_allclose(array(heat["z"]), np.cos(want), atol=1e-6)
    np.testing.assert_array_equal(array(strip["z"])[0], [0] * 8 + [1] * 28 + [2] * 28)
    ladders = {t["name"]: t for t in chart(at, "vision_video_ladders").spec["data"][:3]}
    assert [len(array(ladders[n]["x"])) for n in ("time t", "height h", "width w")] == [8, 28, 28]


def test_v2pe_ids_and_cost_follow_the_stride():
    at = open_vision(v2pe_stride="4")
    assert_healthy(at)
    ordinary, fractional = chart(at, "vision_v2pe_ids").spec["data"]
    # text 0..7; 256 image tokens from 7 + 1/64 to 7 + 4; text resumes at ceil(11) + 1 = 12
    want = [*range(8), *(7 + (n + 1) / 64 for n in range(256)), *range(12, 20)]
    np.testing.assert_allclose(array(fractional["y"]), want, atol=1e-5)
    np.testing.assert_array_equal(array(ordinary["y"]), np.arange(8 + 256 + 8))
    plain, used = chart(at, "vision_v2pe_context").spec["data"]
    np.testing.assert_array_equal(array(used["y"]), 4 * np.arange(1, 65))  # stride positions per 256-token tile
    np.testing.assert_array_equal(array(plain["y"]), 256 * np.arange(1, 65))

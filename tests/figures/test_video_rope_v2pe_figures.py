"""The /vision figures of video generators' 3-D RoPE and of V2PE: valid, titled, and carrying numbers
that a second, naive computation (written out here from the papers' rules) gives again."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from posviz.encodings.multimodal import mrope_axes
from posviz.encodings.v2pe import STRIDES
from posviz.figures import v2pe, video_rope
from tests.app.conftest import array  # plotly's typed arrays decoded

# (dims (t, h, w), theta) as the models publish them: Wan 2.1 h = w = 2 (128 // 6), HunyuanVideo 16/56/56
MODELS = {"wan2.1": ((44, 42, 42), 10000.0), "hunyuan_video": ((16, 56, 56), 256.0)}


def table(chart) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(chart.csv()))


def naive_angles(dims, theta, frames, height, width) -> np.ndarray:
    """Every patch's angle per pair, by loops: pair j of axis a turns by position_a * theta ** (-2j / d_a)."""
    rows = []
    for f in range(frames):
        for h in range(height):
            for w in range(width):
                rows.append(
                    [p * theta ** (-2 * j / d) for p, d in zip((f, h, w), dims, strict=True) for j in range(d // 2)]
                )
    return np.array(rows)


def charts(lecture: bool):
    for model in MODELS:
        yield video_rope.head(video_model=model, frames=2, height=3, width=5, lecture=lecture)
        yield video_rope.ladders(video_model=model, side=5, lecture=lecture)
    for stride in (1, 16, 256):
        yield v2pe.ids(stride=stride, lecture=lecture)
        yield v2pe.context(stride=stride, lecture=lecture)


@pytest.mark.parametrize("lecture", [False, True])
def test_every_figure_is_valid_titled_and_labelled(lecture):
    for chart in charts(lecture):
        spec = chart.figure().to_dict()
        go.Figure(spec)
        layout = spec["layout"]
        assert layout["title"]["text"].strip()
        assert any(v.get("title", {}).get("text") for k, v in layout.items() if k.startswith("xaxis"))
        assert any(v.get("title", {}).get("text") for k, v in layout.items() if k.startswith("yaxis"))
        assert len(table(chart)) and len(table(chart).columns) > 1


@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize(("frames", "height", "width"), [(1, 1, 1), (2, 3, 5), (4, 2, 2)])
def test_head_carries_each_patchs_angles(model, frames, height, width):
    dims, theta = MODELS[model]
    chart = video_rope.head(video_model=model, frames=frames, height=height, width=width)
    want = naive_angles(dims, theta, frames, height, width)
    drawn = table(chart)
    np.testing.assert_allclose(drawn.iloc[:, 4:].to_numpy(), want, rtol=1e-12, atol=1e-12)
    heat, strip = chart.spec["data"]
    np.testing.assert_allclose(array(heat["z"]), np.cos(want), atol=1e-6)  # float32 on the wire
    np.testing.assert_array_equal(array(strip["z"])[0], np.repeat([0, 1, 2], [d // 2 for d in dims]))
    assert drawn[["frame", "row", "column"]].to_numpy().tolist() == [
        [f, h, w] for f in range(frames) for h in range(height) for w in range(width)
    ]


def test_hunyuan_says_its_text_is_not_rotated():
    hunyuan = video_rope.head(video_model="hunyuan_video", frames=1, height=1, width=2)
    wan = video_rope.head(video_model="wan2.1", frames=1, height=1, width=2)
    assert "not rotated" in hunyuan.spec["layout"]["title"]["subtitle"]["text"]
    assert "not rotated" not in wan.spec["layout"]["title"]["subtitle"]["text"]


@pytest.mark.parametrize("model", list(MODELS))
def test_ladders_beside_qwen3_vl(model):
    dims, theta = MODELS[model]
    drawn = table(video_rope.ladders(video_model=model, side=4))
    name = {"wan2.1": "Wan 2.1", "hunyuan_video": "HunyuanVideo"}[model]
    want = [2 * math.pi / theta ** (-2 * j / d) for d in dims for j in range(d // 2)]
    np.testing.assert_allclose(drawn[f"{name} wavelength"], want, rtol=1e-12)
    assert drawn[f"{name} axis"].tolist() == [
        a for a, d in zip(("time", "height", "width"), dims, strict=True) for _ in range(d // 2)
    ]
    qwen = mrope_axes(128, (24, 20, 20), interleaved=True).numpy()
    assert drawn["Qwen3-VL axis"].tolist() == np.array(["time", "height", "width"])[qwen].tolist()
    np.testing.assert_allclose(drawn["Qwen3-VL wavelength"], [2 * math.pi * 5e6 ** (2 * k / 128) for k in range(64)])


def reference_ids(stride: int) -> list[float]:
    """get_rope_pos_id's rule for text, one 256-token tile, text: linspace over the image, ceil + 1 after."""
    before, tokens, after = v2pe.RUNS[0][1], v2pe.RUNS[1][1], v2pe.RUNS[2][1]
    ids = [float(p) for p in range(before)]
    last = ids[-1]
    step = stride / 256
    ids += np.linspace(last, last + step * tokens, tokens + 1)[1:].tolist()
    resume = math.ceil(ids[-1]) + 1
    return ids + [float(resume + n) for n in range(after)]


@pytest.mark.parametrize("stride", STRIDES)
def test_v2pe_ids_follow_the_reference(stride):
    chart = v2pe.ids(stride=stride)
    drawn = table(chart)
    np.testing.assert_allclose(drawn["V2PE id"], reference_ids(stride), rtol=0, atol=1e-9)
    np.testing.assert_array_equal(drawn["ordinary id"], np.arange(len(drawn)))
    ordinary, fractional = chart.spec["data"]
    np.testing.assert_allclose(array(fractional["y"]), reference_ids(stride), atol=1e-4)


@pytest.mark.parametrize("stride", STRIDES)
def test_a_long_image_costs_stride_positions_a_tile(stride):
    drawn = table(v2pe.context(stride=stride))
    tiles = np.arange(1, v2pe.MAX_TILES + 1)
    np.testing.assert_array_equal(drawn["tiles"], tiles)
    np.testing.assert_array_equal(drawn["positions, ordinary"], 256 * tiles)
    np.testing.assert_array_equal(drawn["positions, V2PE"], stride * tiles)  # 256 tokens x stride / 256

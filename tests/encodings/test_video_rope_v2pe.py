"""Video 3-D RoPE against diffusers (the oracle, as pinned), and V2PE against a port of the reference."""

from __future__ import annotations

import inspect
import math

import pytest
import torch

from posviz.encodings.v2pe import v2pe_context_used, v2pe_delta, v2pe_position_ids
from posviz.encodings.video_rope import (
    VIDEO_MODELS,
    video_axis_of_pairs,
    video_positions,
    video_rope_angles,
    video_rope_cos_sin,
    wan_split,
)

transformer_wan = pytest.importorskip("diffusers.models.transformers.transformer_wan")
transformer_hunyuan = pytest.importorskip("diffusers.models.transformers.transformer_hunyuan_video")


def test_the_oracles_have_the_signatures_these_tests_call():
    wan = inspect.signature(transformer_wan.WanRotaryPosEmbed.__init__).parameters
    assert list(wan)[1:5] == ["attention_head_dim", "patch_size", "max_seq_len", "theta"]
    hunyuan = inspect.signature(transformer_hunyuan.HunyuanVideoRotaryPosEmbed.__init__).parameters
    assert list(hunyuan)[1:5] == ["patch_size", "patch_size_t", "rope_dim", "theta"]


@pytest.mark.parametrize(("frames", "height", "width"), [(3, 8, 12), (1, 4, 4), (5, 2, 6)])
def test_wan_equals_diffusers(frames, height, width):
    wan = VIDEO_MODELS["wan2.1"]
    rope = transformer_wan.WanRotaryPosEmbed(wan.head_dim, (1, 2, 2), max_seq_len=1024, theta=wan.theta)
    cos, sin = rope(torch.zeros(1, 4, frames, height, width))  # (1, N, 1, d) each
    want_cos, want_sin = video_rope_cos_sin(video_positions(frames, height // 2, width // 2), wan.dims, theta=wan.theta)
    torch.testing.assert_close(cos[0, :, 0].double(), want_cos, rtol=0, atol=1e-6)
    torch.testing.assert_close(sin[0, :, 0].double(), want_sin, rtol=0, atol=1e-6)


@pytest.mark.parametrize(("frames", "height", "width"), [(3, 8, 12), (2, 6, 4)])
def test_hunyuan_equals_diffusers(frames, height, width):
    hy = VIDEO_MODELS["hunyuan_video"]
    rope = transformer_hunyuan.HunyuanVideoRotaryPosEmbed(2, 1, list(hy.dims), theta=hy.theta)
    cos, sin = rope(torch.zeros(1, 4, frames, height, width))  # (N, d) each
    want_cos, want_sin = video_rope_cos_sin(video_positions(frames, height // 2, width // 2), hy.dims, theta=hy.theta)
    torch.testing.assert_close(cos.double(), want_cos, rtol=0, atol=1e-6)
    torch.testing.assert_close(sin.double(), want_sin, rtol=0, atol=1e-6)


def test_the_splits_are_the_models():
    assert wan_split(128) == (44, 42, 42) and VIDEO_MODELS["hunyuan_video"].dims == (16, 56, 56)
    axis = video_axis_of_pairs((4, 2, 2))
    assert axis.tolist() == [0, 0, 1, 2]


def test_a_naive_loop_over_tokens_and_pairs():
    dims, theta = (4, 2, 2), 100.0
    pos = video_positions(2, 2, 3)
    angles = video_rope_angles(pos, dims, theta=theta)
    assert pos.tolist()[:4] == [[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 1, 0]]  # frame-major, then row, then column
    for n, (f, h, w) in enumerate(pos.tolist()):
        want = [f * theta ** (-0 / 4), f * theta ** (-2 / 4), h * theta**0, w * theta**0]
        assert angles[n].tolist() == pytest.approx(want)


def reference_v2pe(text_before: int, image_tokens: int, text_after: int, stride: int) -> list[float]:
    """get_rope_pos_id (v2pe_fix) for one image of one tile, with linspace as the reference sheet advises."""
    ids = [float(p) for p in range(text_before)]  # the text up to and including <img>
    last = ids[-1]
    small = stride / 256
    visual = torch.linspace(last, last + small * image_tokens, image_tokens + 1, dtype=torch.float64)[1:]
    ids += visual.tolist()
    last = math.ceil(visual[-1].item())
    ids += [float(last + 1 + n) for n in range(text_after)]  # cumsum - 1 + (last + 1)
    return ids


@pytest.mark.parametrize("stride", [1, 16, 64, 256])
def test_v2pe_equals_the_reference(stride):
    got = v2pe_position_ids([("text", 11), ("image", 256), ("text", 5)], delta=v2pe_delta(stride))
    assert got.tolist() == pytest.approx(reference_v2pe(11, 256, 5, stride), abs=1e-9)


def test_v2pe_the_published_example():
    """<img> at 10, stride 64: visual tokens at 10.25 ... 74.0, </img> at 75."""
    ids = v2pe_position_ids([("text", 11), ("image", 256), ("text", 1)], delta=64 / 256)
    assert ids[11].item() == 10.25 and ids[266].item() == 74.0 and ids[267].item() == 75.0
    assert v2pe_context_used(256, delta=64 / 256) == 64 and v2pe_context_used(256, delta=1.0) == 256


def test_v2pe_refuses_bad_input():
    with pytest.raises(ValueError, match="stride"):
        v2pe_delta(0)
    with pytest.raises(ValueError, match="run"):
        v2pe_position_ids([("audio", 3)], delta=1.0)

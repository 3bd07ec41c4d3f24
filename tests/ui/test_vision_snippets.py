"""Every generated /vision snippet runs and rebuilds the tensors the page draws.

The snippets write get_rope_index, the t/h/w layouts and the vision rotary modules out in
plain torch, so this also checks the page's figures (their CSVs) against a second implementation.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
import torch

from posviz.encodings.model_vision import ENCODERS, PRESETS
from posviz.encodings.multimodal import mrope_axes
from posviz.encodings.v2pe import STRIDES
from posviz.encodings.video_rope import VIDEO_MODELS
from posviz.figures import multimodal, multimodal_pairs, v2pe, video_rope
from posviz.ui.vision import snippets
from posviz.ui.vision.settings import VisionSettings
from tests.figures.test_multimodal import offsets_of, prompt_of, video_of

SETTINGS = {
    "default": VisionSettings(),
    "qwen25_seconds": VisionSettings(vl_model="qwen2_5_vl", fps=0.7, tokens_per_second=3, frames=9),
    "qwen3_frames": VisionSettings(vl_model="qwen3_vl", frames=4, video_rows=3, video_cols=1, text_mid=0),
    "merge1_no_video": VisionSettings(merge=1, video=False, image_rows=5, image_cols=2, text_before=0),
    "long_video": VisionSettings(frames=40, merge=3, video_rows=1, video_cols=2, text_after=0),
}


def run(code: str) -> dict:
    scope: dict = {}
    exec(compile(code, "<snippet>", "exec"), scope)  # noqa: S102  (our own generated code)
    return scope


def csv(chart) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(chart.csv()))


@pytest.mark.parametrize("name", list(SETTINGS))
def test_ids_snippet_rebuilds_the_sequence(name, capsys):
    s = SETTINGS[name]
    out = run(snippets.ids_snippet(s))
    drawn = csv(multimodal.sequence(**prompt_of(s)))
    assert out["types"] == drawn["mm_token_type_id"].tolist()
    np.testing.assert_array_equal(out["ids"].numpy(), drawn[["t", "h", "w"]].to_numpy().T)
    np.testing.assert_array_equal(out["ids_original"].numpy(), drawn[["t original", "h original", "w original"]].T)


@pytest.mark.parametrize("model", list(PRESETS))
def test_pairs_snippet_gives_each_model_its_layout(model, capsys):
    out = run(snippets.pairs_snippet(model))
    p = PRESETS[model]
    axes = out["interleaved"] if p.interleaved else out["blocks"]
    assert torch.equal(axes, mrope_axes(p.head_dim, p.mrope_section, interleaved=p.interleaved))
    drawn = csv(multimodal_pairs.pairs(vl_model=model, side=4))
    np.testing.assert_allclose(out["wavelength"].numpy(), drawn["wavelength (tokens)"], rtol=1e-12)
    own = drawn["interleaved axis" if p.interleaved else "blocks axis"]  # the figure draws each layout as shipped
    assert np.array(["t", "h", "w"])[axes.numpy()].tolist() == own.tolist()


@pytest.mark.parametrize("encoder", list(ENCODERS))
def test_offsets_snippet_rebuilds_the_heatmaps(encoder, capsys):
    s = VisionSettings(encoder=encoder, q_row=2, q_col=5, seed=3)
    out = run(snippets.offsets_snippet(s))
    drawn = csv(multimodal_pairs.offsets(**offsets_of(s)))
    chosen, other = drawn.columns[2:]  # score, query (2, 5); score, query <the other patch>
    for name, got in ((chosen, out["chosen"]), (other, out["other"])):
        grid = drawn.pivot(index="dh", columns="dw", values=name).to_numpy()
        np.testing.assert_allclose(got.numpy(), grid, atol=1e-9, equal_nan=True)


def test_split_snippet_rebuilds_every_encoder(capsys):
    out = run(snippets.split_snippet())
    drawn = csv(multimodal_pairs.split())
    assert list(out["splits"]) == list(dict.fromkeys(drawn["encoder"]))
    for name, (axis, wave) in out["splits"].items():
        rows = drawn[drawn["encoder"] == name]
        np.testing.assert_array_equal(axis.numpy(), rows["axis"].map({"row": 0, "column": 1}))
        np.testing.assert_allclose(wave.numpy(), rows["wavelength (patches)"], rtol=1e-6)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_time_snippet_rebuilds_the_time_figure(name, capsys):
    s = SETTINGS[name]
    out = run(snippets.time_snippet(s))
    chart = multimodal.time(**video_of(s))
    drawn = csv(chart)
    np.testing.assert_array_equal(out["frame_ids"].numpy(), drawn["time id, frame index"])
    np.testing.assert_array_equal(out["second_ids"].numpy(), drawn["time id, seconds"])
    assert f"next text starts at start + {out['resume']} (5.23)" in str(chart.spec["layout"]["annotations"])


@pytest.mark.parametrize("model", list(VIDEO_MODELS))
@pytest.mark.parametrize("grid", [(3, 4, 4), (1, 6, 2), (8, 1, 1)])
def test_video_head_snippet_rebuilds_the_angles(model, grid, capsys):
    frames, height, width = grid
    out = run(snippets.video_head_snippet(model, frames, height, width))
    chart = video_rope.head(video_model=model, frames=frames, height=height, width=width)
    drawn = csv(chart)
    np.testing.assert_allclose(out["angles"].numpy(), drawn.iloc[:, 4:].to_numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(out["positions"].numpy(), drawn[["frame", "row", "column"]].to_numpy())
    assert [f"angle pair {k} ({('time', 'height', 'width')[a]})" for k, a in enumerate(out["axis"].tolist())] == list(
        drawn.columns[4:]
    )
    np.testing.assert_allclose(out["cos"][:, ::2].numpy(), np.cos(drawn.iloc[:, 4:].to_numpy()), atol=1e-12)


@pytest.mark.parametrize("model", list(VIDEO_MODELS))
def test_video_ladders_snippet_rebuilds_both_ladders(model, capsys):
    out = run(snippets.video_ladders_snippet(model))
    drawn = csv(video_rope.ladders(video_model=model, side=4))
    name = VIDEO_MODELS[model].name
    words = np.array(["time", "height", "width"])
    np.testing.assert_allclose(out["video_wavelength"].numpy(), drawn[f"{name} wavelength"], rtol=1e-12)
    assert words[out["video_axis"].numpy()].tolist() == drawn[f"{name} axis"].tolist()
    np.testing.assert_allclose(out["qwen_wavelength"].numpy(), drawn["Qwen3-VL wavelength"], rtol=1e-12)
    assert words[out["qwen_axis"].numpy()].tolist() == drawn["Qwen3-VL axis"].tolist()


@pytest.mark.parametrize("stride", STRIDES)
def test_v2pe_snippets_rebuild_the_ids_and_the_cost(stride, capsys):
    out = run(snippets.v2pe_ids_snippet(stride))
    drawn = csv(v2pe.ids(stride=stride))
    np.testing.assert_allclose(out["v2pe"].numpy(), drawn["V2PE id"], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(out["ordinary"].numpy(), drawn["ordinary id"])
    out = run(snippets.v2pe_context_snippet(stride))
    drawn = csv(v2pe.context(stride=stride))
    np.testing.assert_array_equal(out["v2pe"].numpy(), drawn["positions, V2PE"])
    np.testing.assert_array_equal(out["ordinary"].numpy(), drawn["positions, ordinary"])

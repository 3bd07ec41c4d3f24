"""Every generated /vision snippet runs and rebuilds the tensors the page draws.

The snippets write get_rope_index, the t/h/w layouts and the vision rotary modules out in
plain torch, so this also checks the page's views against a second implementation.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

from posviz.ui.settings import project
from posviz.ui.vision import snippets
from posviz.ui.vision.settings import ENCODERS, PRESETS, OffsetKey, SequenceKey, VisionSettings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # no runtime: Streamlit warns that caches live in memory
    from posviz.ui.vision import views

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


@pytest.mark.parametrize("name", list(SETTINGS))
def test_ids_snippet_rebuilds_the_sequence_view(name, capsys):
    k = project(SETTINGS[name], SequenceKey)
    out = run(snippets.ids_snippet(k))
    v = views.sequence_view(k)
    assert out["types"] == v.types.tolist()
    np.testing.assert_array_equal(out["ids"].numpy(), v.ids)
    np.testing.assert_array_equal(out["ids_original"].numpy(), v.original)


@pytest.mark.parametrize("model", list(PRESETS))
def test_pairs_snippet_gives_each_model_its_layout(model, capsys):
    out = run(snippets.pairs_snippet(model))
    p = PRESETS[model]
    axes = out["interleaved"] if p.interleaved else out["blocks"]
    from posviz.encodings.multimodal import mrope_axes

    assert torch.equal(axes, mrope_axes(p.head_dim, p.mrope_section, interleaved=p.interleaved))
    np.testing.assert_allclose(out["wavelength"].numpy(), views.pairs_view(model).wavelength, rtol=1e-12)


@pytest.mark.parametrize("encoder", list(ENCODERS))
def test_offsets_snippet_rebuilds_the_heatmaps(encoder, capsys):
    k = project(VisionSettings(encoder=encoder, q_row=2, q_col=5, seed=3), OffsetKey)
    out = run(snippets.offsets_snippet(k))
    v = views.offset_view(k)
    np.testing.assert_allclose(out["chosen"].numpy(), v.chosen, atol=1e-9, equal_nan=True)
    np.testing.assert_allclose(out["other"].numpy(), v.other, atol=1e-9, equal_nan=True)


def test_split_snippet_rebuilds_every_encoder(capsys):
    out = run(snippets.split_snippet())
    v = views.split_view()
    assert list(out["splits"]) == list(v.names)
    for (axis, wave), a, w in zip(out["splits"].values(), v.axis, v.wavelength, strict=True):
        np.testing.assert_array_equal(axis.numpy(), a)
        np.testing.assert_allclose(wave.numpy(), w, rtol=1e-6)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_time_snippet_rebuilds_the_time_view(name, capsys):
    k = project(SETTINGS[name], SequenceKey)
    out = run(snippets.time_snippet(k))
    v = views.time_view(k)
    np.testing.assert_array_equal(out["frame_ids"].numpy(), v.frame_ids)
    np.testing.assert_array_equal(out["second_ids"].numpy(), v.second_ids)
    assert out["resume"] == v.resume

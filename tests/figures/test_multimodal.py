"""The /vision figures: the data they carry, titled and labelled, valid for Plotly's validators."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from posviz.figures import multimodal, multimodal_pairs
from posviz.figures.chart import Chart
from posviz.ui.vision.settings import VisionSettings
from tests.app.conftest import array  # plotly's typed arrays decoded

CASES = {
    "default": VisionSettings(),
    "qwen3": VisionSettings(vl_model="qwen3_vl", frames=3),
    "no_video": VisionSettings(video=False, merge=1, image_rows=16, image_cols=13),
    "qwen25": VisionSettings(vl_model="qwen2_5_vl", fps=4.0, tokens_per_second=2, frames=1),
}


# The figures' arguments, as pages/vision.py passes them from its settings.
def prompt_of(s: VisionSettings) -> dict[str, Any]:
    names = ("vl_model", "merge", "text_before", "image_rows", "image_cols", "text_mid", "video", "frames")
    names += ("video_rows", "video_cols", "fps", "tokens_per_second", "text_after")
    return {name: getattr(s, name) for name in names}


def video_of(s: VisionSettings) -> dict[str, Any]:
    return dict(frames=s.frames if s.video else 1, merge=s.merge, video_rows=s.video_rows, video_cols=s.video_cols,
                fps=s.fps, tokens_per_second=s.tokens_per_second)  # fmt: skip


def offsets_of(s: VisionSettings) -> dict[str, Any]:
    return dict(encoder=s.encoder, height=s.image_rows * s.merge, width=s.image_cols * s.merge, q_row=s.q_row,
                q_col=s.q_col, seed=s.seed)  # fmt: skip


def side_of(s: VisionSettings) -> int:
    return max(s.image_rows, s.image_cols)


def figures(s: VisionSettings, lecture: bool) -> dict[str, Chart]:
    return {
        "grid": multimodal.grid(**prompt_of(s), lecture=lecture),
        "sequence": multimodal.sequence(**prompt_of(s), lecture=lecture),
        "pairs": multimodal_pairs.pairs(vl_model=s.vl_model, side=side_of(s), lecture=lecture),
        "time": multimodal.time(**video_of(s), lecture=lecture),
        "offsets": multimodal_pairs.offsets(**offsets_of(s), lecture=lecture),
        "split": multimodal_pairs.split(lecture=lecture),
    }


@pytest.mark.parametrize("lecture", [False, True])
@pytest.mark.parametrize("name", list(CASES))
def test_every_figure_is_valid_titled_and_labelled(name, lecture):
    for key, chart in figures(CASES[name], lecture).items():
        spec = chart.figure().to_dict()
        go.Figure(spec)  # Plotly's validators
        layout = spec["layout"]
        assert layout["title"]["text"].strip(), key
        assert any(v.get("title", {}).get("text") for k, v in layout.items() if k.startswith("xaxis")), key
        assert any(v.get("title", {}).get("text") for k, v in layout.items() if k.startswith("yaxis")), key
        table = pd.read_csv(io.StringIO(chart.csv()))  # CSV columns of one length, or no DataFrame
        assert len(table) and len(table.columns) > 1, key


@pytest.mark.parametrize("name", list(CASES))
def test_grid_cells_carry_the_ids(name):
    s = CASES[name]
    p = multimodal.prompt(**prompt_of(s))
    fig = multimodal.grid(**prompt_of(s)).figure()
    image = fig.to_dict()["data"][0]
    start = next(r.start for r in p.runs if r.kind == "image")
    ids = p.ids.numpy()[:, start : start + s.image_rows * s.image_cols].reshape(3, s.image_rows, s.image_cols)
    assert image["text"][0][0] == f"{ids[0, 0, 0]},{ids[1, 0, 0]},{ids[2, 0, 0]}"
    np.testing.assert_array_equal(
        array(image["customdata"])[-1], np.arange(start, start + s.image_rows * s.image_cols)[-s.image_cols :]
    )
    assert len(fig.data) == (1 if not s.video else 2 if s.frames == 1 else 3)


def test_resume_markers_only_when_the_rules_part():
    parted = multimodal.sequence(**prompt_of(CASES["default"])).figure()
    agreed = multimodal.sequence(**prompt_of(CASES["qwen3"])).figure()
    assert any("original Qwen code" in (t.name or "") for t in parted.data)
    assert not any("original Qwen code" in (t.name or "") for t in agreed.data)
    assert "agrees here" in agreed.layout.title.subtitle.text


def test_the_grid_and_the_sequence_share_one_prompt(monkeypatch):
    calls = []
    real = multimodal.vl_prompt
    monkeypatch.setattr(multimodal, "vl_prompt", lambda **k: calls.append(k) or real(**k))
    s = VisionSettings(text_before=17)  # a prompt no other test builds
    multimodal.grid(**prompt_of(s))
    multimodal.sequence(**prompt_of(s))
    assert len(calls) == 1

"""The /vision figures: the data they carry, titled and labelled, valid for Plotly's validators."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from posviz.ui.settings import project
from posviz.ui.vision.settings import OffsetKey, SequenceKey, VisionSettings
from tests.app.conftest import array  # plotly's typed arrays decoded

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # no runtime: Streamlit warns that caches live in memory
    from posviz.ui.cache import Chart
    from posviz.ui.vision import charts, views

CASES = {
    "default": VisionSettings(),
    "qwen3": VisionSettings(vl_model="qwen3_vl", frames=3),
    "no_video": VisionSettings(video=False, merge=1, image_rows=16, image_cols=13),
    "qwen25": VisionSettings(vl_model="qwen2_5_vl", fps=4.0, tokens_per_second=2, frames=1),
}


def figures(s: VisionSettings, lecture: bool) -> dict[str, Chart]:
    sk, ok = project(s, SequenceKey), project(s, OffsetKey)
    return {
        "grid": charts.grid(sk, lecture),
        "sequence": charts.sequence(sk, lecture),
        "pairs": charts.pairs(s.vl_model, max(s.image_rows, s.image_cols), lecture),
        "time": charts.time(sk, lecture),
        "offsets": charts.offsets(ok, lecture),
        "split": charts.split(lecture),
    }


@pytest.mark.parametrize("lecture", [False, True])
@pytest.mark.parametrize("name", list(CASES))
def test_every_figure_is_valid_titled_and_labelled(name, lecture):
    for key, chart in figures(CASES[name], lecture).items():
        spec = chart.figure.to_dict()
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
    v = views.sequence_view(project(s, SequenceKey))
    fig = charts.grid(project(s, SequenceKey), False).figure
    image = fig.to_dict()["data"][0]
    start = next(b.start for b in v.blocks if b.kind == "image")
    ids = v.ids[:, start : start + s.image_rows * s.image_cols].reshape(3, s.image_rows, s.image_cols)
    assert image["text"][0][0] == f"{ids[0, 0, 0]},{ids[1, 0, 0]},{ids[2, 0, 0]}"
    np.testing.assert_array_equal(
        array(image["customdata"])[-1], np.arange(start, start + s.image_rows * s.image_cols)[-s.image_cols :]
    )
    assert len(fig.data) == (1 if not s.video else 2 if s.frames == 1 else 3)


def test_resume_markers_only_when_the_rules_part():
    parted = charts.sequence(project(CASES["default"], SequenceKey), False).figure
    agreed = charts.sequence(project(CASES["qwen3"], SequenceKey), False).figure
    assert any("original Qwen code" in (t.name or "") for t in parted.data)
    assert not any("original Qwen code" in (t.name or "") for t in agreed.data)
    assert "agrees here" in agreed.layout.title.subtitle.text

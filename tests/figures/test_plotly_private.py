"""The one Plotly private posviz uses (``posviz/figures/plotly_private.py``): fails when Plotly changes it."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from plotly.basedatatypes import BaseFigure

from posviz.figures.chart import Chart
from posviz.figures.plotly_private import SpecFigure, figure_of, lazy_figure

SPEC = {
    "data": [{"type": "heatmap", "z": np.arange(6, dtype=np.float32).reshape(2, 3), "colorscale": [[0, "#000"]]}],
    "layout": {"title": {"text": "t"}, "xaxis": {"title": {"text": "x"}}},
    "frames": [{"name": "one", "data": [{"type": "heatmap", "z": [[1.0]]}]}],
}


def test_plotly_still_takes_the_private_argument():
    assert 'kwargs.pop("_validate"' in inspect.getsource(BaseFigure.__init__)


def test_figure_of_skips_validation():
    bogus = {"data": [{"type": "scatter", "opacity": 7}]}
    assert figure_of(bogus).data[0].opacity == 7  # not validated: the spec is taken as given
    with pytest.raises(ValueError):
        go.Figure(bogus)  # Plotly's validators would refuse it


def test_figure_of_a_valid_spec_is_the_validated_figure():
    ours, theirs = figure_of(SPEC), go.Figure(SPEC)
    assert json.loads(pio.to_json(ours)) == json.loads(pio.to_json(theirs))
    assert [f.name for f in ours.frames] == ["one"]
    encoded = figure_of(ours.to_dict())  # what posviz.ui.cache keeps: arrays encoded once
    assert encoded.data[0].z["bdata"] and json.loads(pio.to_json(encoded)) == json.loads(pio.to_json(theirs))


def test_a_built_figure_still_marks_itself_as_spec_figure_reads_it():
    assert "_data_objs" in figure_of(SPEC).__dict__  # SpecFigure.built reads this attribute


def test_a_lazy_figure_is_built_only_when_read_and_then_is_the_figure():
    lazy = lazy_figure(dict(SPEC))
    assert isinstance(lazy, go.Figure) and not lazy.built
    chart = Chart.of(lazy)  # a figure function's path: the spec, never the object view
    assert not lazy.built
    assert chart.spec == figure_of(dict(SPEC)).to_dict()
    assert lazy.layout.title.text == "t" and lazy.built  # read: built once, from the spec
    assert json.loads(pio.to_json(lazy)) == json.loads(pio.to_json(go.Figure(SPEC)))
    lazy.update_layout(title_text="u")  # from now on the view is the figure
    assert Chart.of(lazy).spec["layout"]["title"]["text"] == "u"
    assert isinstance(SpecFigure(dict(SPEC)).to_dict()["data"][0]["z"], dict)  # any method builds it first


PRIVATE = re.compile(r"_plotly_utils|\b_validate\b|\._data\b|\._layout\b|_grid_str|_grid_ref|_frame_objs|\._props\b")


def test_no_plotly_private_outside_its_module():
    root = Path(__file__).resolve().parents[2]
    files = [*(root / "posviz").rglob("*.py"), *(root / "pages").glob("*.py"), root / "app.py"]
    found = [
        f"{path.relative_to(root)}: {line.strip()}"
        for path in files
        if path.name != "plotly_private.py"
        for line in path.read_text().splitlines()
        if PRIVATE.search(line) or re.search(r"\bpio\.\w+\s*=[^=]", line)
    ]
    assert not found, found

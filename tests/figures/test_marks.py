"""Marked lines on a plain spec: the same shapes and labels as Plotly's own add_vline / add_hline."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from posviz.figures.marks import HLINE, VLINE, Mark, add_marks


def _plot() -> go.Figure:
    return go.Figure(go.Scatter(x=[0, 10], y=[0, 5]))


def _spec() -> dict:
    return {"data": [{"type": "scatter", "x": [0, 10], "y": [0, 5]}], "layout": {}}


@pytest.mark.parametrize(("vertical", "position"), [(True, p) for p in VLINE] + [(False, p) for p in HLINE])
def test_a_mark_is_what_plotly_would_draw(vertical, position):
    line = dict(dash="dot", color="#555")
    theirs = _plot()
    if vertical:
        theirs.add_vline(x=3, line=line, annotation_text="label", annotation_position=position)
    else:
        theirs.add_hline(y=3, line=line, annotation_text="label", annotation_position=position)
    ours = add_marks(_spec(), [Mark(3, "label", position)], vertical=vertical, line=line)
    want, got = theirs.to_dict()["layout"], go.Figure(ours).to_dict()["layout"]
    assert got["shapes"] == [{k: want["shapes"][0][k] for k in got["shapes"][0]}]
    assert got["annotations"] == [{k: want["annotations"][0].get(k) for k in got["annotations"][0]}]


def test_marks_keep_what_the_figure_had_and_unlabelled_marks_add_no_text():
    spec = _spec()
    spec["layout"]["annotations"] = [dict(x=1, y=1, text="kept")]
    add_marks(spec, [Mark(2), Mark(4, "four", "bottom left")], line=dict(color="#000"))
    assert [s["x0"] for s in spec["layout"]["shapes"]] == [2, 4]
    assert [a["text"] for a in spec["layout"]["annotations"]] == ["kept", "four"]

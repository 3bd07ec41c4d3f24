"""``Chart.of`` writes plain numeric arrays as Plotly's typed arrays itself: exactly what Plotly's encoding makes."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from plotly.io.json import to_json_plotly

from posviz.figures import compare
from posviz.figures.chart import Chart, typed_arrays
from posviz.figures.plotly_private import encoded_spec, figure_of

DTYPES = st.sampled_from(
    [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.float16, np.float32,
     np.float64, np.bool_, ">f4", ">i8"]
)  # fmt: skip
ARRAYS = hnp.arrays(DTYPES, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))


def _int64s():
    edges = [2**7 - 1, -(2**7), 2**15 - 1, -(2**15), 2**31 - 1, -(2**31), 2**31, -(2**31) - 1, 2**62]
    return [np.array([0, e], dtype=np.int64) for e in edges]


def _same(spec) -> None:
    """What the page sends is byte for byte what Plotly's own encoding makes (``encoded_spec`` is checked
    against ``to_dict`` in test_plotly_private), and the typed arrays decode to the data."""
    ours = Chart.of(spec)
    assert ours.json == to_json_plotly(encoded_spec(spec))
    assert json.loads(ours.json)["data"] == json.loads(to_json_plotly(figure_of(dict(spec)).to_dict()))["data"]


@settings(max_examples=300, deadline=None)
@given(st.lists(ARRAYS, min_size=1, max_size=4), st.booleans())
def test_typed_arrays_are_what_plotly_writes(arrays, fortran):
    arrays = [np.asfortranarray(a) if fortran else a for a in arrays]
    trace = {"type": "heatmap", **{f"a{i}": a for i, a in enumerate(arrays)}}
    spec = {
        "data": [trace, {"type": "scatter", "x": arrays[0][..., ::2] if arrays[0].ndim else arrays[0]}],
        "layout": {"xaxis": {"range": arrays[0]}, "nested": {"list": [arrays[-1], {"deep": arrays[-1]}]}},
    }
    _same(spec)


def test_int64_is_narrowed_as_plotly_narrows_it():
    for a in _int64s():
        _same({"data": [{"type": "scatter", "x": a, "y": a.reshape(2, 1)}], "layout": {}})


def test_the_compare_figures_are_unchanged():
    r = compare.comparison(9, 8, 10000.0, False, 0, "all")
    figures = [
        compare.term_profile_figure(r.terms, names=r.names, positions=r.positions, causal=False),
        compare.term_grid_figure(r.terms, names=r.names, positions=r.positions, causal=False),
        compare.attention_grid_figure(r.weights, names=r.names, positions=r.positions, causal=False),
        compare.attention_row_figure(r.weights, names=r.names, positions=r.positions),
    ]
    for figure in figures:
        _same(figure)
        assert "bdata" in to_json_plotly(Chart.of(figure).spec)


def test_the_input_is_not_changed():
    a = np.arange(4, dtype=np.float32)
    spec = {"data": [{"type": "scatter", "y": a}], "layout": {}}
    out = typed_arrays(spec)
    assert spec["data"][0]["y"] is a and out["data"][0]["y"]["dtype"] == "f4"

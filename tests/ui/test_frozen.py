"""Frozen figures: the spec Streamlit sends is the figure's own, encoded once, and nothing mutates it.

These tests fail if Streamlit stops serialising a ``go.Figure`` through ``to_dict()``
or Plotly changes the private parts a frozen figure uses: ``_validate``, ``_data``, ``_layout``,
``_frame_objs`` and ``convert_to_base64`` (see ``posviz/ui/frozen.py``).
"""

from __future__ import annotations

import copy
import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots
from streamlit.testing.v1 import AppTest

from posviz.ui.frozen import FrozenFigure, freeze, spec_of


def figure() -> go.Figure:
    z = np.arange(12, dtype=np.float32).reshape(3, 4)
    return go.Figure(go.Heatmap(z=z, x=np.arange(4), y=np.arange(3)), layout=dict(title=dict(text="original")))


def test_a_frozen_figure_serialises_as_the_original():
    fig = figure()
    frozen = freeze(fig)
    assert json.loads(pio.to_json(frozen, validate=False)) == json.loads(pio.to_json(fig, validate=False))
    assert frozen.data[0].z["bdata"]  # arrays are stored encoded, once
    assert freeze(frozen) is frozen
    assert isinstance(fig.data[0].z, np.ndarray)  # the original is left as it was


def test_freezing_copies_what_to_dict_copies():
    # A figure with subplots, a tuple-valued property, several arrays and frames: spec_of is to_dict, no deepcopy.
    fig = make_subplots(rows=1, cols=2)
    fig.add_trace(go.Heatmap(z=np.eye(3, dtype=np.float32), colorscale=((0, "white"), (1, "black"))), row=1, col=1)
    fig.add_trace(go.Scatter(x=np.arange(5), y=np.arange(5) ** 2, customdata=np.ones((5, 2))), row=1, col=2)
    fig.frames = [go.Frame(data=[go.Heatmap(z=np.zeros((3, 3)))], name="0")]
    before = fig.to_json()
    spec = spec_of(fig)
    assert json.loads(pio.to_json(FrozenFigure(spec), validate=False)) == json.loads(before)
    assert spec["data"][0]["z"]["bdata"] and spec["frames"][0]["data"][0]["z"]["bdata"]
    assert spec["data"][0]["colorscale"] == [[0, "white"], [1, "black"]]
    assert fig.to_json() == before  # the figure is left as it was: arrays and all
    assert isinstance(fig.data[0].z, np.ndarray) and isinstance(fig.frames[0].data[0].z, np.ndarray)


def test_the_object_view_is_built_only_when_read():
    spec = freeze(figure()).to_dict()
    frozen = FrozenFigure(spec)
    assert "_data_objs" not in vars(frozen)  # serving (to_dict) builds nothing
    assert frozen.to_dict() is spec and frozen.to_plotly_json() is spec
    assert frozen.layout.title.text == "original"  # reading builds the view, from the stored spec
    assert frozen.data[0].type == "heatmap" and frozen.data[0].z["bdata"] == spec["data"][0]["z"]["bdata"]
    assert "_data_objs" in vars(frozen)
    assert frozen.to_dict() is spec  # and serving still sends the stored spec
    try:
        frozen.no_such_property  # noqa: B018
    except AttributeError:
        pass
    else:
        raise AssertionError("a missing attribute must raise AttributeError")


def test_plotly_skips_validation_of_a_frozen_spec():
    # A value no validator would accept: with ``_validate=False`` Plotly keeps it as given.
    bogus = {"data": [{"type": "scatter", "opacity": 7}], "layout": {}}
    assert FrozenFigure(bogus).to_dict() is bogus
    assert FrozenFigure(bogus).data[0].opacity == 7  # the object view too
    try:
        go.Figure(bogus)
    except ValueError:
        pass
    else:
        raise AssertionError("Plotly validated nothing: the test above proves nothing")


def _app() -> None:
    import streamlit as st

    from posviz.ui.frozen import FrozenFigure

    spec = st.session_state["spec"]
    st.plotly_chart(FrozenFigure(spec), key="frozen")
    st.plotly_chart(FrozenFigure(spec), key="again")


def test_streamlit_sends_the_stored_spec_and_leaves_it_alone():
    spec = freeze(figure()).to_dict()
    spec["layout"]["title"]["text"] = "stored"  # only the stored spec says this: the object view does not
    before = copy.deepcopy(spec)
    at = AppTest.from_function(_app, default_timeout=30)
    at.session_state["spec"] = spec
    at.run()
    assert not at.exception
    sent = [json.loads(el.proto.spec) for el in at.get("plotly_chart")]
    assert [s["layout"]["title"]["text"] for s in sent] == ["stored", "stored"]  # served through to_dict()
    assert sent[0]["data"][0]["z"] == before["data"][0]["z"]  # arrays as encoded once
    assert spec == before  # serving did not mutate the shared spec


def test_streamlit_encodes_a_frozen_spec_once(monkeypatch):
    """Streamlit turns a figure into JSON through ``plotly.io.to_json``: a frozen spec answers with its stored JSON.

    Fails if Streamlit stops calling ``plotly.io.to_json`` (nothing encoded through Plotly) or the
    stored JSON stops being used (encoded again on the second run).
    """
    from posviz.ui import frozen as frozen_module

    encoded = []
    real = frozen_module._plotly_to_json
    monkeypatch.setattr(frozen_module, "_plotly_to_json", lambda fig, **kw: encoded.append(fig) or real(fig, **kw))
    spec = freeze(figure()).to_dict()
    assert isinstance(spec, frozen_module.FrozenSpec) and pio.to_json is frozen_module._to_json
    at = AppTest.from_function(_app, default_timeout=30)
    at.session_state["spec"] = spec
    at.run()
    at.run()
    assert not at.exception
    sent = [el.proto.spec for el in at.get("plotly_chart")]
    assert len(encoded) == 1 and encoded[0] is spec  # two charts, two runs: one encoding
    assert sent == [real(spec, validate=False)] * 2  # exactly what Plotly itself makes of the spec
    assert pio.to_json(spec, validate=False, pretty=True) == real(
        spec, validate=False, pretty=True
    )  # other options: Plotly's own
    assert pio.to_json(spec) == real(spec)  # validated: Plotly's own too
    assert pio.to_json({"data": [], "layout": {}}, validate=False) == real({"data": [], "layout": {}}, validate=False)

"""Frozen figures: the spec Streamlit sends is the figure's own, encoded once, and nothing mutates it.

These tests fail if Streamlit stops serialising a ``go.Figure`` through ``to_dict()``
or Plotly drops the private ``_validate`` argument (see ``posviz/ui/frozen.py``).
"""

from __future__ import annotations

import copy
import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from streamlit.testing.v1 import AppTest

from posviz.ui.frozen import FrozenFigure, freeze


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


def test_plotly_skips_validation_of_a_frozen_spec():
    # A value no validator would accept: with ``_validate=False`` Plotly keeps it as given.
    bogus = {"data": [{"type": "scatter", "opacity": 7}], "layout": {}}
    assert FrozenFigure(bogus).to_dict() is bogus
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

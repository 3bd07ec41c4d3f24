"""The shared builders write specs as plain data: each is exactly what Plotly's validators make of it.

``posviz.figures.common`` and ``layout.finish`` build trace and layout dicts and skip
Plotly's validation (``posviz/figures/plotly_private.py``). Here every branch of them
(palettes, masks few and many, log colour scales, grids, rows with shared scales,
the marked step chart, RoPE's frequency panels and pair circles) goes through
``go.Figure``'s validators, and the validated figure must serialise to the same
JSON: nothing invalid ships, and nothing the validators would rewrite (a named
colour scale, a magic underscore) is left raw.
"""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from posviz.figures.common import Panel, heatmap, heatmap_grid, heatmap_row
from posviz.figures.rope import pair_circles_figure
from posviz.figures.rope_scaling import frequency_figure
from posviz.figures.t5 import bucket_profile_figure

RNG = np.random.default_rng(0)
Q, K = np.arange(12), np.arange(0, 24, 2)
SIGNED = RNG.standard_normal((12, 12)).astype(np.float32)
WEIGHTS = RNG.random((12, 12)).astype(np.float32) ** 4
DIAGONAL = np.eye(12, dtype=bool)  # few masked cells: outlined markers
UPPER = np.triu(np.ones((12, 12), dtype=bool), 1)  # many: a legend entry only


def _cases():
    common = dict(q_pos=Q, k_pos=K, title="a title", q_len=40, k_len=40)
    yield "sequential", heatmap(SIGNED, value_name="v", **common)
    yield "diverging", heatmap(SIGNED, value_name="v", palette="diverging", subtitle="signed", **common)
    yield "positive half", heatmap(np.abs(SIGNED), value_name="v", palette="diverging", **common)
    yield "negative half", heatmap(-np.abs(SIGNED), value_name="v", palette="diverging", **common)
    yield "fixed range, ints", heatmap(np.arange(144).reshape(12, 12), value_name="b", zmin=0, zmax=143, **common)
    yield "few masked", heatmap(SIGNED, value_name="v", mask=DIAGONAL, mask_label="diagonal", **common)
    yield "many masked", heatmap(SIGNED, value_name="v", mask=UPPER, mask_label="future", lecture=True, **common)
    yield "log scale", heatmap(WEIGHTS, value_name="w", log_scale=True, **common)
    big = dict(q_pos=np.arange(40), k_pos=np.arange(40), title="no cell text")
    yield "no cell text", heatmap(RNG.standard_normal((40, 40)), value_name="v", **big)
    grid = dict(q_pos=Q, k_pos=K, title="grid", value_name="v")
    titles = [f"head {h}" for h in range(5)]
    yield "grid", heatmap_grid(RNG.standard_normal((5, 12, 12)), titles=titles, **grid)
    yield (
        "grid masked",
        heatmap_grid(
            RNG.standard_normal((5, 12, 12)), titles=titles, mask=DIAGONAL, mask_label="d", lecture=True, **grid
        ),
    )
    yield (
        "grid log",
        heatmap_grid(
            np.stack([WEIGHTS, WEIGHTS.T]), titles=["a", "b"], palette="sequential", cols=2, log_scale=True, **grid
        ),
    )
    panels = [Panel(SIGNED, "left", "v", palette="diverging"), Panel(WEIGHTS, "right", "w", log_scale=True)]
    yield "row", heatmap_row(panels, q_pos=Q, k_pos=K, title="row")
    masked = [Panel(SIGNED, "left", "v", mask=UPPER), Panel(SIGNED.T, "right", "v", mask=DIAGONAL)]
    yield "row masked", heatmap_row(masked, q_pos=Q, k_pos=K, title="row", mask_label="m", lecture=True)
    shared = [Panel(SIGNED, "a", "v", palette="diverging"), Panel(2 * SIGNED, "b", "v", palette="diverging")]
    yield "row shared", heatmap_row(shared, q_pos=Q, k_pos=K, title="row", shared_scale=True)
    r = np.arange(-40, 41)
    yield (
        "step chart",
        bucket_profile_figure(
            r,
            np.minimum(np.abs(r), 20),
            max_exact=8,
            max_distance=32,
            bidirectional=True,
            last_start=30,
            view_r=(-20, 20),
        ),
    )

    inv = 10000.0 ** (-np.arange(16) / 16)
    yield (
        "frequencies, scaled",
        frequency_figure(inv / 4, seq_len=8192, default_inv_freq=inv, original_max_position=2048, method="yarn"),
    )
    yield "frequencies", frequency_figure(inv, seq_len=64, lecture=True)
    unit = np.stack([np.cos(np.arange(5.0)), np.sin(np.arange(5.0))], axis=1)
    yield "circles", pair_circles_figure(unit, unit[::-1], unit, pairs=np.arange(5), inv_freq=inv[:5], m=3, n=7)


CASES = dict(_cases())


@pytest.mark.parametrize("name", CASES)
def test_a_plain_spec_is_what_plotly_validators_make_of_it(name):
    fig = CASES[name]
    sent = fig.to_dict()  # what the app sends
    validated = go.Figure(sent)  # raises ValueError on any property Plotly does not accept
    assert json.loads(pio.to_json(validated)) == json.loads(pio.to_json(sent, validate=False))


def test_the_check_above_can_fail():
    # A property the validators would rewrite (a named colour scale), left raw: the JSON differs.
    raw = {"data": [{"type": "heatmap", "z": [[1.0]], "colorscale": "Viridis"}], "layout": {}}
    validated = go.Figure(raw)
    assert json.loads(pio.to_json(validated))["data"] != json.loads(pio.to_json(raw, validate=False))["data"]
    with pytest.raises(ValueError):
        go.Figure({"data": [{"type": "heatmap", "z": [[1.0]], "zsmooth": "sometimes"}]})

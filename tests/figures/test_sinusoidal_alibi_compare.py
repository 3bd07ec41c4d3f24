"""Sinusoidal, ALiBi and compare figures: the data each one carries, not pixels."""

from __future__ import annotations

import base64

import numpy as np
import plotly.graph_objects as go
import pytest
import torch

from posviz.encodings.alibi import alibi_bias, alibi_slope_sources, alibi_slopes
from posviz.encodings.positions import display_positions
from posviz.encodings.sinusoidal import concat_permutation, sinusoidal_inv_freq, sinusoidal_table
from posviz.figures import alibi as afig
from posviz.figures import compare as cfig
from posviz.figures import compare_properties as cprops
from posviz.figures.chart import Chart
from posviz.figures.common import MASK_COLOR
from posviz.figures.plotly_private import encoded_spec, figure_of
from posviz.figures.sinusoidal import similarity as ssim
from posviz.figures.sinusoidal import table as stab
from posviz.schemes import COMPARE_SETS, COMPARED, compared_in


def test_table_figure_carries_the_table_and_says_when_strided():
    pos = torch.tensor([0, 10, 20, 29])
    table = sinusoidal_table(pos, 8, layout="concat")
    f = stab.table_figure(table.numpy(), positions=pos.numpy(), seq_len=30, layout="concat", base=10000.0)
    (trace,) = [t for t in f.data if t.type == "heatmap"]
    z = np.asarray(trace.z)
    # stride 10: pair 0 (wavelength 2 pi, components 0 and 4 in concat) is below two strides: left out
    np.testing.assert_array_equal(np.isnan(z).all(0), [True, False, False, False, True, False, False, False])
    np.testing.assert_array_equal(z[:, ~np.isnan(z).all(0)], table.numpy()[:, [1, 2, 3, 5, 6, 7]])
    assert z.dtype == np.float32
    assert list(trace.y) == [0, 10, 20, 29]
    assert "concat" in f.layout.title.text and "Strided sample: 4 of 30" in f.layout.title.subtitle.text
    assert f.layout.xaxis.title.text and f.layout.yaxis.title.text == "position p"
    assert any("aliased" in (t.name or "") for t in f.data if t.showlegend)


def test_table_at_131072_tokens_draws_no_aliasing_noise():
    """Every shown column must be a signal the sample can carry: wavelength >= two strides."""
    dim, seq_len = 64, 131072
    pos = display_positions(seq_len, 192)
    stride = int(pos[1] - pos[0])
    table = sinusoidal_table(pos, dim).numpy()
    f = stab.table_figure(table, positions=pos.numpy(), seq_len=seq_len, layout="interleaved", base=10000.0)
    z = np.asarray(next(t for t in f.data if t.type == "heatmap").z)
    waves = (2 * np.pi / sinusoidal_inv_freq(dim).numpy()).repeat(2)  # interleaved: sin, cos of each pair
    shown = ~np.isnan(z).all(0)
    assert (waves[shown] >= 2 * stride).all() and (waves[~shown] < 2 * stride).all()
    assert 0 < shown.sum() < dim  # the slow half still shows its waves
    assert f"{int((~shown).sum())} of {dim} components" in f.layout.title.subtitle.text.replace("<br>", " ")


def test_waves_draw_an_aliased_component_as_its_band():
    seq_len, dim = 131072, 64
    pos = display_positions(seq_len, 1000)
    comps = [0, 1, 32, 63]  # pair 0 (aliased at stride 132), pair 16, pair 31
    values = sinusoidal_table(pos, dim)[:, comps].numpy()
    labels = [f"component {c}" for c in comps]
    wavelengths = 2 * np.pi * 10000.0 ** (2 * (np.array(comps) // 2) / dim)  # interleaved: pair = component // 2
    f = stab.waves_figure(
        pos.numpy(), values, components=comps, labels=labels, seq_len=seq_len, wavelengths=wavelengths
    )
    by_name = {t.name.split(":")[0]: t for t in f.data}
    for c in (0, 1):  # wavelength 6.3 < 2 x 132: a band from -1 to 1, not the samples
        band = by_name[f"component {c}"]
        assert band.fill == "toself" and sorted(set(band.y)) == [-1, 1] and "aliased" in band.name
    for c in (32, 63):  # slow enough: the wave itself
        np.testing.assert_allclose(by_name[f"component {c}"].y, values[:, comps.index(c)])
    assert "shaded: aliased" in f.layout.title.subtitle.text
    plain = stab.waves_figure(pos.numpy(), values, components=comps, labels=labels, seq_len=seq_len)
    assert not any(t.fill for t in plain.data)  # without wavelengths the figure cannot know: unchanged


def test_layouts_figure_permutation_maps_interleaved_to_concat():
    pos = torch.arange(6)
    inter, concat = sinusoidal_table(pos, 8), sinusoidal_table(pos, 8, layout="concat")
    f = stab.layouts_figure(inter.numpy(), concat.numpy(), concat_permutation(8).numpy(), positions=pos.numpy())
    p = np.asarray(f.data[2].z).astype(np.float32)  # (interleaved, concat)
    np.testing.assert_allclose(inter.numpy() @ p, concat.numpy())


def test_profile_figure_measured_points_lie_on_the_curve():
    r = np.arange(1, 50)
    closed = np.cos(r[:, None] * 10000.0 ** (-np.arange(0, 8, 2) / 8)).sum(-1)
    f = ssim.profile_figure(r, closed, {"from p = 0": closed + 1e-9}, dim=8)
    assert [t.mode for t in f.data] == ["lines", "markers"]
    np.testing.assert_allclose(np.asarray(f.data[1].y), np.asarray(f.data[0].y), atol=1e-6)
    assert f.layout.xaxis.type == "log"


def test_slopes_figure_splits_borrowed_slopes():
    s = alibi_slopes(12).numpy()
    f = afig.slopes_figure(s, closest=8)
    assert len(f.data) == 2
    np.testing.assert_allclose(np.asarray(f.data[0].y), s[:8], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(f.data[1].y), s[8:], rtol=1e-6)
    assert list(f.data[1].x) == [9, 10, 11, 12]
    assert f.layout.yaxis.type == "log"


def test_interleave_figure_marks_every_other_doubled_slope():
    src = alibi_slope_sources(12)
    f = afig.interleave_figure(src.base.numpy(), src.doubled.numpy(), src.extra.numpy(), heads=12)
    doubled = f.data[1]
    taken = [c == afig.EXTRA_COLOR for c in doubled.marker.color]
    assert taken == [True, False, True, False, True, False, True, False] + [False] * 8
    assert "not a power of two" in f.layout.title.subtitle.text


def test_bias_grid_one_sided_log_scale_and_masked_future_keys():
    """All biases are <= 0: no wasted positive half, and every head shows its gradient, flat ones too."""
    n, heads = 64, 8
    pos = torch.arange(n)
    bias = alibi_bias(pos, pos, heads).numpy()
    f = afig.bias_grid_figure(
        bias,
        heads_shown=np.arange(heads),
        slopes=alibi_slopes(heads).numpy(),
        q_pos=pos.numpy(),
        k_pos=pos.numpy(),
        seq_len=n,
        causal=True,
        heads=heads,
    )
    maps = [t for t in f.data if t.type == "heatmap"]
    assert len(maps) == heads
    axis = f.layout.coloraxis
    assert axis.cmid is None  # one-sided: light (near 0) to dark blue (most negative), no red half
    assert axis.colorscale == go.layout.Coloraxis(colorscale="Blues").colorscale
    assert axis.cmax == pytest.approx(np.log10(np.abs(bias).max()), rel=1e-6)  # the largest |bias|: darkest
    assert all(text.startswith(("−", "≥ −")) for text in axis.colorbar.ticktext)  # labelled in bias values
    future = pos.numpy()[None, :] > pos.numpy()[:, None]
    for h, t in enumerate(maps):
        z = np.asarray(t.z, dtype=np.float64)
        assert np.isnan(z[future]).all()
        np.testing.assert_allclose(np.asarray(t.customdata)[..., 1][~future], bias[h][~future], rtol=1e-6)
        # every head spans at least a third of the colour scale: none looks blank
        assert np.nanmax(z) - np.nanmin(z) > (axis.cmax - axis.cmin) / 3, h
    (entry,) = [t for t in f.data if t.type == "scatter" and t.showlegend]
    assert "future" in entry.name and f.layout.plot_bgcolor == MASK_COLOR
    assert "masked" in f.layout.title.subtitle.text


def test_bias_grid_window_states_window_and_stride_and_masks_by_true_positions():
    """A zoom around position 100 000 of 131 072: the cells are the window's, the subtitle says so."""
    q, k = torch.arange(100_000, 100_040), torch.arange(99_980, 100_020)
    bias = alibi_bias(q, k, 4).numpy()
    f = afig.bias_grid_figure(
        bias,
        heads_shown=np.arange(4),
        slopes=alibi_slopes(4).numpy(),
        q_pos=q.numpy(),
        k_pos=k.numpy(),
        seq_len=131_072,
        causal=True,
        heads=4,
    )
    maps = [t for t in f.data if t.type == "heatmap"]
    assert list(maps[0].y) == list(range(100_000, 100_040)) and list(maps[0].x) == list(range(99_980, 100_020))
    sub = f.layout.title.subtitle.text
    assert "Window" in sub and "i = 100000…100039" in sub and "j = 99980…100019" in sub and "every one" in sub
    future = k.numpy()[None, :] > q.numpy()[:, None]  # key after query: 20 columns right of the diagonal
    assert future[0, 21] and not future[0, 20]
    z = np.asarray(maps[3].z, dtype=np.float64)
    assert np.isnan(z[future]).all() and np.isfinite(z[~future]).all()
    np.testing.assert_allclose(np.asarray(maps[3].customdata)[0, 0, 1], -20 * alibi_slopes(4)[3].item(), rtol=1e-6)


def test_receptive_field_figure_has_a_line_per_head_and_reach_markers():
    d = np.arange(0, 100)
    w = np.exp(-np.outer([0.5, 0.01], d))
    f = afig.receptive_field_figure(
        d,
        w / w.sum(-1, keepdims=True),
        np.array([4, 99]),
        heads_shown=np.array([0, 7]),
        slopes=np.array([0.5, 0.01]),
        seq_len=100,
    )
    assert len(f.data) == 3 and list(f.data[2].customdata) == [4, 99]
    assert f.layout.xaxis.type == "log" and f.layout.yaxis.type == "log"


def test_compare_run_terms_and_figures():
    v = cfig.comparison.__wrapped__(12, 16, 10000.0, True, 0)
    assert v.terms.shape == (8, 12, 12) and v.weights.shape == (8, 12, 12)
    np.testing.assert_allclose(np.nansum(v.weights, -1), 1.0, rtol=1e-5)
    mask = np.triu(np.ones((12, 12), dtype=bool), 1)  # causal: the future keys
    assert np.all(v.terms[0][~mask] == 0)  # none: no position term
    assert np.isnan(v.terms[1][0, 1])  # masked
    # ALiBi's term is exactly -m (i - j); T5's is constant along diagonals
    alibi = v.terms[v.names.index("ALiBi")]
    np.testing.assert_allclose(alibi[5, 2], -0.125 * 3, rtol=1e-5)
    t5 = v.terms[v.names.index("T5")]
    assert np.allclose(np.diag(t5, -3), np.diag(t5, -3)[0])
    f = cfig.term_grid_figure(v.terms, names=v.names, positions=v.positions, causal=True)
    assert len(f["data"]) == 8 and f["layout"]["coloraxis"]["cmid"] == 0
    g = cfig.attention_grid_figure(v.weights, names=v.names, positions=v.positions, causal=True)
    maps = [t for t in g["data"] if t["type"] == "heatmap"]
    assert len(maps) == 8 and g["layout"]["coloraxis"]["colorbar"]["title"]["text"] == "weight (log)"
    masked = ~np.isfinite(v.weights) | (v.weights == 0)
    assert masked.any() and all(np.isnan(np.asarray(t["z"]))[masked[h]].all() for h, t in enumerate(maps))
    assert [t["name"] for t in g["data"] if t["type"] == "scatter"] == ["masked keys"]  # their own legend entry
    p = cfig.term_profile_figure(v.terms, names=v.names, positions=v.positions, causal=True)
    assert list(np.asarray(p["data"][0]["x"])) == list(range(12)) and len(p["data"]) == 8


def test_compare_specs_are_plain_and_encoded_as_plotly_encodes_them():
    """The builders write plain data; the chart encodes it as a Plotly figure of it would (``to_dict``), without
    building one, and leaves the builder's arrays as they were."""
    v = cfig.comparison.__wrapped__(9, 8, 10000.0, False, 2)
    specs = [
        cfig.term_profile_figure(v.terms, names=v.names, positions=v.positions, causal=False, colours=v.colours),
        cfig.term_grid_figure(v.terms, names=v.names, positions=v.positions, causal=False, lecture=True),
        cfig.attention_grid_figure(v.weights, names=v.names, positions=v.positions, causal=False),
        cfig.attention_row_figure(v.weights, names=v.names, positions=v.positions),
    ]
    for spec in specs:
        assert isinstance(spec, dict) and not isinstance(spec, go.Figure)
        arrays = [t["z"] for t in spec["data"] if isinstance(t.get("z"), np.ndarray)]
        assert Chart.of(spec).spec == figure_of(spec).to_dict()
        assert all(isinstance(t.get("z"), np.ndarray) for t in spec["data"] if "z" in t)  # not encoded in place
        assert all(a is t["z"] for a, t in zip(arrays, [t for t in spec["data"] if "z" in t], strict=False))
    tuples = {"data": [{"type": "scatter", "x": (1, 2), "y": np.arange(2.0), "marker": {"color": ("a", "b")}}]}
    assert encoded_spec(tuples) == figure_of(tuples).to_dict()


def array(value) -> np.ndarray:
    """A spec's array: a list, or Plotly's ``{"dtype", "bdata", "shape"}`` (base64 numpy)."""
    if isinstance(value, dict):
        out = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        return out.reshape([int(n) for n in str(value["shape"]).split(",")]) if "shape" in value else out
    return np.asarray(value)


def test_compare_figure_functions_draw_the_run():
    """The page's figure functions draw the shared run's arrays for exactly their settings."""
    toy = dict(seq_len=10, dim=8, base=500.0, causal=False, seed=4)
    v = cfig.comparison.__wrapped__(10, 8, 500.0, False, 4)
    assert not v.positions.flags.writeable and not v.terms.flags.writeable  # shared: read-only
    spec = cfig.term_grid(**toy).spec
    for h, trace in enumerate(t for t in spec["data"] if t["type"] == "heatmap"):
        np.testing.assert_array_equal(array(trace["z"]).reshape(10, 10), v.terms[h])
    row = cfig.attention_row(**toy).spec
    for s, trace in enumerate(row["data"]):
        np.testing.assert_array_equal(array(trace["y"]), v.weights[s][-1].astype(np.float32))
    assert cfig.term_grid(**toy, lecture=True).spec["layout"]["font"]["size"] > spec["layout"]["font"]["size"]
    other = cfig.term_grid(**{**toy, "seed": 5}).spec
    assert array(other["data"][1]["z"]).tolist() != array(spec["data"][1]["z"]).tolist()


def test_compare_table_counts_parameters_from_the_settings():
    t = cprops.properties(seq_len=20, dim=32, base=10000.0, seed=1, causal=False).set_index("scheme")
    assert t.loc["learned absolute", "parameters"] == 20 * 32
    assert t.loc["Shaw", "parameters"] == 2 * 17 * 32
    assert t.loc["sinusoidal", "parameters"] == 0 and t.loc["RoPE", "parameters"] == 0
    assert "time (µs, median)" not in t.columns  # dropped: it measured the server's load, not the scheme
    assert (
        t.loc["none", "position tensors (bytes)"] == 0
        and t.loc["sinusoidal", "position tensors (bytes)"] == 20 * 32 * 4
    )
    assert "distance 8" in t.loc["Shaw", "stops distinguishing distances at"]
    # not causal: every key visible, weights are dense
    v = cfig.comparison.__wrapped__(20, 32, 10000.0, False, 1)
    assert (v.weights[0] > 0).all()


def test_compare_names_order_and_colours_come_from_the_registry():
    every = cfig.comparison.__wrapped__(6, 8, 10000.0, True, 0, "all")
    assert every.names == tuple(c.short for c in COMPARED) and every.terms.shape[0] == len(COMPARED)
    for selection in COMPARE_SETS:
        v = cfig.comparison.__wrapped__(6, 8, 10000.0, True, 0, selection)
        chosen = compared_in(selection)
        assert v.names == tuple(c.short for c in chosen) and v.terms.shape[0] == len(chosen)
        for figure in (cfig.term_profile_figure, cfig.attention_row_figure):
            data = v.terms if figure is cfig.term_profile_figure else v.weights
            kw = dict(causal=True) if figure is cfig.term_profile_figure else {}
            f = figure(data, names=v.names, positions=v.positions, colours=v.colours, **kw)
            assert [t["name"] for t in f["data"]] == [c.short for c in chosen]
            assert [t["line"]["color"] for t in f["data"]] == [c.compared.colour for c in chosen if c.compared]
    assert cfig.comparison(6, 8, 10000.0, True, 0).names == cfig.comparison(6, 8, 10000.0, True, 0, "core").names
    plain = cfig.attention_row_figure(v.weights, names=v.names, positions=v.positions)
    assert all("color" not in t["line"] for t in plain["data"])  # no colours given: Plotly's own

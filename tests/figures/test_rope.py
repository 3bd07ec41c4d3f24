"""RoPE figures: the data each one carries (trace types, z, axis titles, hover), not pixels."""

from __future__ import annotations

import base64
import math

import numpy as np
import plotly.graph_objects as go
import pytest
import torch

from posviz.encodings.rope import layout_permutation, rope_inv_freq, rope_rotation_matrix, seeded_qk
from posviz.encodings.rope_scaling import rope_scaling
from posviz.figures import rope as rope_fig
from posviz.figures import rope_scaling as scaling_fig
from posviz.figures import rope_scores as scores_fig
from posviz.figures.rope import pair_circles_figure, permutation_figure, rotation_matrix_figure
from posviz.figures.rope_scaling import angle_figure, frequency_figure, scaling_freq_figure
from posviz.figures.rope_scores import attention_figure, decay_figure, score_matrix_figure, shift_figure


def _ys(fig: go.Figure, name_part: str) -> np.ndarray:
    return np.concatenate([np.asarray(t.y, dtype=np.float64) for t in fig.data if name_part in (t.name or "")])


def test_frequency_figure_marks_pairs_without_a_full_turn():
    inv = rope_inv_freq(64).numpy()
    fig = frequency_figure(inv, seq_len=16384)
    wave = 2 * math.pi / inv
    slow = [t for t in fig.data if t.name.startswith("never")]
    assert len(slow) == 2  # one per panel
    assert sorted(np.asarray(slow[1].y).tolist()) == sorted(wave[wave > 16384].astype(np.float32).tolist())
    assert "4 of 32 pairs never complete a turn" in fig.layout.title.subtitle.text
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis2.type == "log"
    assert any(s.y0 == 16384 for s in fig.layout.shapes)
    # Plotly.js places an annotation on a log axis by log10: the label sits at its line, inside the plot.
    (label,) = [a for a in fig.layout.annotations if a.text == "seq_len = 16384"]
    assert label.yref == "y2" and label.y == math.log10(16384)
    for t in fig.data:
        assert np.asarray(t.y).dtype == np.float32
        assert "pair k" in t.hovertemplate


def test_frequency_figure_overlays_default_when_scaled():
    inv, _ = rope_scaling("linear", 16, factor=4.0, original_max_position=64)
    fig = frequency_figure(
        inv.numpy(), seq_len=256, default_inv_freq=rope_inv_freq(16).numpy(), original_max_position=64, method="linear"
    )
    default = [t for t in fig.data if t.name == "default (no scaling)"]
    assert len(default) == 2
    np.testing.assert_allclose(default[0].y, rope_inv_freq(16).numpy(), rtol=1e-6)
    assert any(s.y0 == 64 for s in fig.layout.shapes)
    labels = {a.text: a.y for a in fig.layout.annotations if a.yref == "y2"}
    assert labels == {"seq_len = 256": math.log10(256), "original context = 64": math.log10(64)}


def test_rotation_and_permutation_matrices():
    rot = rope_rotation_matrix(3, 8, layout="half").numpy()
    fig = rotation_matrix_figure(rot, position=3, layout="half")
    (trace,) = fig.data
    np.testing.assert_array_equal(np.asarray(trace.z), rot)
    assert (trace.zmin, trace.zmax) == (-1, 1)
    assert fig.layout.xaxis.title.text == "input component" and fig.layout.yaxis.title.text == "output component"
    assert "m = 3" in fig.layout.title.text and trace.texttemplate  # 8 x 8: values written in cells

    perm = layout_permutation(8).numpy()
    p = np.asarray(permutation_figure(perm).data[0].z)
    assert p.sum() == 8 and (p.sum(0) == 1).all() and (p.sum(1) == 1).all()
    assert [int(np.argmax(row)) for row in p] == perm.tolist()


def test_pair_circles_arrows_end_at_the_pairs():
    at = np.array([[1.0, 0.0], [0.0, 1.0], [math.cos(1), math.sin(1)]], dtype=np.float32)
    fig = pair_circles_figure(
        at, at[::-1], at, pairs=np.array([0, 5, 9]), inv_freq=np.array([1.0, 0.1, 0.01]), m=4, n=9
    )
    arrows = [t for t in fig.data if t.name == "position m = 4"]
    assert len(arrows) == 3
    for i, t in enumerate(arrows):
        assert np.allclose([t.x[-1], t.y[-1]], at[::-1][i])
        assert t.marker.symbol[-1] == "arrow"
    assert "k = 5" in fig.layout.annotations[1].text
    assert "turned by 4·θ" in arrows[0].hovertemplate


def test_score_and_shift_figures():
    scores = np.arange(16.0).reshape(4, 4)
    fig = score_matrix_figure(scores, positions=np.arange(4))
    assert fig.layout.xaxis.title.text == "key position j"
    assert "j − i" in fig.layout.title.subtitle.text
    shift = shift_figure(np.array([1, 10, 100]), np.array([2.0, 2.0, 2.0 + 1e-12]), m=1, n=2)
    assert shift.layout.xaxis.type == "log"
    assert "10⁻¹²" in shift.layout.title.subtitle.text


def test_decay_figure_relative_to_zero_with_envelope():
    r = np.array([0, 1, 2, 3, 10])
    bound = np.array([4.0, 3.0, 3.2, 2.0, 1.0])
    fig = decay_figure(r, bound, bound * 2, np.ones(5), dim=6, seq_len=11, samples=7)
    assert fig.layout.xaxis.type == "log"
    (b,) = [t for t in fig.data if t.name.startswith("RoFormer")]
    np.testing.assert_allclose(b.x, [1, 2, 3, 10])  # r = 0 is the reference, not drawn on a log axis
    np.testing.assert_allclose(b.y, [0.75, 0.8, 0.5, 0.25])
    (env,) = [t for t in fig.data if t.name.startswith("its envelope")]
    np.testing.assert_allclose(env.y, [0.8, 0.8, 0.5, 0.25])  # max at this distance or beyond
    assert "rises again at 1 of 3 steps" in fig.layout.title.subtitle.text
    assert "7 random" in fig.layout.title.subtitle.text


def test_scaling_figures():
    default = rope_inv_freq(16)
    ratios, att = {}, {}
    for method in ("default", "linear", "yarn"):
        inv, a = rope_scaling(method, 16, factor=4.0, original_max_position=64)
        ratios[method], att[method] = (inv / default).numpy(), a
    fig = scaling_freq_figure(ratios, att, chosen="yarn", factor=4.0)
    assert fig.layout.yaxis.type == "log"
    (lin,) = [t for t in fig.data if t.name.startswith("linear")]
    np.testing.assert_allclose(lin.y, 0.25)
    (yarn,) = [t for t in fig.data if t.name.startswith("yarn")]
    assert yarn.line.width > lin.line.width and f"{0.1 * math.log(4) + 1:.4g}" in yarn.name

    pos = np.arange(0, 200, 10)
    k = [0, 7]
    inv, _ = rope_scaling("linear", 16, factor=4.0, original_max_position=64)
    d_ang = pos[:, None] * default.numpy()[k][None, :]
    s_ang = pos[:, None] * inv.numpy()[k][None, :]
    fig = angle_figure(
        pos, d_ang, s_ang, pairs=k, trained=default.numpy()[k] * 63, original_max_position=64, method="linear"
    )
    scaled = [t for t in fig.data if t.name == "linear"]
    np.testing.assert_allclose(scaled[0].y, s_ang[:, 0] / (2 * math.pi), rtol=1e-6)
    greens = [s for s in fig.layout.shapes if s.line.color == "#2ca02c"]
    assert math.isclose(greens[1].y0, float(default[7]) * 63 / (2 * math.pi), rel_tol=1e-9)
    only_default = angle_figure(
        pos, d_ang, d_ang, pairs=k, trained=d_ang[-1], original_max_position=64, method="default"
    )
    assert {t.name for t in only_default.data} == {"default"}


def test_attention_figure_panels():
    w = torch.softmax(torch.randn(3, 5, 5), dim=-1).numpy()
    fig = attention_figure(w, positions=list(range(5)), titles=["a", "b", "c"])
    maps = [t for t in fig.data if t.type == "heatmap"]
    assert len(maps) == 3 and [a.text for a in fig.layout.annotations][:3] == ["a", "b", "c"]
    future = np.triu(np.ones((5, 5), dtype=bool), 1)  # causal: masked, with a legend entry
    np.testing.assert_allclose(np.asarray(maps[1].customdata)[..., 1][~future], w[1][~future], rtol=1e-6)
    assert np.isnan(np.asarray(maps[1].z)[future]).all()
    np.testing.assert_allclose(np.asarray(maps[1].z)[~future], np.log10(np.clip(w[1], 1e-4, None))[~future], rtol=1e-5)


# --- the figures by plain arguments ------------------------------------------------------------------

FREQ = dict(dim=16, base=10000.0, factor=4.0, original_max_position=64)


def _array(value) -> np.ndarray:
    """A spec array: a list, or Plotly's ``{"dtype", "bdata"}`` (base64 numpy)."""
    if isinstance(value, dict):
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
    return np.asarray(value)


def test_frequencies_draw_the_method_s_frequencies():
    yarn = (("attention_factor", None), ("beta_fast", 8.0), ("beta_slow", 1.0))
    yarn += (("mscale", None), ("mscale_all_dim", None), ("truncate", False))
    chart = scaling_fig.frequencies(**FREQ, method="yarn", options=yarn, seq_len=300)
    inv, _ = rope_scaling("yarn", 16, factor=4.0, original_max_position=64, beta_fast=8.0, truncate=False)
    left = [t for t in chart.spec["data"] if "turn" in t["name"] and t.get("xaxis", "x") == "x"]
    pairs = np.concatenate([_array(t["x"]) for t in left])
    drawn = np.concatenate([_array(t["y"]) for t in left])
    assert sorted(pairs.tolist()) == list(range(8))
    np.testing.assert_allclose(drawn[np.argsort(pairs)], inv.numpy(), rtol=1e-6)  # float32 on the page
    assert "frequencies of the yarn method" in chart.spec["layout"]["title"]["subtitle"]["text"]


def test_the_scaling_comparison_leaves_out_a_method_whose_rule_fails():
    chart = scaling_fig.scaling_frequencies(
        dim=2, base=10000.0, factor=4.0, original_max_position=64, method="linear", options=(), seq_len=300
    )
    names = [t["name"].split(" ")[0] for t in chart.spec["data"]]
    assert names == ["default", "linear", "yarn", "llama3"]  # dynamic NTK needs dim >= 4
    assert chart.csv().splitlines()[0] == "pair k,default,linear,yarn,llama3"


def test_frequency_notes():
    notes = scaling_fig.frequency_notes(**FREQ, method="linear", options=(), seq_len=300)
    theta = 10000.0 ** (-np.arange(0, 16, 2) / 16) / 4
    wave = 2 * math.pi / theta
    assert notes.pairs == 8 and notes.never_turning == int((wave > 300).sum()) == 5  # 794 .. 79477 tokens
    assert notes.fastest_wavelength == pytest.approx(wave[0], rel=1e-12)
    assert notes.slowest_wavelength == pytest.approx(wave[-1], rel=1e-12)
    assert notes.fastest_ratio == notes.slowest_ratio == 0.25 and notes.attention_factor == 1.0


def test_circles_draw_unit_pairs_of_the_seed_s_vector():
    chart = rope_fig.circles(**FREQ, method="default", options=(), layout="half", seed=2, m=3, n=9)
    q, _ = seeded_qk(16, 2)
    frame = chart.csv().splitlines()
    assert frame[0] == "pair k,x at 0,y at 0,x at m,y at m,x at n,y at n"
    rows = np.array([[float(v) for v in line.split(",")] for line in frame[1:]])
    k = rows[:, 0].astype(int)
    assert list(k) == [0, 1, 2, 3, 4, 5, 6, 7]  # d = 16: every pair
    z0 = (q[k] + 1j * q[k + 8]).numpy()  # half-split: pair k is (x[k], x[k + 8])
    theta = 10000.0 ** (-2 * k / 16)
    for col, pos in ((1, 0), (3, 3), (5, 9)):
        z = z0 * np.exp(1j * pos * theta)
        np.testing.assert_allclose(rows[:, col] + 1j * rows[:, col + 1], z / np.abs(z), atol=1e-12)


def test_relative_numbers_measure_the_relative_property():
    r = scores_fig.relative_numbers(
        **FREQ, method="default", options=(), layout="interleaved", seed=0, m=2, n=5, seq_len=300
    )
    q, k = seeded_qk(16, 0)
    theta = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    zq, zk = (q[0::2] + 1j * q[1::2]).numpy(), (k[0::2] + 1j * k[1::2]).numpy()
    want = float(np.real(np.sum(np.conj(zq) * zk * np.exp(1j * 3 * theta))))  # q . R_(n-m) k
    assert r.score == pytest.approx(want, abs=1e-12) and r.shifted == pytest.approx(want, abs=1e-12)
    assert r.last_shift == 300 and r.gap64 < 1e-13 and r.gap32 < 1e-5

"""RoPE figures: the data each one carries (trace types, z, axis titles, hover), not pixels."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import torch

from posviz.encodings.rope import layout_permutation, rope_inv_freq, rope_rotation_matrix
from posviz.encodings.rope_scaling import rope_scaling
from posviz.figures.rope import (
    angle_figure,
    attention_figure,
    decay_figure,
    frequency_figure,
    pair_circles_figure,
    permutation_figure,
    rotation_matrix_figure,
    scaling_freq_figure,
    score_matrix_figure,
    shift_figure,
)


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

"""CoPE figures: the data each one carries (z, masks, clamp markers, escaped tokens, titles)."""

from __future__ import annotations

import numpy as np
import torch

from posviz.encodings.cope import cope_positions, key_gates
from posviz.figures.common import MASK_COLOR
from posviz.figures.cope import (
    ATTENTION_TITLES,
    attention_figure,
    gates_figure,
    position_logits_figure,
    positions_figure,
    token_label,
)
from posviz.figures.cope_pitfall import pitfall_difference_figure, pitfall_figure
from posviz.figures.cope_query import counting_figure, interpolation_figure

N = 8
POS = np.arange(N)
FUTURE = POS[None, :] > POS[:, None]
TOKENS = ["The", "<b>", "sat", ".", "It", "&amp;", "ran", "!"]


def _gates() -> np.ndarray:
    return key_gates(torch.ones(N), torch.arange(N), torch.arange(N)).numpy()


def test_gates_figure_masks_future_and_labels_tokens():
    fig = gates_figure(_gates(), FUTURE, q_pos=POS, k_pos=POS, n=N, tokens=TOKENS, subtitle="count-tokens")
    trace = fig.data[0]
    z = np.asarray(trace.z, dtype=np.float64)
    assert np.isnan(z[FUTURE]).all() and (z[~FUTURE] == 1).all()
    assert (trace.zmin, trace.zmax) == (0.0, 1.0)
    assert fig.layout.plot_bgcolor == MASK_COLOR
    assert any("masked before the gates" in t.name for t in fig.data if t.showlegend)  # a legend entry
    ticks = list(fig.layout.xaxis.ticktext)
    assert ticks[1] == "1 &lt;b&gt;" and ticks[5] == "5 &amp;amp;"  # escaped, shown literally by Plotly
    assert fig.layout.yaxis.title.text == "query position i"
    assert fig.layout.height >= 20 * N + 260


def test_no_token_ticks_for_long_views():
    pos = np.arange(0, 200, 4)
    fig = gates_figure(
        np.zeros((50, 50)), pos[None, :] > pos[:, None], q_pos=pos, k_pos=pos, n=200, tokens=["x"] * 200, subtitle=""
    )
    assert fig.layout.xaxis.ticktext is None
    assert "Strided sample" in fig.layout.title.subtitle.text


def test_positions_figure_marks_clamped_cells():
    gates = torch.from_numpy(_gates())
    raw = cope_positions(gates, npos_max=100).numpy()
    pos = cope_positions(gates, npos_max=4).numpy()
    clamped = raw > 3
    fig = positions_figure(pos, FUTURE, clamped, npos_max=4, q_pos=POS, k_pos=POS, n=N, tokens=None)
    heat, marks = fig.data[0], next(t for t in fig.data if (t.name or "").startswith("clamped"))
    assert heat.zmax == 3.0
    assert len(marks.x) == int(clamped.sum()) > 0
    for x, y in zip(marks.x, marks.y, strict=True):
        assert y - x + 1 > 3  # i - j + 1 exceeds the clamp
    assert f"{int(clamped.sum())} shown cells" in fig.layout.title.subtitle.text
    none = positions_figure(pos, FUTURE, np.zeros_like(clamped), npos_max=4, q_pos=POS, k_pos=POS, n=N, tokens=None)
    assert not [t for t in none.data if (t.name or "").startswith("clamped")]
    assert "no shown cell" in none.layout.title.subtitle.text


def test_interpolation_figure():
    z = np.array([0.0, 1.0, 3.0, -1.0], dtype=np.float32)
    fig = interpolation_figure(z, query=5, key=2, p=1.25, floor=1, ceil=2, w=0.25, value=1.5)
    line, ends, star = fig.data
    assert list(np.asarray(line.y)) == list(z)
    assert list(np.asarray(ends.x)) == [1.0, 2.0] and list(np.asarray(ends.y)) == [1.0, 3.0]
    assert float(star.x[0]) == 1.25 and float(star.y[0]) == 1.5
    assert "0.25 · z_i[2] + 0.75 · z_i[1]" in fig.layout.title.subtitle.text
    assert fig.layout.xaxis.title.text == "position p"


def test_position_logits_and_attention_figures():
    z = np.random.default_rng(0).standard_normal((N, N)).astype(np.float32)
    fig = position_logits_figure(z, FUTURE, q_pos=POS, k_pos=POS, n=N, tokens=None)
    assert fig.data[0].zmid == 0.0 and np.isnan(np.asarray(fig.data[0].z, dtype=float)[FUTURE]).all()
    a = np.tril(np.ones((N, N), dtype=np.float32))
    grid = attention_figure(a, a * 0.5, a * 0.25, q_pos=POS, k_pos=POS, n=N)
    assert [t.type for t in grid.data] == ["heatmap"] * 3 + ["scatter"]  # + the masked keys' legend entry
    assert [ann.text for ann in grid.layout.annotations] == list(ATTENTION_TITLES)
    for h, t in enumerate(grid.data[:3]):  # log colour, true weights in the hover, future keys masked
        assert np.isnan(np.asarray(t.z, dtype=float)[FUTURE]).all()
        np.testing.assert_allclose(np.asarray(t.customdata)[..., 1][~FUTURE], (a * 0.5**h)[~FUTURE])
    assert grid.layout.coloraxis.cmax == 0.0  # log10 of the largest weight, 1


def test_counting_figure():
    d = np.arange(6)
    p = np.array([1, 1, 2, 2, 3, 3], dtype=np.float32)
    fig = counting_figure(d, p, 5 - d, ["a", "<i>", "c", ".", "e", "f"], query=5, npos_max=4, sampled=False)
    bar, line = fig.data
    assert bar.type == "bar" and list(np.asarray(bar.y)) == list(p)
    assert list(np.asarray(line.y)) == [1, 2, 3, 3, 3, 3]  # i - j + 1, clamped at 3
    assert bar.customdata[1][1] == "&lt;i&gt;"
    assert fig.layout.xaxis.title.text == "token distance i − j"
    assert "strided" not in (fig.layout.title.subtitle.text or "")


def test_pitfall_figures():
    right = np.tril(np.ones((N, N), dtype=np.float32))
    wrong = right + 2 * np.tril(np.ones((N, N), dtype=np.float32))
    fig = pitfall_figure(right, wrong, q_pos=POS, k_pos=POS, n=N)
    assert [t.type for t in fig.data] == ["heatmap", "heatmap", "scatter"]
    assert np.isnan(np.asarray(fig.data[1].z, dtype=float)[FUTURE]).all()
    assert "future" in fig.data[2].name and fig.data[2].showlegend
    diff = pitfall_difference_figure(wrong - right, q_pos=POS, k_pos=POS, n=N)
    z = np.asarray(diff.data[0].z, dtype=float)
    assert (z[~FUTURE] == 2).all() and np.isnan(z[FUTURE]).all()


def test_token_label_escapes_and_shortens():
    assert token_label("<script>") == "&lt;script&gt;"
    assert token_label("x" * 30).endswith("…") and len(token_label("x" * 30)) == 12

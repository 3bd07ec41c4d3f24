"""Shaw figures: the data each one carries."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest
import torch

from posviz.encodings.shaw import shaw_index, shaw_table
from posviz.figures.memory import bytes_figure, human_bytes
from posviz.figures.shaw import index_figure, relations_figure, table_figure
from posviz.figures.shaw_toy import attention_figure, scores_figure, value_term_figure

L, K = 12, 3
POS = torch.arange(L)


def heatmaps(fig: go.Figure) -> list[go.Heatmap]:
    return [t for t in fig.data if isinstance(t, go.Heatmap)]


def test_index_figure_has_the_three_matrices_and_the_clip_lines():
    rel = (POS[None, :] - POS[:, None]).numpy()
    idx = shaw_index(POS, POS, clip=K).numpy()
    fig = index_figure(rel, idx, clip=K, q_pos=POS, k_pos=POS, q_len=L, k_len=L)
    h = heatmaps(fig)
    assert len(h) == 3
    np.testing.assert_array_equal(np.asarray(h[0].z), rel)
    np.testing.assert_array_equal(np.asarray(h[1].z), np.clip(rel, -K, K))
    np.testing.assert_array_equal(np.asarray(h[2].z), idx)
    assert [a.text for a in fig.layout.annotations] == [
        "distance r = j − i",
        "clip(r, −K, K)",
        "index = clip(r, −K, K) + K",
    ]
    assert fig.layout.coloraxis3.cmin == 0 and fig.layout.coloraxis3.cmax == 2 * K
    lines = [t for t in fig.data if isinstance(t, go.Scatter)]
    assert len(lines) == 6  # j = i + K and j = i - K on each panel
    for t in lines:
        assert set(np.abs(np.asarray(t.x) - np.asarray(t.y))) == {K}
    assert f"K = {K}" in fig.layout.title.text and "17" not in fig.layout.title.text


def test_index_figure_says_when_it_is_strided():
    q = torch.arange(0, 1000, 10)
    rel = (q[None, :] - q[:, None]).numpy()
    fig = index_figure(rel, shaw_index(q, q, clip=4).numpy(), clip=4, q_pos=q, k_pos=q, q_len=1000, k_len=1000)
    assert "Strided sample" in fig.layout.title.subtitle.text


def test_table_figure_rows_are_relative_positions():
    t = shaw_table(K, 5, generator=torch.Generator().manual_seed(0)).numpy()
    fig = table_figure({"a^K": t, "a^V": -t}, clip=K)
    h = heatmaps(fig)
    assert len(h) == 2
    np.testing.assert_array_equal(np.asarray(h[0].y), np.arange(-K, K + 1))
    np.testing.assert_allclose(np.asarray(h[1].z), -t)
    assert fig.layout.coloraxis.cmid == 0
    assert "7 rows × 5 components" in fig.layout.title.text


def test_relations_figure_columns_beyond_the_clip_are_identical():
    t = shaw_table(K, 6, generator=torch.Generator().manual_seed(1))
    row = 6
    idx = shaw_index(torch.tensor([row]), POS, clip=K)[0]
    fig = relations_figure(t[idx].numpy(), row=row, k_pos=POS, k_len=L, clip=K, index_row=idx.numpy())
    (h,) = heatmaps(fig)
    z = np.asarray(h.z)
    assert z.shape == (6, L)  # components x keys
    far_right = z[:, row + K :]
    assert (far_right == far_right[:, :1]).all()
    assert not (z[:, row - K + 1 : row + K] == z[:, row - K + 1 : row - K + 2]).all()
    assert {s.x0 for s in fig.layout.shapes} == {row - K, row + K}
    custom = np.asarray(h.customdata)
    np.testing.assert_array_equal(custom[0, :, 0], POS.numpy() - row)
    np.testing.assert_array_equal(custom[0, :, 1], idx.numpy())


def test_score_and_attention_figures():
    g = np.random.default_rng(0)
    content, relative = g.normal(size=(L, L)) * 8, g.normal(size=(L, L))
    fig = scores_figure(content, relative, q_pos=POS, k_pos=POS, q_len=L, k_len=L)
    h = heatmaps(fig)
    assert [t.coloraxis for t in h] == ["coloraxis", "coloraxis2"]  # own scales: the relative term is small
    assert "times larger" in fig.layout.title.subtitle.text
    w = g.dirichlet(np.ones(L) * 0.1, size=L)  # a few large weights per row, most tiny
    fig = attention_figure(w, w * 0.5, q_pos=POS, k_pos=POS, q_len=L, k_len=L)
    h = heatmaps(fig)
    assert [t.coloraxis for t in h] == ["coloraxis", "coloraxis"]  # one scale for both
    # A stated log scale: colour log10(weight) over 4 decades below the largest, hover the weight itself.
    top = np.ceil(np.log10(w.max()))
    assert fig.layout.coloraxis.cmax == pytest.approx(np.log10(w.max()), rel=1e-6)
    assert fig.layout.coloraxis.cmin == pytest.approx(top - 4)
    np.testing.assert_allclose(h[0].z, np.log10(np.clip(w, 10 ** (top - 4), None)), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(h[1].customdata)[..., 1], w * 0.5, rtol=1e-6)
    assert "(log)" in fig.layout.coloraxis.colorbar.title.text and "log scale" in fig.layout.title.subtitle.text
    assert fig.layout.coloraxis.colorbar.ticktext[0].startswith("≤")  # the clip is said on the bar


def test_value_term_figure_axes():
    fig = value_term_figure(np.ones((L, 4)), q_pos=POS, q_len=L, shared=True)
    assert fig.layout.xaxis.title.text == "output component"
    assert "shared" in fig.layout.title.subtitle.text


def test_bytes_figure_marks_allocated_points_and_the_current_length():
    lengths = np.array([16, 32, 64])
    fig = bytes_figure(
        lengths,
        {"R": (lengths**2 * 256, np.array([True, True, False]))},
        title="t",
        current=32,
    )
    (trace,) = fig.data
    assert list(trace.marker.symbol) == ["circle", "circle", "circle-open"]
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert fig.layout.shapes[0].x0 == 32
    assert fig.layout.annotations[0].x == np.log10(32)  # log axes place annotations in log10 units
    assert list(trace.customdata) == [human_bytes(b) for b in lengths**2 * 256]


def test_human_bytes():
    assert human_bytes(512) == "512 B"
    assert human_bytes(1536) == "1.5 KiB"
    assert human_bytes(2**30 * 4) == "4 GiB"


# --- the figures by plain arguments ------------------------------------------------------------------

TOY = dict(q_len=40, k_len=60, align="end", clip=4, dim=8, seed=1)


def test_the_toy_figures_share_one_computation_and_never_change_it():
    from posviz.figures import shaw_toy as shaw

    shaw._toy.cache_clear()
    first = shaw.scores(**TOY).csv()
    attention, term = shaw.attention(**TOY), shaw.value_term(**TOY, separate=True)
    shaw.value_term(**TOY, separate=False)  # a^V shared: the same toy, another table
    info = shaw._toy.cache_info()
    assert (info.misses, info.hits) == (1, 3)
    assert shaw.scores(**TOY, lecture=True).csv() == first  # the cached toy is read, not mutated
    assert attention.csv() != first and term.csv() != shaw.value_term(**TOY, separate=False).csv()
    shaw.scores(**{**TOY, "seed": 2})
    assert shaw._toy.cache_info().misses == 2  # another seed: another toy


def test_figures_by_plain_arguments_are_charts():
    from posviz.figures import shaw, shaw_toy
    from posviz.figures.chart import Chart

    charts = [
        shaw.index(q_len=20, k_len=30, align="start", clip=3),
        shaw.table(clip=3, dim=4, seed=0, separate=True),
        shaw.relations_row(q_len=20, k_len=30, align="start", clip=3, dim=4, seed=0, row=7),
        shaw_toy.scores(**TOY),
        shaw.memory(dim=4, clip=3, current=30),
    ]
    for chart in charts:
        assert isinstance(chart, Chart) and isinstance(chart.figure(), go.Figure) and chart.csv()
    assert charts[2].spec["layout"]["title"]["text"].startswith("R[7] ")
    end = shaw.relations_row(q_len=20, k_len=30, align="end", clip=3, dim=4, seed=0, row=7)
    assert end.spec["layout"]["title"]["text"].startswith("R[17] ")  # queries at the end start at 10
    assert shaw.row_stride(256) == 1 and shaw.row_stride(257) == 2


def test_the_memory_chart_measures_once_per_dim_and_clip():
    from posviz.figures import shaw

    shaw.measurements.cache_clear()
    a, b = shaw.memory(dim=8, clip=3, current=64), shaw.memory(dim=8, clip=3, current=4096, lecture=True)
    assert shaw.measurements.cache_info().misses == 1  # the length only moves the marker
    assert a.csv() == b.csv() and a.spec["layout"]["shapes"] != b.spec["layout"]["shapes"]
    with pytest.raises(ValueError, match="read-only"):
        shaw.measurements(dim=8, clip=3)["R"][0] = 0  # shared by every chart: nobody may change it

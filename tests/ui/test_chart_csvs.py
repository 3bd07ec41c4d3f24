"""Figures come with their CSV: one cached function returns both (posviz.ui.cache.Chart)."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from posviz.encodings.alibi import alibi_slopes
from posviz.figures import alibi
from posviz.figures.chart import Chart as FigureChart
from posviz.ui.settings import project

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # no runtime: Streamlit warns that caches live in memory
    from posviz.ui.cache import Chart, cached_figure


def frame(chart: Chart | FigureChart) -> pd.DataFrame:
    assert isinstance(chart, Chart | FigureChart) and chart.csv is not None
    return pd.read_csv(io.StringIO(chart.csv()))


def test_each_chart_carries_the_data_it_draws():
    for fn in (alibi.slopes, alibi.interleave):
        got = frame(fn(heads=6))
        assert list(got["head"]) == list(range(1, 7))
        np.testing.assert_allclose(got["slope"], alibi_slopes(6).numpy())
    bias = frame(alibi.bias_grid(heads=6, seq_len=300, causal=True))
    ax = alibi.bias_axes(seq_len=300)
    q, k = bias["query i"].to_numpy(), bias["key j"].to_numpy()
    want = -alibi_slopes(6).numpy()[bias["head"] - 1] * (q - k)  # -m (i - j); the figure masks j > i
    np.testing.assert_allclose(bias["bias"], want, rtol=1e-6)
    assert set(q) == set(ax.q_pos) and len(bias) == 6 * len(ax.q_pos) * len(ax.k_pos)
    receptive = frame(alibi.receptive_field(heads=6, seq_len=300))
    d = receptive["distance"].to_numpy()
    m = alibi_slopes(6).numpy()[0]
    np.testing.assert_allclose(receptive["head 1"], np.exp(-m * d) / np.exp(-m * np.arange(300)).sum(), rtol=1e-5)


def test_t5_charts_carry_the_matrices_they_draw():
    from posviz.figures.t5 import pipeline_matrix
    from posviz.ui.t5 import charts as t5_charts
    from posviz.ui.t5.settings import BucketKey, HeadKey
    from posviz.ui.t5.views import bucket_view, head_view, main_axes, seeded_table

    k = BucketKey(q_len=40, k_len=50, num_buckets=16, max_distance=32)
    ax = main_axes(k)
    rel = ax.k_pos[None, :] - ax.q_pos[:, None]
    steps = bucket_view(k).steps  # what the page drew its CSVs from before each figure carried its own
    for chart, want in (
        (t5_charts.relative_positions.uncached(k, False), rel),
        (t5_charts.buckets.uncached(k, False), steps.bucket),
        (t5_charts.pipeline_step.uncached(k, 3, False), pipeline_matrix(steps, 3)),
    ):
        got = pd.read_csv(io.StringIO(chart.csv()), index_col=0)
        assert list(got.index) == list(ax.q_pos) and [int(c) for c in got.columns] == list(ax.k_pos)
        np.testing.assert_allclose(got.to_numpy(), np.asarray(want, dtype=np.float64), rtol=1e-6)
    assert not np.array_equal(steps.bucket, rel)  # the cases differ
    hk = HeadKey(q_len=40, k_len=50, heads=4, head=2)
    table = seeded_table(hk.num_buckets, hk.heads, 0).tobytes()
    got = pd.read_csv(io.StringIO(t5_charts.head_bias.uncached(hk, table, False).csv()), index_col=0)
    np.testing.assert_allclose(got.to_numpy(), head_view(hk, table), rtol=1e-6)


def test_sinusoidal_charts_carry_what_they_draw():
    from itertools import pairwise

    import torch

    from posviz.encodings.sinusoidal import sinusoidal_table
    from posviz.figures.sinusoidal import similarity, table

    shape = dict(seq_len=300, dim=8, base=10000.0)
    pe = sinusoidal_table(torch.arange(300), 8, dtype=torch.float64).numpy()  # (300, 8) every row, interleaved
    rows = pd.read_csv(io.StringIO(table.heatmap(**shape, layout="interleaved").csv()), index_col=0)
    pos = rows.index.to_numpy()
    assert len(pos) <= table.TABLE_POINTS and pos[0] == 0 and pos[-1] == 299 and table.table_stride(300) == 2
    assert [int(c) for c in rows.columns] == list(range(8))
    np.testing.assert_allclose(rows.to_numpy(), pe[pos], atol=1e-7)  # float32 cells
    sim = pd.read_csv(io.StringIO(similarity.matrix(**shape).csv()), index_col=0)
    edges = [*sim.index, 300]  # each cell: the mean of PE_i . PE_j over the blocks its positions start
    full = pe @ pe.T
    slow = [[full[a:b, c:d].mean() for c, d in pairwise(edges)] for a, b in pairwise(edges)]
    assert list(sim.index) == [int(c) for c in sim.columns] == [*range(0, 300, 3), 299]
    assert similarity.sim_stride(300) == 3
    np.testing.assert_allclose(sim.to_numpy(), slow, atol=1e-9)
    layouts = frame(table.layouts(**shape))
    assert list(layouts["concat component"]) == list(range(8))
    perm = layouts["interleaved component"].to_numpy()
    np.testing.assert_array_equal(
        sinusoidal_table(torch.arange(300), 8, layout="concat").numpy(), pe[:, perm].astype(np.float32)
    )
    waves = frame(table.waves(**shape, layout="concat"))
    np.testing.assert_array_equal(waves["position"], np.arange(300))  # 300 < WAVE_POINTS: every position
    concat = sinusoidal_table(torch.arange(300), 8, layout="concat").numpy()
    components = [int(c.split()[1]) for c in waves.columns[1:]]
    assert components == [0, 4, 1, 2, 3]  # sin and cos of pair 0, then the sin of pairs 1, 2 and 3
    np.testing.assert_allclose(waves.iloc[:, 1:].to_numpy(), concat[:, components], atol=1e-7)


def test_skew_charts_carry_what_they_draw():
    from posviz.ui.skew import charts as skew_charts
    from posviz.ui.skew.settings import BytesKey, SkewKey, SkewSettings

    s = SkewSettings(seq_len=6, dim=4)
    sk, bk = project(s, SkewKey), project(s, BytesKey)
    for number in (1, 4):
        assert skew_charts.step.uncached(s, number, False).csv() == skew_charts.step_csv(sk, number)
    assert skew_charts.check.uncached(sk, 5, False).csv() == skew_charts.step_csv(sk, 5)
    assert skew_charts.memory.uncached(bk, 6, False).csv() == skew_charts.memory_csv(bk)
    assert skew_charts.animation.uncached(s, False).csv is None  # the animation has no download


def test_shaw_charts_carry_what_they_draw():
    from posviz.ui.shaw import charts as shaw_charts
    from posviz.ui.shaw.settings import BytesKey, IndexKey, RowKey, ShawSettings, TableKey

    s = ShawSettings()
    for fn, key, csv in (
        (shaw_charts.index, IndexKey, shaw_charts.index_csv),
        (shaw_charts.table, TableKey, shaw_charts.table_csv),
        (shaw_charts.relations_row, RowKey, shaw_charts.row_csv),
    ):
        k = project(s, key)
        assert fn.uncached(k, False).csv() == csv(k)
    bk = project(s, BytesKey)
    assert shaw_charts.memory.uncached(bk, 64, False).csv() == shaw_charts.memory_csv(bk)


def test_rope_charts_carry_what_they_draw():
    from posviz.ui.rope import charts as rope_charts
    from posviz.ui.rope.settings import RopeSettings, keys

    k = keys(RopeSettings())
    for fn, key, csv in (
        (rope_charts.frequencies, k.scaling, rope_charts.frequencies_csv),
        (rope_charts.rotation, k.matrix, rope_charts.rotation_csv),
        (rope_charts.permutation, k.permutation, rope_charts.permutation_csv),
        (rope_charts.decay, k.decay, rope_charts.decay_csv),
        (rope_charts.angles, k.scaling, rope_charts.angles_csv),
    ):
        assert fn.uncached(key, False).csv() == csv(key), fn.__name__


def test_a_cached_chart_builds_its_csv_once_per_view():
    calls = []

    @cached_figure
    def counted(n: int) -> Chart:
        return Chart(go.Figure(go.Scatter(y=[n])), lambda: calls.append(n) or f"n\n{n}\n")

    first, again = counted(7), counted(7)
    assert first.csv() == again.csv() == "n\n7\n" and calls == [7]  # one build, shared by every session
    assert counted(8).csv() == "n\n8\n" and calls == [7, 8]

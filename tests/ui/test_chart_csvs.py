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
    import torch

    from posviz.encodings.t5 import t5_bias, t5_bucket_steps
    from posviz.figures import t5, t5_pipeline
    from posviz.figures import t5_attention as attention_figures
    from posviz.figures import t5_bias as bias_figures

    cells = dict(q_len=40, k_len=50, align="start")
    buckets = dict(cells, bidirectional=True, num_buckets=16, max_distance=32)
    ax = t5.shown_axes(**cells)
    rel = ax.k_pos[None, :] - ax.q_pos[:, None]
    steps = t5_bucket_steps(torch.as_tensor(rel), bidirectional=True, num_buckets=16, max_distance=32)
    for chart, want in (
        (t5.relative_positions(**cells), rel),
        (t5.buckets(**buckets), steps.bucket),
        (t5_pipeline.pipeline_step(**buckets, step=3), t5_pipeline.pipeline_matrix(steps, 3)),
    ):
        got = pd.read_csv(io.StringIO(chart.csv()), index_col=0)
        assert list(got.index) == list(ax.q_pos) and [int(c) for c in got.columns] == list(ax.k_pos)
        np.testing.assert_allclose(got.to_numpy(), np.asarray(want, dtype=np.float64), rtol=1e-6)
    assert not np.array_equal(steps.bucket, rel)  # the cases differ
    profile = frame(t5.bucket_profile(**buckets))
    lo, hi = t5.profile_range(32)
    assert list(profile["r = j - i"]) == list(range(lo, hi + 1)) and hi >= 32
    by_r = dict(zip(profile["r = j - i"], profile["bucket"], strict=True))
    inside = np.abs(rel) <= hi  # every cell whose r the profile draws: the same bucket as the matrix gives it
    assert inside.mean() > 0.9
    assert [by_r[r] for r in rel[inside]] == steps.bucket.numpy()[inside].tolist()

    # the bias figures: the seeded table of seed 0, as nn.Embedding starts it, or an edited table's bytes
    table = torch.randn(16, 4, generator=torch.Generator().manual_seed(0))
    bias = dict(buckets, heads=4, scale=0.5)
    full = t5_bias(table, torch.as_tensor(ax.q_pos), torch.as_tensor(ax.k_pos), max_distance=32, scale=0.5)
    got = pd.read_csv(io.StringIO(bias_figures.head_bias(**bias, head=2).csv()), index_col=0)
    np.testing.assert_allclose(got.to_numpy(), full[2].numpy(), rtol=1e-6)
    edited = (table.numpy() + 1).tobytes()
    got = pd.read_csv(io.StringIO(bias_figures.head_bias(**bias, head=2, table=edited).csv()), index_col=0)
    np.testing.assert_allclose(got.to_numpy(), full[2].numpy() + 0.5, rtol=1e-6)

    pair = attention_figures.pair_axes(**cells)
    both = frame(attention_figures.attention(**bias, head=1))
    row = frame(attention_figures.attention_row(**bias, head=1))
    mid, query = attention_figures.middle_query(pair)
    at_query = both[both["query i"] == query]
    assert list(row["key j"]) == list(at_query["key j"]) == list(pair.k_pos)
    for name in ("without bias", "with bias"):  # the row figure draws the middle row of the pair
        np.testing.assert_array_equal(row[name].to_numpy(), at_query[name].to_numpy())
    assert not np.allclose(row["without bias"], row["with bias"])

    square = dict(bias, q_len=50, k_len=50)
    px = bias_figures.pitfall_axes(q_len=50, k_len=50, align="start")
    pitfall = frame(bias_figures.pitfall(**square, head=3))
    n = len(px.q_pos)
    correct = pitfall["permute(2, 0, 1)"].to_numpy().reshape(n, n)
    transposed = pitfall["transpose(0, 2)"].to_numpy().reshape(n, n)
    want = t5_bias(table, torch.as_tensor(px.q_pos), torch.as_tensor(px.k_pos), max_distance=32, scale=0.5)[3]
    np.testing.assert_allclose(correct, want.numpy(), rtol=1e-6)
    np.testing.assert_allclose(transposed, want.numpy().T, rtol=1e-6)  # square: the seeds' bias is the transpose


def test_sinusoidal_charts_carry_what_they_draw():
    from posviz.figures.csv import matrix_csv
    from posviz.ui.sinusoidal import charts as sin_charts
    from posviz.ui.sinusoidal.settings import LayoutsKey, SinusoidalSettings, TableKey
    from posviz.ui.sinusoidal.views import layouts_view, similarity_view, table_view

    s = SinusoidalSettings(seq_len=300, dim=8)
    tk, lk = project(s, TableKey), project(s, LayoutsKey)
    tv, sv = table_view(tk), similarity_view(tk)
    assert sin_charts.table.uncached(tk, False).csv() == matrix_csv(tv.table, tv.positions, range(8))
    assert sin_charts.similarity.uncached(tk, False).csv() == matrix_csv(sv.sim, sv.positions, sv.positions)
    layouts = frame(sin_charts.layouts.uncached(lk, False))
    assert list(layouts["concat component"]) == list(range(8))
    assert list(layouts["interleaved component"]) == list(layouts_view(lk).perm)
    waves = frame(sin_charts.waves.uncached(tk, False))
    np.testing.assert_allclose(waves["position"], tv.wave_positions)


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

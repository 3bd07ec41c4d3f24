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

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # no runtime: Streamlit warns that caches live in memory
    from posviz.ui.cache import chart


def frame(chart: FigureChart) -> pd.DataFrame:
    assert isinstance(chart, FigureChart) and chart.csv() is not None
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
    import torch

    from posviz.encodings.skew import skew, skew_toy
    from posviz.figures import skew as skew_fig
    from posviz.figures import skew_check, skew_memory

    toy = dict(seq_len=6, dim=4, seed=0, variant="masked", mem_len=0)
    q, er = skew_toy(6, 4, seed=0, variant="masked")
    rel = (q @ er.T).numpy()  # step 1: Q Er^T, computed here
    for number, want in ((1, rel), (4, skew(torch.as_tensor(rel)).numpy())):
        got = pd.read_csv(io.StringIO(skew_fig.step(**toy, number=number).csv()), index_col=0)
        assert list(got.index) == list(range(6)) and [int(c) for c in got.columns] == list(range(6))
        np.testing.assert_array_equal(got.to_numpy().astype(np.float32), want)
    i, j = np.meshgrid(np.arange(6), np.arange(6), indexing="ij")
    sliced = pd.read_csv(io.StringIO(skew_check.check(**toy, number=5).csv()), index_col=0).to_numpy()
    low = j <= i  # the causal part: q_i . Er[j - i + L - 1]
    np.testing.assert_allclose(sliced[low], rel[i, np.clip(j - i + 5, 0, 5)][low], rtol=1e-6)
    memory = frame(skew_memory.memory(dim=4, current=6))
    lengths = memory["L"].to_numpy()
    np.testing.assert_array_equal(memory["Shaw R bytes"], lengths**2 * 4 * 4)
    np.testing.assert_array_equal(memory["skew Er bytes"], lengths * 4 * 4)
    np.testing.assert_array_equal(memory["logits bytes"], lengths**2 * 4)
    assert skew_fig.animation(**toy).csv() is None  # the animation has no download


def test_shaw_charts_carry_what_they_draw():
    import torch

    from posviz.encodings.shaw import shaw_table
    from posviz.figures import shaw

    clip, dim, seed = 8, 6, 3
    index = frame(shaw.index(q_len=40, k_len=300, align="end", clip=clip))
    ax = shaw.main_axes(q_len=40, k_len=300, align="end")
    q, k = index["query i"].to_numpy(), index["key j"].to_numpy()
    assert set(q) == set(ax.q_pos) == set(range(260, 300)) and len(index) == len(ax.q_pos) * len(ax.k_pos)
    np.testing.assert_array_equal(index["r = j - i"], k - q)
    np.testing.assert_array_equal(index["index"], np.clip(k - q, -clip, clip) + clip)
    g = torch.Generator().manual_seed(seed)  # the tables, drawn here: a^K then a^V from one generator
    table_k, table_v = shaw_table(clip, dim, generator=g).numpy(), shaw_table(clip, dim, generator=g).numpy()
    tables = frame(shaw.table(clip=clip, dim=dim, seed=seed, separate=True))
    for name, table in (("a^K (keys)", table_k), ("a^V (values)", table_v)):
        drawn = np.stack([tables[f"{name} component {c}"] for c in range(dim)], axis=1).astype(np.float32)
        np.testing.assert_array_equal(drawn, table)
    shared = frame(shaw.table(clip=clip, dim=dim, seed=seed, separate=False))
    assert list(shared.columns) == [f"a^K = a^V (shared) component {c}" for c in range(dim)]
    row = frame(shaw.relations_row(q_len=40, k_len=300, align="end", clip=clip, dim=dim, seed=seed, row=5))
    keys = row["key j"].to_numpy()
    np.testing.assert_array_equal(row["table row"], np.clip(keys - 265, -clip, clip) + clip)  # query 5 is at 265
    drawn = np.stack([row[f"component {c}"] for c in range(dim)], axis=1).astype(np.float32)
    np.testing.assert_array_equal(drawn, table_k[row["table row"]])  # R[i] reads a^K
    memory = frame(shaw.memory(dim=dim, clip=clip, current=64))
    lengths = memory["L"].to_numpy()
    np.testing.assert_array_equal(memory["R bytes"], lengths**2 * dim * 4)
    np.testing.assert_array_equal(memory["logits bytes"], lengths**2 * 4)
    np.testing.assert_array_equal(memory["allocated"], lengths**2 * dim * 4 <= 32 * 2**20)


def test_rope_charts_carry_what_they_draw():
    from posviz.figures import rope, rope_scaling, rope_scores

    freq = dict(dim=16, base=10000.0, method="linear", factor=4.0, original_max_position=64, options=())
    theta = 10000.0 ** (-np.arange(0, 16, 2) / 16)  # (8,) the default frequencies
    inv = theta / 4  # linear x4: every pair four times slower
    f = frame(rope_scaling.frequencies(**freq, seq_len=300))
    assert list(f.columns) == ["pair k", "theta_k", "wavelength"] and list(f["pair k"]) == list(range(8))
    np.testing.assert_allclose(f["theta_k"], inv, rtol=1e-12)
    np.testing.assert_allclose(f["wavelength"], 2 * np.pi / inv, rtol=1e-12)
    plain, lecture = (rope_scaling.frequencies(**freq, seq_len=300, lecture=on).csv() for on in (False, True))
    assert plain == lecture  # lecture mode: the same data

    ratios = frame(rope_scaling.scaling_frequencies(**freq, seq_len=300))
    assert list(ratios.columns) == ["pair k", "default", "linear", "dynamic", "yarn", "llama3"]
    np.testing.assert_allclose(ratios["default"], 1.0, rtol=0)
    np.testing.assert_allclose(ratios["linear"], 0.25, rtol=1e-12)

    rot = pd.read_csv(io.StringIO(rope.rotation(**freq, layout="half", m=3).csv()), index_col=0).to_numpy()
    want = np.zeros((16, 16))  # half-split: pair k is components (k, k + 8)
    k = np.arange(8)
    c, s = np.cos(3 * inv), np.sin(3 * inv)
    want[k, k], want[k, k + 8], want[k + 8, k], want[k + 8, k + 8] = c, -s, s, c
    np.testing.assert_allclose(rot, want, atol=1e-7)  # drawn in float32

    perm = frame(rope.permutation(dim=16))
    assert list(perm["half-split component"]) == list(range(16))
    assert list(perm["interleaved component"]) == [*range(0, 16, 2), *range(1, 16, 2)]

    decay = frame(rope_scores.decay(**freq, layout="interleaved", seed=0, seq_len=300))
    r = decay["distance"].to_numpy()
    assert r[0] == 0 and r[-1] == 299 and list(r[:129]) == list(range(129))  # dense to 128, then log-spaced
    partial = np.cumsum(np.exp(1j * r[:, None] * inv[None, :]), axis=-1)  # (r, 8): S_1 .. S_8
    np.testing.assert_allclose(decay["bound"], np.abs(partial).mean(-1), rtol=1e-9)
    np.testing.assert_allclose(decay["bound"][0], (8 + 1) / 2, rtol=1e-12)

    angles = frame(rope_scaling.angles(**freq, seq_len=300))
    pos = angles["position"].to_numpy()
    assert pos[0] == 1 and pos[-1] == 299
    assert list(angles.columns)[1:] == [f"pair {p} {m}" for m in ("default", "linear") for p in (0, 4, 7)]
    for p in (0, 4, 7):
        np.testing.assert_allclose(angles[f"pair {p} default"], pos * theta[p], rtol=1e-12)
        np.testing.assert_allclose(angles[f"pair {p} linear"], pos * inv[p], rtol=1e-12)


calls: list[int] = []


def counted(*, n: int) -> FigureChart:
    return FigureChart.of(go.Figure(go.Scatter(y=[n])), lambda: calls.append(n) or f"n\n{n}\n")


def test_a_cached_chart_builds_its_csv_once_per_view():
    calls.clear()
    first, again = chart(counted, n=7), chart(counted, n=7)
    assert first is again and first.csv() == again.csv() == "n\n7\n" and calls == [7]  # one build, shared
    assert chart(counted, n=8).csv() == "n\n8\n" and calls == [7, 8]

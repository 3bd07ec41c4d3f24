"""T5 figures: the data each one carries (trace types, z, masks, titles)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest
import torch

from posviz.encodings.positions import display_positions
from posviz.encodings.t5 import t5_bias, t5_bucket, t5_bucket_steps
from posviz.figures.common import MASK_COLOR
from posviz.figures.t5 import bucket_figure, bucket_profile_figure, relative_position_figure
from posviz.figures.t5_attention import attention_figure, attention_row_figure
from posviz.figures.t5_bias import bias_figure, bias_grid_figure, pitfall_figure
from posviz.figures.t5_pipeline import INT64_MIN, PIPELINE_STEPS, pipeline_figure, pipeline_matrix

L = 20
NUM_BUCKETS, MAX_DISTANCE = 8, 10  # small: max_exact = 2 (bidirectional) or 4, log buckets reached within L
POS = torch.arange(L)


def _steps(bidirectional: bool):
    rel = POS[None, :] - POS[:, None]
    return t5_bucket_steps(rel, bidirectional=bidirectional, num_buckets=NUM_BUCKETS, max_distance=MAX_DISTANCE)


def _pipeline(steps, step: int, bidirectional: bool) -> go.Figure:
    return pipeline_figure(
        steps,
        step,
        q_pos=POS,
        k_pos=POS,
        q_len=L,
        k_len=L,
        bidirectional=bidirectional,
        num_buckets=NUM_BUCKETS,
    )


def _trace(fig: go.Figure) -> go.Heatmap:
    (trace,) = [t for t in fig.data if isinstance(t, go.Heatmap)]
    return trace


def _legend(fig: go.Figure) -> list[str]:
    return [t.name for t in fig.data if t.showlegend]


def _step_of(key: str) -> int:
    return [k for k, _ in PIPELINE_STEPS].index(key) + 1


@pytest.fixture(params=[True, False], ids=["bidirectional", "unidirectional"])
def bidirectional(request) -> bool:
    return request.param


# --- the pipeline walk-through -----------------------------------------------------------------


def test_pipeline_steps_are_unique_and_numbered():
    keys = [k for k, _ in PIPELINE_STEPS]
    assert len(set(keys)) == len(keys)
    for number, (_, title) in enumerate(PIPELINE_STEPS, start=1):
        assert title.startswith(f"Step {number} ")


@pytest.mark.parametrize("step", range(1, len(PIPELINE_STEPS) + 1))
def test_every_step_has_its_title_and_shape(step, bidirectional):
    fig = _pipeline(_steps(bidirectional), step, bidirectional)
    t = _trace(fig)
    assert fig.layout.title.text == PIPELINE_STEPS[step - 1][1]
    assert t.z.shape == (L, L)
    np.testing.assert_array_equal(t.x, POS.numpy())
    np.testing.assert_array_equal(t.y, POS.numpy())
    assert fig.layout.xaxis.title.text == "key position j"
    assert fig.layout.yaxis.title.text == "query position i"


def test_pipeline_matrix_holds_the_raw_intermediates(bidirectional):
    s = _steps(bidirectional)
    raw = {
        "n": s.n,
        "is_small": s.is_small,
        "log": s.max_exact + s.log_ratio,
        "long": s.val_if_large_raw,
        "clamp": s.val_if_large,
        "within": s.within,
    }
    for key, expected in raw.items():
        np.testing.assert_array_equal(pipeline_matrix(s, _step_of(key)), expected.numpy())


def test_values_of_the_finite_steps(bidirectional):
    s = _steps(bidirectional)
    for key, expected in (("n", s.n), ("is_small", s.is_small), ("within", s.within)):
        np.testing.assert_array_equal(_trace(_pipeline(s, _step_of(key), bidirectional)).z, expected.numpy(), key)
    half = NUM_BUCKETS // 2 if bidirectional else NUM_BUCKETS
    within = _trace(_pipeline(s, _step_of("within"), bidirectional))
    assert (within.zmin, within.zmax) == (0, half - 1)


def test_log_step_marks_minus_inf_where_n_is_zero(bidirectional):
    s = _steps(bidirectional)
    fig = _pipeline(s, _step_of("log"), bidirectional)
    t = _trace(fig)
    zero = s.n.numpy() == 0
    assert zero.any() and not zero.all()
    np.testing.assert_array_equal(np.isnan(t.z), zero)  # the grey cells are exactly log(0) = -inf
    expected = (s.max_exact + s.log_ratio).numpy()
    np.testing.assert_allclose(t.z[~zero], expected[~zero], rtol=1e-6)
    assert fig.layout.plot_bgcolor == MASK_COLOR
    assert any("log(0)" in name for name in _legend(fig))  # the grey cells have a legend entry


@pytest.mark.parametrize("key", ["long", "clamp"])
def test_long_and_clamp_steps_mark_the_int64_min_garbage(key, bidirectional):
    s = _steps(bidirectional)
    fig = _pipeline(s, _step_of(key), bidirectional)
    t = _trace(fig)
    raw = pipeline_matrix(s, _step_of(key))
    garbage = raw == INT64_MIN + s.max_exact
    assert garbage.any()
    np.testing.assert_array_equal(garbage, s.n.numpy() == 0)  # (-inf).long() where n == 0
    np.testing.assert_array_equal(np.isnan(t.z), garbage)
    np.testing.assert_array_equal(t.z[~garbage], raw[~garbage])
    assert any(str(INT64_MIN + s.max_exact) in name for name in _legend(fig))
    assert fig.layout.plot_bgcolor == MASK_COLOR


def test_garbage_never_reaches_the_bucket(bidirectional):
    s = _steps(bidirectional)
    assert (s.within.numpy() >= 0).all()
    np.testing.assert_array_equal(s.bucket.numpy(), (s.direction_offset + s.within).numpy())


# --- the other T5 figures ----------------------------------------------------------------------


def test_relative_position_figure():
    rel = (POS[None, :] - POS[:, None]).numpy()
    t = _trace(relative_position_figure(rel, q_pos=POS, k_pos=POS, q_len=L, k_len=L))
    np.testing.assert_array_equal(t.z, rel)
    assert t.zmid == 0 and t.zmin == -t.zmax


def test_bucket_figure(bidirectional):
    s = _steps(bidirectional)
    fig = bucket_figure(s.bucket, q_pos=POS, k_pos=POS, q_len=L, k_len=L, num_buckets=NUM_BUCKETS)
    t = _trace(fig)
    np.testing.assert_array_equal(t.z, s.bucket.numpy())
    assert (t.zmin, t.zmax) == (0, NUM_BUCKETS - 1)
    assert fig.layout.title.text == "Bucket index of every (query, key) pair"


def test_bucket_figure_on_a_strided_sample():
    q = display_positions(5000, 64)
    rel = q[None, :] - q[:, None]
    bucket = t5_bucket(rel, num_buckets=32, max_distance=128)
    fig = bucket_figure(bucket, q_pos=q, k_pos=q, q_len=5000, k_len=5000, num_buckets=32)
    t = _trace(fig)
    np.testing.assert_array_equal(t.z, bucket.numpy())
    np.testing.assert_array_equal(t.x, q.numpy())
    assert "Strided sample" in fig.layout.title.subtitle.text


def test_bucket_profile_figure(bidirectional):
    r = torch.arange(-30, 31)
    b = t5_bucket(r, bidirectional=bidirectional, num_buckets=NUM_BUCKETS, max_distance=MAX_DISTANCE)
    max_exact = _steps(bidirectional).max_exact
    fig = bucket_profile_figure(r, b, max_exact=max_exact, max_distance=MAX_DISTANCE, bidirectional=bidirectional)
    (line,) = fig.data
    assert isinstance(line, go.Scatter) and line.line.shape == "hv"
    # Only the corners are sent; read as an "hv" step function they give back every bucket.
    x, y = np.asarray(line.x), np.asarray(line.y)
    assert x[0] == r[0] and x[-1] == r[-1] and len(x) < len(r)
    rebuilt = y[np.searchsorted(x, r.numpy(), side="right") - 1]
    np.testing.assert_array_equal(rebuilt, b.numpy())
    marks = sorted(shape.x0 for shape in fig.layout.shapes)
    expected = [-MAX_DISTANCE, -max_exact] + ([max_exact, MAX_DISTANCE] if bidirectional else [])
    assert marks == expected
    assert fig.layout.xaxis.title.text == "relative position r = j − i"


def test_bias_figure_is_diverging():
    table = torch.randn(NUM_BUCKETS, 3, generator=torch.Generator().manual_seed(0))
    bias = t5_bias(table, POS, POS, max_distance=MAX_DISTANCE)
    fig = bias_figure(bias[2], head=2, q_pos=POS, k_pos=POS, q_len=L, k_len=L)
    t = _trace(fig)
    np.testing.assert_allclose(t.z, bias[2].numpy())
    assert t.zmid == 0 and t.zmin == pytest.approx(-t.zmax)
    assert "head 2" in fig.layout.title.text


@pytest.mark.parametrize("heads", [1, 4, 12, 20])
def test_bias_grid_has_one_panel_per_head(heads):
    table = torch.randn(NUM_BUCKETS, heads, generator=torch.Generator().manual_seed(heads))
    bias = t5_bias(table, POS, POS, max_distance=MAX_DISTANCE).numpy()
    fig = bias_grid_figure(bias, q_pos=POS, k_pos=POS, q_len=L, k_len=L)
    traces = [t for t in fig.data if isinstance(t, go.Heatmap)]
    assert len(traces) == heads
    assert {t.coloraxis for t in traces} == {"coloraxis"}
    for h, t in enumerate(traces):
        np.testing.assert_allclose(t.z, bias[h])
    assert f"All {heads} heads" in fig.layout.title.text
    assert [a.text for a in fig.layout.annotations][:heads] == [f"head {h}" for h in range(heads)]


def test_attention_figure_has_two_panels():
    rng = np.random.default_rng(0)
    without, with_bias = rng.dirichlet(np.ones(L), size=L), rng.dirichlet(np.ones(L), size=L)
    fig = attention_figure(without, with_bias, head=3, q_pos=POS, k_pos=POS, q_len=L, k_len=L)
    assert len(fig.data) == 2
    # Colour: log10 of the weight (a stated log scale); the weights themselves ride along for the hover.
    np.testing.assert_allclose(np.asarray(fig.data[0].customdata)[..., 1], without.astype(np.float32))
    np.testing.assert_allclose(np.asarray(fig.data[1].customdata)[..., 1], with_bias.astype(np.float32))
    lo = 10.0 ** (np.ceil(np.log10(max(without.max(), with_bias.max()))) - 4)
    np.testing.assert_allclose(fig.data[0].z, np.log10(np.clip(without, lo, None)), rtol=1e-5)
    assert "bias[3]" in fig.layout.annotations[1].text
    assert fig.layout.coloraxis.cmid is None  # weights are not signed: sequential scale
    bar = fig.layout.coloraxis.colorbar
    assert bar.title.text == "weight (log)" and bar.tickvals[0] == pytest.approx(np.log10(lo))
    # The scale spans the data: the largest weight is the top of the colour scale.
    assert fig.layout.coloraxis.cmax == pytest.approx(np.log10(max(without.max(), with_bias.max())), rel=1e-6)


def test_attention_row_figure():
    rng = np.random.default_rng(1)
    without, with_bias = rng.dirichlet(np.ones(L)), rng.dirichlet(np.ones(L))
    fig = attention_row_figure(without, with_bias, query=7, k_pos=POS)
    assert [t.name for t in fig.data] == ["without bias", "with bias"]
    np.testing.assert_allclose(fig.data[1].y, with_bias.astype(np.float32))
    np.testing.assert_array_equal(fig.data[0].x, POS.numpy())
    assert "i = 7" in fig.layout.title.text


def test_pitfall_difference_is_transposed_minus_correct():
    table = torch.randn(NUM_BUCKETS, 2, generator=torch.Generator().manual_seed(1))
    correct = t5_bias(table, POS, POS, max_distance=MAX_DISTANCE)[1].numpy()
    transposed = correct.T.copy()  # what transpose(0, 2) adds at (i, j) for a square view
    fig = pitfall_figure(correct, transposed, head=1, q_pos=POS, k_pos=POS)
    assert len(fig.data) == 3
    np.testing.assert_allclose(fig.data[0].z, correct)
    np.testing.assert_allclose(fig.data[1].z, transposed)
    np.testing.assert_allclose(fig.data[2].z, transposed - correct)
    assert not np.allclose(fig.data[2].z, 0)  # the bias is not symmetric: the swap shows
    assert [a.text for a in fig.layout.annotations][:3][2] == "difference"


@pytest.mark.parametrize("key", ["log", "long"])
def test_minus_inf_cells_are_marked_at_128_tokens(key):
    """Bidirectional at L = 128: log(0) sits on the diagonal only, 128 of 16384 cells, a one-pixel line.

    Each such cell gets an outlined marker, so steps 3 and 4 show what they are about.
    """
    n = 128
    pos = torch.arange(n)
    steps = t5_bucket_steps(pos[None, :] - pos[:, None], bidirectional=True, num_buckets=32, max_distance=128)
    fig = pipeline_figure(
        steps, _step_of(key), q_pos=pos, k_pos=pos, q_len=n, k_len=n, bidirectional=True, num_buckets=32
    )
    (marks,) = [t for t in fig.data if isinstance(t, go.Scatter)]
    zero = steps.n.numpy() == 0  # n = 0: log(0) = -inf
    rows, cols = np.nonzero(zero)
    np.testing.assert_array_equal(marks.x, cols)
    np.testing.assert_array_equal(marks.y, rows)
    assert marks.showlegend and marks.marker.line.width >= 2 and marks.marker.size >= 7
    assert np.isnan(np.asarray(_trace(fig).z)[zero]).all()


@pytest.mark.parametrize("step", range(1, len(PIPELINE_STEPS) + 1))
def test_a_lecture_walk_through_step_fits_a_projector_below_its_buttons(step):
    # Previous / Next paged to the top of a 1280 x 720 screen leaves ~505 px below them (posviz.ui.sections).
    steps = _steps(True)
    shown = pipeline_figure(
        steps, step, q_pos=POS, k_pos=POS, q_len=L, k_len=L, bidirectional=True, num_buckets=NUM_BUCKETS, lecture=True
    )
    assert shown.layout.height <= 505

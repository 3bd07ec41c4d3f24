"""The shared heatmap builders: the data in the figure, not pixels."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
import torch

from posviz.encodings.positions import display_positions
from posviz.figures.common import (
    DIVERGING,
    MASK_COLOR,
    MASK_EDGE,
    MAX_TEXT_CELLS,
    SEQUENTIAL,
    as_array,
    compact,
    heatmap,
    heatmap_grid,
    look,
    sample_note,
)


def _heatmaps(fig: go.Figure) -> list[go.Heatmap]:
    return [t for t in fig.data if isinstance(t, go.Heatmap)]


def _only(fig: go.Figure) -> go.Heatmap:
    (trace,) = fig.data
    assert isinstance(trace, go.Heatmap)
    return trace


def _positions(n: int, offset: int = 0) -> np.ndarray:
    return np.arange(n, dtype=np.int64) + offset


# --- one heatmap -------------------------------------------------------------------------------


def test_heatmap_data_on_true_positions():
    rng = np.random.default_rng(0)
    z = rng.standard_normal((5, 7))
    q, k = _positions(5, offset=3), _positions(7)
    fig = heatmap(z, q_pos=q, k_pos=k, title="T", value_name="score")
    t = _only(fig)
    assert t.z.dtype == np.float32 and t.z.shape == (5, 7)
    np.testing.assert_allclose(t.z, z.astype(np.float32))
    np.testing.assert_array_equal(t.x, k)
    np.testing.assert_array_equal(t.y, q)
    np.testing.assert_array_equal(t.customdata, k[None, :] - q[:, None])  # r = j - i
    for part in ("query i", "key j", "r = j − i", "score"):
        assert part in t.hovertemplate
    assert fig.layout.title.text == "T"
    assert fig.layout.xaxis.title.text == "key position j"
    assert fig.layout.yaxis.title.text == "query position i"
    assert fig.layout.yaxis.autorange == "reversed"  # query 0 at the top, as a matrix reads


def test_heatmap_accepts_tensors():
    z = torch.randn(4, 6, requires_grad=True)
    fig = heatmap(z * 2, q_pos=torch.arange(4), k_pos=torch.arange(6), title="T", value_name="v")
    np.testing.assert_allclose(_only(fig).z, (z * 2).detach().numpy(), rtol=1e-6)


def test_heatmap_strided_positions_and_note():
    q, k = display_positions(1000, 192).numpy(), display_positions(500, 100).numpy()
    z = np.random.default_rng(1).random((len(q), len(k)))
    fig = heatmap(z, q_pos=q, k_pos=k, q_len=1000, k_len=500, title="T", value_name="v", subtitle="mine")
    t = _only(fig)
    assert t.z.shape == (len(q), len(k))
    np.testing.assert_array_equal(t.x, k)
    np.testing.assert_array_equal(t.y, q)
    assert t.y[0] == 0 and t.y[-1] == 999 and t.x[-1] == 499  # the last position is always shown
    np.testing.assert_array_equal(t.customdata, k[None, :] - q[:, None])
    sub = fig.layout.title.subtitle.text
    assert sub.startswith("mine") and "Strided sample" in sub
    assert f"{len(q)} of 1000 queries" in sub and f"{len(k)} of 500 keys" in sub


def test_full_view_says_nothing_about_sampling():
    fig = heatmap(
        np.zeros((6, 6)), q_pos=_positions(6), k_pos=_positions(6), q_len=6, k_len=6, title="T", value_name="v"
    )
    assert "Strided" not in (fig.layout.title.subtitle.text or "")


def test_sample_note():
    full = _positions(10)
    assert sample_note(full, full, 10, 10) is None
    keys_only = sample_note(full, np.array([0, 4, 8, 11]), 10, 12)
    assert "keys" in keys_only and "queries" not in keys_only and "4 of 12 keys" in keys_only
    assert "every 4th" in keys_only


@pytest.mark.parametrize(
    ("values", "dtype"),
    [
        (np.arange(32).reshape(4, 8), np.int8),
        (np.arange(-1000, 1000, 125).reshape(4, 4), np.int16),
        (np.array([[0, 2**40]]), np.float32),  # too big for int32
        (np.array([[True, False]]), np.int8),
        (np.array([[0.5, -1.5]]), np.float32),
    ],
)
def test_compact_dtypes(values, dtype):
    out = compact(values)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, values)


def test_integer_matrix_stays_exact():
    r = _positions(8)[None, :] - _positions(8)[:, None]
    t = _only(heatmap(r, q_pos=_positions(8), k_pos=_positions(8), title="T", value_name="r", value_format="d"))
    assert np.issubdtype(t.z.dtype, np.integer)
    np.testing.assert_array_equal(t.z, r)


def test_diverging_palette_is_centred():
    z = np.array([[-0.5, 2.0], [np.nan, -np.inf]])
    t = _only(heatmap(z, q_pos=_positions(2), k_pos=_positions(2), title="T", value_name="v", palette="diverging"))
    assert t.zmid == 0
    assert t.zmax == pytest.approx(2.0) and t.zmin == pytest.approx(-2.0)  # symmetric, finite values only
    assert t.colorscale == go.Heatmap(colorscale=DIVERGING).colorscale


def test_diverging_all_zero_gets_a_unit_range():
    t = _only(
        heatmap(
            np.zeros((3, 3)), q_pos=_positions(3), k_pos=_positions(3), title="T", value_name="v", palette="diverging"
        )
    )
    assert (t.zmin, t.zmid, t.zmax) == (-1.0, 0.0, 1.0)


def test_sequential_palette_keeps_given_range():
    t = _only(
        heatmap(np.ones((3, 3)), q_pos=_positions(3), k_pos=_positions(3), title="T", value_name="v", zmin=0, zmax=7)
    )
    assert (t.zmin, t.zmax) == (0, 7)
    assert t.zmid is None
    assert t.colorscale == go.Heatmap(colorscale=SEQUENTIAL).colorscale


def test_values_written_into_small_matrices_only():
    small = MAX_TEXT_CELLS
    t = _only(
        heatmap(np.ones((small, small)), q_pos=_positions(small), k_pos=_positions(small), title="T", value_name="v")
    )
    assert t.texttemplate
    big = small + 1
    t = _only(heatmap(np.ones((big, big)), q_pos=_positions(big), k_pos=_positions(big), title="T", value_name="v"))
    assert not t.texttemplate


# --- masks -------------------------------------------------------------------------------------


def test_mask_paints_exactly_its_cells_grey_with_a_legend_entry():
    z = np.arange(36, dtype=np.float64).reshape(6, 6)
    mask = np.triu(np.ones((6, 6), dtype=bool), 1)  # 15 of 36 cells: grey, no markers
    pos = _positions(6)
    fig = heatmap(z, q_pos=pos, k_pos=pos, title="T", value_name="v", mask=mask, mask_label="future")
    (t,) = _heatmaps(fig)  # a mask is a gap in the one heatmap
    np.testing.assert_array_equal(np.isnan(t.z), mask)
    np.testing.assert_array_equal(t.z[~mask], z[~mask])
    assert t.hoverongaps is False
    assert fig.layout.plot_bgcolor == MASK_COLOR
    (entry,) = [s for s in fig.data if s.type == "scatter"]  # its own colour, named in the legend
    assert entry.name == "future" and entry.showlegend and entry.marker.color == MASK_COLOR
    assert entry.x == (None,)  # a legend entry only: the grey cells are plain to see


def test_few_masked_cells_are_outlined_one_marker_each():
    """The diagonal of a 128 x 128 view is a one-pixel line of grey: each cell also gets a marker."""
    n = 128
    mask = np.eye(n, dtype=bool)
    fig = heatmap(np.ones((n, n)), q_pos=_positions(n), k_pos=_positions(n), title="T", value_name="v", mask=mask)
    (marks,) = [s for s in fig.data if s.type == "scatter"]
    np.testing.assert_array_equal(marks.x, np.arange(n))
    np.testing.assert_array_equal(marks.y, np.arange(n))
    assert marks.marker.line.color == MASK_EDGE and marks.marker.line.width >= 2
    assert marks.showlegend and marks.name == "masked"
    # the markers do not pad the axes: they end at the outer cells' edges, queries top to bottom
    assert fig.layout.xaxis.range == (-0.5, n - 0.5) and fig.layout.yaxis.range == (n - 0.5, -0.5)


def test_empty_mask_changes_nothing():
    z = np.arange(16, dtype=np.float64).reshape(4, 4)
    mask = np.zeros((4, 4), dtype=bool)
    fig = heatmap(z, q_pos=_positions(4), k_pos=_positions(4), title="T", value_name="v", mask=mask, mask_label="diag")
    t = _only(fig)  # no legend entry either
    assert not np.isnan(t.z).any()


# --- small multiples ---------------------------------------------------------------------------


@pytest.mark.parametrize("palette", ["diverging", "sequential"])
def test_grid_shares_one_coloraxis(palette):
    zs = np.random.default_rng(2).standard_normal((6, 5, 5)) * np.arange(1, 7)[:, None, None]
    titles = [f"panel {h}" for h in range(6)]
    fig = heatmap_grid(
        zs, q_pos=_positions(5), k_pos=_positions(5), titles=titles, title="G", value_name="v", palette=palette
    )
    traces = _heatmaps(fig)
    assert len(traces) == 6
    assert {t.coloraxis for t in traces} == {"coloraxis"}
    for h, t in enumerate(traces):
        np.testing.assert_allclose(t.z, zs[h].astype(np.float32))
        np.testing.assert_array_equal(t.customdata, _positions(5)[None, :] - _positions(5)[:, None])
    layout = fig.to_plotly_json()["layout"]
    assert "coloraxis" in layout and not any(k.startswith("coloraxis") and k != "coloraxis" for k in layout)
    if palette == "diverging":
        bound = float(np.abs(zs).max())
        assert fig.layout.coloraxis.cmid == 0
        assert fig.layout.coloraxis.cmax == pytest.approx(bound, rel=1e-6)
        assert fig.layout.coloraxis.cmin == pytest.approx(-bound, rel=1e-6)
    assert [a.text for a in fig.layout.annotations][:6] == titles


def test_grid_axes_and_sample_note():
    q = display_positions(300, 32).numpy()
    zs = np.zeros((3, len(q), len(q)))
    fig = heatmap_grid(
        zs, q_pos=q, k_pos=q, q_len=300, k_len=300, titles=["a", "b", "c"], title="G", value_name="v", cols=3
    )
    layout = fig.to_plotly_json()["layout"]
    xs = {v.get("title", {}).get("text") for k, v in layout.items() if k.startswith("xaxis")}
    ys = {v.get("title", {}).get("text") for k, v in layout.items() if k.startswith("yaxis")}
    assert "key j" in xs and "query i" in ys
    assert "Strided sample" in fig.layout.title.subtitle.text


# --- look and weight ---------------------------------------------------------------------------


def test_lecture_mode_is_bigger():
    assert look(True).font > look(False).font and look(True).height > look(False).height
    args = dict(q_pos=_positions(4), k_pos=_positions(4), title="T", value_name="v")
    plain, big = heatmap(np.ones((4, 4)), **args), heatmap(np.ones((4, 4)), lecture=True, **args)
    assert big.layout.font.size > plain.layout.font.size
    assert big.layout.title.font.size > plain.layout.title.font.size
    assert big.layout.height > plain.layout.height
    grid = dict(q_pos=_positions(4), k_pos=_positions(4), titles=["a", "b"], title="G", value_name="v")
    plain, big = heatmap_grid(np.ones((2, 4, 4)), **grid), heatmap_grid(np.ones((2, 4, 4)), lecture=True, **grid)
    assert big.layout.font.size > plain.layout.font.size
    assert big.layout.height > plain.layout.height


def test_192_square_heatmap_weighs_under_1_mb():
    q = display_positions(131072, 192).numpy()
    z = np.random.default_rng(3).standard_normal((len(q), len(q)))
    fig = heatmap(z, q_pos=q, k_pos=q, q_len=131072, k_len=131072, title="T", value_name="v", palette="diverging")
    assert len(pio.to_json(fig)) < 1_000_000


def test_as_array():
    assert isinstance(as_array(torch.ones(2, requires_grad=True)), np.ndarray)
    assert isinstance(as_array([1, 2]), np.ndarray)

"""Skew figures: every cell keeps its colour from step 1 to step 4."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest
import torch

from posviz.encodings.skew import VARIANTS, cell_sources, relative_gather, skew_steps_for
from posviz.figures.layout import CHAR_EM, look
from posviz.figures.skew import (
    STEP_KEYS,
    relative_center,
    skew_animation_figure,
    skew_step_figure,
    skew_walk,
    step_titles,
)
from posviz.figures.skew_check import skew_check_figure

L, MEM = 6, 2


def setup(variant: str):
    rows = {"masked": L, "unmasked": 2 * L - 1, "rel_shift": L + MEM}[variant]
    g = torch.Generator().manual_seed(0)
    q, er = torch.randn(L, 4, generator=g), torch.randn(rows, 4, generator=g)
    steps = skew_steps_for(variant, q @ er.T)
    sources = cell_sources(variant, L, rows)
    return q, er, steps, sources, rows


@pytest.mark.parametrize("variant", VARIANTS)
def test_sources_follow_the_values(variant):
    _, _, steps, sources, rows = setup(variant)
    rel = steps.rel.numpy()
    for key in STEP_KEYS:
        values, src = getattr(steps, key).numpy(), getattr(sources, key).numpy()
        assert values.shape == src.shape
        pads = src < 0
        assert (values[pads] == 0).all()
        np.testing.assert_array_equal(values[~pads], rel.ravel()[src[~pads]])


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("colour_by", ["distance", "row"])
def test_each_value_keeps_its_colour(variant, colour_by):
    _, _, steps, sources, rows = setup(variant)
    colour_of = {}  # input cell id -> colour
    walk = skew_walk(steps, sources, variant=variant, seq_len=L, colour_by=colour_by)
    first = skew_step_figure(walk, 1).data[0]
    for step in range(1, 5):
        fig = skew_step_figure(walk, step)
        heat = next(t for t in fig.data if isinstance(t, go.Heatmap))
        z, src = np.asarray(heat.z, dtype=float), getattr(sources, STEP_KEYS[step - 1]).numpy()
        assert np.isnan(z[src < 0]).all()  # padded zeros are grey gaps
        for cell, colour in zip(src[src >= 0], z[src >= 0], strict=True):
            assert colour_of.setdefault(int(cell), colour) == colour
        assert fig.layout.title.text == step_titles(variant)[step - 1]
        assert (heat.zmin, heat.zmax) == (first.zmin, first.zmax)  # one colour scale: step 1's


def test_step_one_columns_are_labelled_by_the_distance_they_hold():
    _, _, steps, sources, _ = setup("masked")
    fig = skew_step_figure(skew_walk(steps, sources, variant="masked", seq_len=L), 1)
    assert list(fig.layout.xaxis.ticktext) == [str(c - (L - 1)) for c in range(L)]
    heat = fig.data[0]
    np.testing.assert_array_equal(np.asarray(heat.z)[0], np.arange(L) - (L - 1))  # colour = r held
    assert relative_center("masked", L, L) == L - 1


def test_after_the_skew_colours_run_along_diagonals():
    _, _, steps, sources, _ = setup("masked")
    fig = skew_step_figure(skew_walk(steps, sources, variant="masked", seq_len=L), 4)
    z = np.asarray(fig.data[0].z, dtype=float)
    i, j = np.meshgrid(np.arange(L), np.arange(L), indexing="ij")
    low = j <= i
    np.testing.assert_array_equal(z[low], (j - i)[low])  # in the causal part each cell holds r = j - i


def test_values_are_written_only_for_small_lengths():
    _, _, steps, sources, _ = setup("masked")
    fig = skew_step_figure(skew_walk(steps, sources, variant="masked", seq_len=L), 2)
    assert fig.data[0].texttemplate == "%{text}"
    assert list(fig.data[1].text) == ["0"] * L  # the padded column
    big_q = torch.randn(40, 3)
    s = skew_steps_for("masked", big_q @ torch.randn(40, 3).T)
    fig = skew_step_figure(skew_walk(s, cell_sources("masked", 40, 40), variant="masked", seq_len=40), 2)
    assert fig.data[0].texttemplate is None


def test_animation_has_a_frame_per_step_and_play():
    _, _, steps, sources, _ = setup("unmasked")
    walk = skew_walk(steps, sources, variant="unmasked", seq_len=L)
    fig = skew_animation_figure(walk)
    assert [f.name for f in fig.frames] == ["1", "2", "3", "4"]
    shapes = [np.asarray(f.data[0].z).shape for f in fig.frames]
    assert shapes == [(L, 2 * L - 1), (L, 2 * L), (L + 1, 2 * L - 1), (L, L)]
    assert fig.layout.updatemenus[0].buttons[0].label.endswith("Play")
    assert len(fig.layout.sliders[0].steps) == 4
    # Each frame brings its own title, wrapped for the room at the figure's title size.
    lecture = skew_animation_figure(walk, lecture=True)
    titles = [f.layout.title.text.replace("<br>", " ") for f in lecture.frames]
    assert titles == list(step_titles("unmasked")[:4])
    lk, size = look(True), lecture.layout.title.font.size
    for frame in lecture.frames:
        assert all(len(line) * CHAR_EM * size <= lk.width for line in frame.layout.title.text.split("<br>"))


@pytest.mark.parametrize("variant", VARIANTS)
def test_check_figures(variant):
    q, er, steps, _, _ = setup(variant)
    gather, valid = relative_gather(
        q, er, mem_len=MEM if variant == "rel_shift" else 0, both_ways=variant == "unmasked"
    )
    result = steps.sliced
    fig5 = skew_check_figure(result, gather, valid, 5, variant=variant, max_diff=1e-7)
    heat = [t for t in fig5.data if isinstance(t, go.Heatmap)]
    np.testing.assert_allclose(np.asarray(heat[0].z), result.numpy(), rtol=1e-6)
    marks = [t for t in fig5.data if isinstance(t, go.Scatter) and t.name == "garbage"]
    n_garbage = int((~valid).sum())
    assert (len(marks[0].x) if marks else 0) == n_garbage
    fig6 = skew_check_figure(result, gather, valid, 6, variant=variant, max_diff=1e-7)
    masked = np.asarray([t for t in fig6.data if isinstance(t, go.Heatmap)][0].z, dtype=float)
    assert np.isnan(masked[~valid.numpy()]).all()
    assert "10⁻⁷" in fig6.layout.title.subtitle.text


def _landed(fig, frame) -> dict:
    """The x axis after Plotly's animate lands on ``frame``: the frame's layout merged into the figure's."""
    axis = fig.layout.xaxis.to_plotly_json()
    axis.update(frame.layout.xaxis.to_plotly_json())
    return axis


def _labels(axis: dict, cols: int) -> list[str]:
    """The tick labels an axis of ``cols`` cells shows, as Plotly.js reads its tick properties
    (no ``tickmode`` with ``tickvals`` set means ``"array"``; ``ticktext`` counts only then)."""
    mode = axis.get("tickmode") or ("array" if axis.get("tickvals") is not None else "auto")
    if mode == "array":
        return list(axis["ticktext"])
    if mode == "linear":
        return [str(v) for v in range(axis.get("tick0", 0), cols, axis["dtick"])]
    return []


@pytest.mark.parametrize("variant", ["unmasked", "masked"])
def test_every_animation_step_labels_its_own_columns(variant):
    """Issue 29: step 4 kept step 1's distance labels (-7 ... 7 on a matrix of columns 0 ... 7)."""
    _, _, steps, sources, _ = setup(variant)
    walk = skew_walk(steps, sources, variant=variant, seq_len=L)
    fig = skew_animation_figure(walk)
    for n, frame in enumerate(fig.frames):
        cols = walk.grids[n].values.shape[1]
        labels = _labels(_landed(fig, frame), cols)
        if n == 0:  # the relative matrix: each column says the distance it holds
            assert labels == [str(c - walk.center) for c in range(cols)]
        else:  # padded, reshaped, sliced: plain column numbers
            assert labels == [str(c) for c in range(cols)], (n + 1, labels)
        step = skew_step_figure(walk, n + 1).layout.xaxis.to_plotly_json()
        assert _labels(step, cols) == labels  # the step-by-step figure says the same


@pytest.mark.parametrize("step", range(1, 5))
def test_a_lecture_step_fits_a_projector_below_its_buttons(step):
    _, _, steps, sources, _ = setup("masked")
    walk = skew_walk(steps, sources, variant="masked", seq_len=L)
    assert skew_step_figure(walk, step, lecture=True).layout.height <= 505  # ~505 px below the paged buttons


# --- the figures by plain arguments ------------------------------------------------------------------


def test_every_figure_of_a_view_shares_one_skew_run():
    from posviz.figures import skew, skew_check

    toy = dict(seq_len=7, dim=4, seed=3, variant="rel_shift", mem_len=2)
    skew.walkthrough.cache_clear()
    csvs = [skew.step(**toy, colour="distance", number=n).csv() for n in range(1, 5)]
    skew.step(**toy, colour="row", number=2)
    checks = [skew_check.check(**toy, number=n) for n in (5, 6)]
    skew.animation(**toy, colour="row")
    valid_pairs, max_diff = skew_check.check_summary(**toy)
    info = skew.walkthrough.cache_info()
    assert (info.misses, info.hits) == (1, 8)
    assert skew.step(**toy, colour="row", number=1).csv() == csvs[0]  # the colouring is not in the data
    assert checks[0].csv() == checks[1].csv() == csvs[3]  # the checks download the result, step 4's matrix
    assert valid_pairs == 7 * 2 + 28 and 0 <= max_diff < 1e-5
    assert checks[1].spec["layout"]["title"]["text"] == step_titles("rel_shift")[5]


def test_the_colouring_changes_only_the_colours():
    from posviz.figures import skew

    toy = dict(seq_len=5, dim=4, seed=0, variant="masked")
    by_distance, by_row = (skew.step(**toy, colour=c, number=2) for c in ("distance", "row"))
    assert by_distance.csv() == by_row.csv()
    assert by_distance.spec["data"][0]["z"] != by_row.spec["data"][0]["z"]


def test_the_memory_chart_measures_once_per_dim():
    from posviz.figures import skew_memory

    skew_memory.measurements.cache_clear()
    a, b = skew_memory.memory(dim=8, current=16), skew_memory.memory(dim=8, current=512)
    assert skew_memory.saving(dim=8) == (4096**2 * 8 * 4, 4096 * 8 * 4)
    assert skew_memory.measurements.cache_info().misses == 1  # the length only moves the marker
    assert a.csv() == b.csv() and a.spec["layout"]["shapes"] != b.spec["layout"]["shapes"]
    with pytest.raises(ValueError, match="read-only"):
        skew_memory.measurements(8)["Er"][0] = 0  # shared by every chart: nobody may change it

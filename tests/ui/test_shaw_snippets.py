"""The Shaw snippets run and rebuild exactly the tensors the page draws."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

from posviz.ui.settings import project
from posviz.ui.shaw.settings import BytesKey, IndexKey, ScoreKey, ShawSettings, TableKey, row_key, toy_key
from posviz.ui.shaw.snippets import shaw_snippet

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # no runtime: Streamlit warns that caches live in memory
    from posviz.ui.shaw import views as ui_shaw

SHAW = {
    "default": ShawSettings(),
    "shared_table": ShawSettings(separate=False, seed=4, clip=2, dim=6),
    "end_aligned": ShawSettings(q_len=10, k_len=50, align="end", clip=5, dim=8, row=9),
    "strided": ShawSettings(q_len=300, k_len=700, clip=40, dim=4, row=250, seed=9),
    "clip_zero": ShawSettings(q_len=5, k_len=5, clip=0, dim=2, row=4),
    "beyond_toy_cap": ShawSettings(q_len=3000, k_len=3000, align="end", clip=16, dim=4, row=2999),
    "one_query": ShawSettings(q_len=1, k_len=5, clip=2, dim=4),  # no row control: R[i] of the only query
    # zoomed: every cell of a window near position 100000, and a strided window of an end-aligned view
    "window_far": ShawSettings(q_len=131072, k_len=131072, clip=8, dim=4, window=48, q_start=100000, k_start=99980),
    "window_end": ShawSettings(q_len=500, k_len=3000, align="end", clip=30, dim=4, window=900, q_start=2600),
}


def run(code: str) -> dict:
    ns: dict = {}
    exec(compile(code, "<snippet>", "exec"), ns)  # noqa: S102 - our own generated code, the point of the test
    return ns


@pytest.mark.parametrize("name", SHAW)
def test_shaw_index_and_table(name):
    s = SHAW[name]
    iv, ax = ui_shaw.index_view(project(s, IndexKey)), ui_shaw.main_axes(project(s, IndexKey))
    ns = run(shaw_snippet(s, part="index", axes=ax))
    np.testing.assert_array_equal(ns["q_pos"].numpy(), ax.q_pos)
    np.testing.assert_array_equal(ns["index"].numpy(), iv.index)
    np.testing.assert_array_equal(ns["rel"].numpy(), iv.rel)
    ns = run(shaw_snippet(s, part="table"))
    table_k, table_v = ui_shaw.table_view(project(s, TableKey))
    np.testing.assert_array_equal(ns["table_k"].numpy(), table_k)
    np.testing.assert_array_equal(ns["table_v"].numpy(), table_v)
    assert np.array_equal(table_k, table_v) is not s.separate


@pytest.mark.parametrize("name", SHAW)
def test_shaw_row(name):
    s = SHAW[name]
    rv = ui_shaw.row_view(row_key(s))
    ns = run(shaw_snippet(s, part="row", k_stride=rv.k_stride))
    np.testing.assert_array_equal(ns["k_pos"].numpy(), rv.k_pos)
    np.testing.assert_array_equal(ns["R_row"].numpy(), rv.relations)
    assert rv.position == min(s.row, s.q_len - 1) + s.offset


@pytest.mark.parametrize("name", SHAW)
def test_shaw_toy(name):
    s = SHAW[name]
    toy = toy_key(s)
    tv, tx = ui_shaw.toy_view(project(toy, ScoreKey)), ui_shaw.pair_axes(toy)
    ns = run(shaw_snippet(s, part="toy", axes=tx))
    for key, ours in (
        ("content", tv.content),
        ("relative", tv.relative),
        ("weights_no_rel", tv.without),
        ("weights", tv.with_rel),
        ("value_term", ui_shaw.value_term_view(toy)),
    ):
        np.testing.assert_allclose(ns[key].numpy(), ours, rtol=1e-4, atol=1e-5, err_msg=key)
    np.testing.assert_allclose(tv.with_rel.sum(-1) <= 1 + 1e-5, True)


def test_toy_rows_sum_to_one_over_every_key():
    s = ShawSettings(q_len=40, k_len=40)
    tv = ui_shaw.toy_view(project(toy_key(s), ScoreKey))
    np.testing.assert_allclose(tv.with_rel.sum(-1), 1.0, rtol=1e-5)  # every key shown at this length


def test_bad_part_is_refused():
    with pytest.raises(ValueError, match="part must be one of"):
        shaw_snippet(ShawSettings(), part="everything")


def test_shaw_memory_view():
    mv = ui_shaw.memory_view(BytesKey(dim=8, clip=3))
    np.testing.assert_array_equal(mv.r_bytes, mv.lengths**2 * 8 * 4)
    np.testing.assert_array_equal(mv.logits, mv.lengths**2 * 4)
    assert mv.allocated.any() and not mv.allocated.all()
    assert torch.get_default_dtype() == torch.float32

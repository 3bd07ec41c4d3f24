"""The Shaw and skew snippets run and rebuild exactly the tensors the pages draw."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

from posviz.ui.shaw import ShawSettings
from posviz.ui.shaw_snippets import shaw_snippet, skew_snippet
from posviz.ui.skew import SkewSettings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from posviz.ui import shaw as ui_shaw
    from posviz.ui import skew as ui_skew

SHAW = {
    "default": ShawSettings(),
    "shared_table": ShawSettings(separate=False, seed=4, clip=2, dim=6),
    "end_aligned": ShawSettings(q_len=10, k_len=50, align="end", clip=5, dim=8, row=9),
    "strided": ShawSettings(q_len=300, k_len=700, clip=40, dim=4, row=250, seed=9),
    "clip_zero": ShawSettings(q_len=5, k_len=5, clip=0, dim=2, row=4),
    "beyond_toy_cap": ShawSettings(q_len=3000, k_len=3000, align="end", clip=16, dim=4, row=2999),
}


def run(code: str) -> dict:
    ns: dict = {}
    exec(compile(code, "<snippet>", "exec"), ns)  # noqa: S102 - our own generated code, the point of the test
    return ns


@pytest.mark.parametrize("name", SHAW)
def test_shaw_index_and_table(name):
    s = SHAW[name]
    iv = ui_shaw.index_view(s.q_len, s.k_len, s.align, s.clip)
    ns = run(shaw_snippet(s, part="index", q_stride=iv.ax.q_stride, k_stride=iv.ax.k_stride))
    np.testing.assert_array_equal(ns["q_pos"].numpy(), iv.ax.q_pos)
    np.testing.assert_array_equal(ns["index"].numpy(), iv.index)
    np.testing.assert_array_equal(ns["rel"].numpy(), iv.rel)
    ns = run(shaw_snippet(s, part="table"))
    table_k, table_v = ui_shaw.table_view(s.clip, s.dim, s.seed, s.separate)
    np.testing.assert_array_equal(ns["table_k"].numpy(), table_k)
    np.testing.assert_array_equal(ns["table_v"].numpy(), table_v)
    assert np.array_equal(table_k, table_v) is not s.separate


@pytest.mark.parametrize("name", SHAW)
def test_shaw_row(name):
    s = SHAW[name]
    rv = ui_shaw.row_view(s.q_len, s.k_len, s.align, s.clip, s.dim, s.seed, s.row)
    stride = int(rv.k_pos[1] - rv.k_pos[0]) if len(rv.k_pos) > 1 else 1
    ns = run(shaw_snippet(s, part="row", k_stride=stride))
    np.testing.assert_array_equal(ns["k_pos"].numpy(), rv.k_pos)
    np.testing.assert_array_equal(ns["R_row"].numpy(), rv.relations)
    assert rv.position == s.row + s.offset


@pytest.mark.parametrize("name", SHAW)
def test_shaw_toy(name):
    s = SHAW[name]
    tv = ui_shaw.toy_view(s.toy_q_len, s.toy_k_len, s.align, s.clip, s.dim, s.seed, s.separate)
    ns = run(shaw_snippet(s, part="toy", q_stride=tv.ax.q_stride, k_stride=tv.ax.k_stride))
    for key, ours in (
        ("content", tv.content),
        ("relative", tv.relative),
        ("weights_no_rel", tv.without),
        ("weights", tv.with_rel),
        ("value_term", tv.value_term),
    ):
        np.testing.assert_allclose(ns[key].numpy(), ours, rtol=1e-4, atol=1e-5, err_msg=key)
    np.testing.assert_allclose(tv.with_rel.sum(-1) <= 1 + 1e-5, True)


def test_toy_rows_sum_to_one_over_every_key():
    s = ShawSettings(q_len=40, k_len=40)
    tv = ui_shaw.toy_view(s.q_len, s.k_len, s.align, s.clip, s.dim, s.seed, s.separate)
    np.testing.assert_allclose(tv.with_rel.sum(-1), 1.0, rtol=1e-5)  # every key shown at this length


def test_bad_part_is_refused():
    with pytest.raises(ValueError, match="part must be one of"):
        shaw_snippet(ShawSettings(), part="everything")


SKEW = {
    "default": SkewSettings(),
    "unmasked": SkewSettings(seq_len=5, dim=8, variant="unmasked", seed=3),
    "rel_shift": SkewSettings(seq_len=7, dim=4, variant="rel_shift", mem_len=5),
    "rel_shift_no_memory": SkewSettings(seq_len=9, variant="rel_shift", mem_len=0),
    "long": SkewSettings(seq_len=200, dim=16, seed=2),
    "one": SkewSettings(seq_len=1, dim=2),
}


@pytest.mark.parametrize("name", SKEW)
def test_skew_snippet(name):
    s = SKEW[name]
    view = ui_skew.skew_view(s.seq_len, s.dim, s.seed, s.variant, s.mem_len)
    ns = run(skew_snippet(s))
    for key in ("rel", "padded", "reshaped"):
        np.testing.assert_array_equal(ns[key].numpy(), getattr(view.steps, key), err_msg=key)
    np.testing.assert_array_equal(ns["S"].numpy(), view.steps.sliced)
    np.testing.assert_array_equal(ns["valid"].numpy(), view.valid)
    np.testing.assert_allclose(ns["gather"].numpy(), view.gather, rtol=1e-5, atol=1e-6)
    assert float(ns["max_diff"]) < 1e-5 and view.max_diff < 1e-5


def test_skew_memory_view_measures_the_real_tensors():
    mv = ui_skew.memory_view(16)
    assert mv.allocated[0] and not mv.allocated[-1]
    np.testing.assert_array_equal(mv.shaw_r, mv.lengths**2 * 16 * 4)
    np.testing.assert_array_equal(mv.skew_er, mv.lengths * 16 * 4)
    np.testing.assert_array_equal(mv.logits, mv.lengths**2 * 4)


def test_shaw_memory_view():
    lengths, r_bytes, logits, allocated = ui_shaw.memory_view(8, 3)
    np.testing.assert_array_equal(r_bytes, lengths**2 * 8 * 4)
    np.testing.assert_array_equal(logits, lengths**2 * 4)
    assert allocated.any() and not allocated.all()
    assert torch.get_default_dtype() == torch.float32

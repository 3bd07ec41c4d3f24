"""The skew snippet runs and rebuilds exactly the tensors the page draws."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from posviz.ui.settings import project
from posviz.ui.skew.settings import BytesKey, SkewKey, SkewSettings
from posviz.ui.skew.snippets import skew_snippet

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # no runtime: Streamlit warns that caches live in memory
    from posviz.ui.skew import views as ui_skew


def run(code: str) -> dict:
    ns: dict = {}
    exec(compile(code, "<snippet>", "exec"), ns)  # noqa: S102 - our own generated code, the point of the test
    return ns


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
    view = ui_skew.skew_view(project(s, SkewKey))
    ns = run(skew_snippet(s))
    for key in ("rel", "padded", "reshaped"):
        np.testing.assert_array_equal(ns[key].numpy(), getattr(view.steps, key), err_msg=key)
    np.testing.assert_array_equal(ns["S"].numpy(), view.steps.sliced)
    np.testing.assert_array_equal(ns["valid"].numpy(), view.valid)
    np.testing.assert_allclose(ns["gather"].numpy(), view.gather, rtol=1e-5, atol=1e-6)
    assert float(ns["max_diff"]) < 1e-5 and view.max_diff < 1e-5


def test_skew_memory_view_measures_the_real_tensors():
    mv = ui_skew.memory_view(BytesKey(dim=16))
    assert mv.allocated[0] and not mv.allocated[-1]
    np.testing.assert_array_equal(mv.shaw_r, mv.lengths**2 * 16 * 4)
    np.testing.assert_array_equal(mv.skew_er, mv.lengths * 16 * 4)
    np.testing.assert_array_equal(mv.logits, mv.lengths**2 * 4)

"""The skew snippet runs and rebuilds exactly the tensors the page's charts carry (their CSVs and specs)."""

from __future__ import annotations

import base64
import io

import numpy as np
import pandas as pd
import pytest

from posviz.figures import skew, skew_check, skew_memory
from posviz.ui.skew.settings import SkewSettings
from posviz.ui.skew.snippets import skew_snippet


def run(code: str) -> dict:
    ns: dict = {}
    exec(compile(code, "<snippet>", "exec"), ns)  # noqa: S102 - our own generated code, the point of the test
    return ns


def spec_array(value) -> np.ndarray:
    """An array of a chart's spec: a plain list, or ``{"dtype", "bdata", "shape"}`` (base64 numpy)."""
    if isinstance(value, dict) and "bdata" in value:
        out = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        return out.reshape([int(n) for n in str(value["shape"]).split(",")]) if "shape" in value else out
    return np.asarray(value)


def matrix(chart) -> np.ndarray:
    """The matrix a step's CSV holds (rows and columns numbered from 0), at float32 as it was drawn."""
    got = pd.read_csv(io.StringIO(chart.csv()), index_col=0)
    assert list(got.index) == list(range(len(got))) and [int(c) for c in got.columns] == list(range(got.shape[1]))
    return got.to_numpy().astype(np.float32)


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
    toy = dict(seq_len=s.seq_len, dim=s.dim, seed=s.seed, variant=s.variant, mem_len=s.memory)
    ns = run(skew_snippet(s))
    for number, key in enumerate(("rel", "padded", "reshaped", "S"), start=1):
        np.testing.assert_array_equal(ns[key].numpy(), matrix(skew.step(**toy, number=number)), err_msg=key)
    np.testing.assert_array_equal(ns["S"].numpy(), matrix(skew_check.check(**toy, number=5)))
    gather_panel = skew_check.check(**toy, number=5).spec["data"][1]  # the direct gather, NaN outside the valid pairs
    gather = spec_array(gather_panel["z"])
    np.testing.assert_array_equal(ns["valid"].numpy(), ~np.isnan(gather))
    valid = ns["valid"].numpy()
    np.testing.assert_allclose(ns["gather"].numpy()[valid], gather[valid], rtol=1e-5, atol=1e-6)
    valid_pairs, max_diff = skew_check.check_summary(**toy)
    assert valid_pairs == int(valid.sum())
    assert float(ns["max_diff"]) < 1e-5 and max_diff < 1e-5


def test_skew_memory_chart_measures_the_real_tensors():
    chart = skew_memory.memory(dim=16, current=8)
    mv = pd.read_csv(io.StringIO(chart.csv()))
    lengths = mv["L"].to_numpy()
    np.testing.assert_array_equal(lengths, skew_memory.MEMORY_LENGTHS)
    allocated = np.array(chart.spec["data"][0]["marker"]["symbol"]) == "circle"  # open circles: the meta device
    assert allocated[0] and not allocated[-1]
    np.testing.assert_array_equal(allocated, lengths**2 * 16 * 4 <= skew_memory.ALLOCATE_UP_TO)
    np.testing.assert_array_equal(mv["Shaw R bytes"], lengths**2 * 16 * 4)
    np.testing.assert_array_equal(mv["skew Er bytes"], lengths * 16 * 4)
    np.testing.assert_array_equal(mv["logits bytes"], lengths**2 * 4)
    assert skew_memory.saving(dim=16, length=4096) == (4096**2 * 16 * 4, 4096 * 16 * 4)
    assert skew_memory.saving(dim=16, length=4095) is None  # a length the chart does not measure

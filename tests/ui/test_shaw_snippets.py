"""The Shaw snippets run and rebuild exactly the tensors the page's charts carry (their CSVs and specs)."""

from __future__ import annotations

import base64
import io

import numpy as np
import pandas as pd
import pytest
import torch

from posviz.figures import shaw, shaw_toy
from posviz.ui.shaw.settings import ShawSettings
from posviz.ui.shaw.snippets import shaw_snippet

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


def frame(chart) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(chart.csv()))


def grid(f: pd.DataFrame, column: str) -> np.ndarray:
    """A panel of a (query, key) CSV as its (q shown, k shown) matrix."""
    return f.pivot(index="query i", columns="key j", values=column).to_numpy()


def spec_array(value) -> np.ndarray:
    """An array of a chart's spec: a plain list, or ``{"dtype", "bdata", "shape"}`` (base64 numpy)."""
    if isinstance(value, dict) and "bdata" in value:
        out = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        return out.reshape([int(n) for n in str(value["shape"]).split(",")]) if "shape" in value else out
    return np.asarray(value)


def lengths(s: ShawSettings) -> dict:
    return dict(q_len=s.q_len, k_len=s.k_len, align=s.align)


def zoom(s: ShawSettings) -> dict:
    return dict(window=s.window, q_start=s.q_start, k_start=s.k_start)


def toy(s: ShawSettings) -> dict:
    return dict(q_len=s.toy_q_len, k_len=s.toy_k_len, align=s.align, clip=s.clip, dim=s.dim, seed=s.seed, **zoom(s))


@pytest.mark.parametrize("name", SHAW)
def test_shaw_index_and_table(name):
    s = SHAW[name]
    ax = shaw.main_axes(**lengths(s), **zoom(s))
    chart = shaw.index(**lengths(s), clip=s.clip, **zoom(s))
    drawn = frame(chart)
    ns = run(shaw_snippet(s, part="index", axes=ax))
    np.testing.assert_array_equal(ns["q_pos"].numpy(), ax.q_pos)
    np.testing.assert_array_equal(ns["q_pos"].numpy(), np.unique(drawn["query i"]))
    np.testing.assert_array_equal(ns["k_pos"].numpy(), np.unique(drawn["key j"]))
    np.testing.assert_array_equal(ns["index"].numpy(), grid(drawn, "index"))
    np.testing.assert_array_equal(ns["rel"].numpy(), grid(drawn, "r = j - i"))
    z = spec_array(chart.spec["data"][2]["z"])  # the third panel draws the table rows
    np.testing.assert_array_equal(ns["index"].numpy(), z)
    ns = run(shaw_snippet(s, part="table"))
    tables = frame(shaw.table(clip=s.clip, dim=s.dim, seed=s.seed, separate=s.separate))
    names = ("a^K (keys)", "a^V (values)") if s.separate else ("a^K = a^V (shared)",) * 2
    for key, name_ in zip(("table_k", "table_v"), names, strict=True):
        drawn_table = np.stack([tables[f"{name_} component {c}"] for c in range(s.dim)], axis=1).astype(np.float32)
        np.testing.assert_array_equal(ns[key].numpy(), drawn_table, err_msg=key)
    assert len(tables.columns) == (2 if s.separate else 1) * s.dim
    assert torch.equal(ns["table_k"], ns["table_v"]) is not s.separate


@pytest.mark.parametrize("name", SHAW)
def test_shaw_row(name):
    s = SHAW[name]
    chart = shaw.relations_row(**lengths(s), clip=s.clip, dim=s.dim, seed=s.seed, row=s.shown_row)
    drawn = frame(chart)
    ns = run(shaw_snippet(s, part="row", k_stride=shaw.row_stride(s.k_len)))
    np.testing.assert_array_equal(ns["k_pos"].numpy(), drawn["key j"])
    np.testing.assert_array_equal(ns["index"].numpy(), drawn["table row"])
    components = np.stack([drawn[f"component {c}"] for c in range(s.dim)], axis=1).astype(np.float32)
    np.testing.assert_array_equal(ns["R_row"].numpy(), components)
    position = min(s.row, s.q_len - 1) + s.offset
    assert ns["i"] == position and chart.spec["layout"]["title"]["text"].startswith(f"R[{position}] ")


@pytest.mark.parametrize("name", SHAW)
def test_shaw_toy(name):
    s = SHAW[name]
    ax = shaw_toy.pair_axes(q_len=s.toy_q_len, k_len=s.toy_k_len, align=s.align, **zoom(s))
    ns = run(shaw_snippet(s, part="toy", axes=ax))
    scores, attention = frame(shaw_toy.scores(**toy(s))), frame(shaw_toy.attention(**toy(s)))
    term = pd.read_csv(io.StringIO(shaw_toy.value_term(**toy(s), separate=s.separate).csv()), index_col=0)
    for key, ours in (
        ("content", grid(scores, "Q K^T")),
        ("relative", grid(scores, "Q R^T")),
        ("weights_no_rel", grid(attention, "without")),
        ("weights", grid(attention, "with")),
        ("value_term", term.to_numpy()),
    ):
        np.testing.assert_allclose(ns[key].numpy(), ours, rtol=1e-4, atol=1e-5, err_msg=key)
    np.testing.assert_array_equal(term.index, ax.q_pos)
    assert (ns["weights"].sum(-1) <= 1 + 1e-5).all()


def test_toy_rows_sum_to_one_over_every_key():
    s = ShawSettings(q_len=40, k_len=40)
    attention = frame(shaw_toy.attention(**toy(s)))
    assert len(attention) == 40 * 40  # every key shown at this length
    np.testing.assert_allclose(attention.groupby("query i")["with"].sum(), 1.0, rtol=1e-5)


def test_bad_part_is_refused():
    with pytest.raises(ValueError, match="part must be one of"):
        shaw_snippet(ShawSettings(), part="everything")


def test_shaw_memory_chart():
    chart = shaw.memory(dim=8, clip=3, current=64)
    mv = frame(chart)
    lengths_ = mv["L"].to_numpy()
    np.testing.assert_array_equal(lengths_, shaw.MEMORY_LENGTHS)
    np.testing.assert_array_equal(mv["R bytes"], lengths_**2 * 8 * 4)
    np.testing.assert_array_equal(mv["logits bytes"], lengths_**2 * 4)
    np.testing.assert_array_equal(mv["allocated"], lengths_**2 * 8 * 4 <= shaw.ALLOCATE_UP_TO)
    assert mv["allocated"].any() and not mv["allocated"].all()
    symbols = chart.spec["data"][0]["marker"]["symbol"]
    assert symbols == ["circle" if a else "circle-open" for a in mv["allocated"]]
    assert torch.get_default_dtype() == torch.float32

"""Every generated CoPE snippet runs and rebuilds exactly the tensors the page draws (each figure's CSV and
spec); the custom table input."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
import torch

from posviz.encodings.cope_toy import MODES, gate_values
from posviz.encodings.tokens import tokenize
from posviz.figures import cope, cope_pitfall, cope_query
from posviz.figures.cope import COPE_MAX_TOKENS
from posviz.ui.cope.settings import CopeSettings, gate_temperature
from posviz.ui.cope.snippets import cope_snippet
from tests.app.conftest import array  # plotly's typed arrays decoded

LONG = " ".join(f"word{i % 7}{'.' if i % 5 == 4 else ''}" for i in range(700))
SETTINGS = {
    "default": CopeSettings(query=31, key=15),
    "tokens-clamped": CopeSettings(mode="count-tokens", npos_max=5, query=20, key=3),
    "random": CopeSettings(mode="random", temperature=2.5, dim=6, seed=3, query=10, key=4),
    "random-long": CopeSettings(text=LONG, mode="random", npos_max=300, dim=8, query=800, key=450),
    "sentences-long": CopeSettings(text=LONG, mode="count-sentences", npos_max=64, dim=4, query=839, key=3),
    "custom": CopeSettings(mode="custom", npos_max=9, seed=5, query=25, key=24),
    "odd-text": CopeSettings(text="x'y \"q\" \\n <b>?</b> ''' é…", mode="random", npos_max=3, query=3, key=1),
}


def run(code: str) -> dict:
    ns: dict = {}
    exec(compile(code, "<snippet>", "exec"), ns)  # noqa: S102 - our own generated code, the point of the test
    return ns


def custom_of(s: CopeSettings) -> np.ndarray | None:
    if s.mode != "custom":
        return None
    rng = np.random.default_rng(s.seed)
    return rng.random(len(tokenize(s.text))).astype(np.float32)  # an edited table with awkward values


def toy(s: CopeSettings) -> dict:
    """The figures' arguments, as the page passes them: the gate table as bytes."""
    custom = custom_of(s)
    return dict(
        text=s.text, mode=s.mode, temperature=gate_temperature(s), npos_max=s.npos_max, dim=s.dim, seed=s.seed,
        custom=b"" if custom is None else custom.tobytes(),
    )  # fmt: skip


def custom_list(s):
    c = custom_of(s)
    return None if c is None else c.tolist()


def matrix(chart) -> pd.DataFrame:
    """A matrix CSV read back: query rows, key columns."""
    frame = pd.read_csv(io.StringIO(chart.csv()), index_col=0)
    frame.columns = frame.columns.astype(int)
    return frame


def panels(chart, name: str) -> pd.DataFrame:
    """One panel of a panels CSV (a row per (query, key)) pivoted back to query rows, key columns."""
    return pd.read_csv(io.StringIO(chart.csv())).pivot(index="query i", columns="key j", values=name)


def n_of(s: CopeSettings) -> int:
    return min(len(tokenize(s.text)), COPE_MAX_TOKENS)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_matrices_snippet(name):
    s = SETTINGS[name]
    gates = matrix(cope.gates(**toy(s)))
    rows = gates.index.to_numpy()
    ns = run(cope_snippet(s, part="matrices", n=n_of(s), custom=custom_list(s)))
    cols = ns["cols"]
    np.testing.assert_array_equal(ns["rows"].numpy(), rows)
    np.testing.assert_array_equal(cols.numpy(), gates.columns.to_numpy())
    np.testing.assert_array_equal(ns["gates"][:, cols].numpy(), gates.to_numpy(np.float32))
    chart = cope.positions(**toy(s))
    np.testing.assert_array_equal(ns["pos"][:, cols].numpy(), matrix(chart).to_numpy(np.float32))
    clamped = (ns["raw"][:, cols] > s.npos_max - 1).numpy()  # the cells the figure marks with a cross
    marks = [t for t in chart.spec["data"] if t.get("name") == f"clamped at {s.npos_max - 1}"]
    drawn = set()
    if marks:
        drawn = set(zip(array(marks[0]["y"]).tolist(), array(marks[0]["x"]).tolist(), strict=True))
    want = {(int(rows[r]), int(cols[c])) for r, c in zip(*np.nonzero(clamped), strict=True)}
    assert drawn == want
    logits = matrix(cope.position_logits(**toy(s))).to_numpy(np.float32)
    np.testing.assert_allclose(ns["pos_logits"][:, cols].numpy(), logits, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_attention_snippet(name):
    s = SETTINGS[name]
    chart = cope.attention(**toy(s))
    rows = panels(chart, cope.ATTENTION_TITLES[0]).index.to_numpy()
    ns = run(cope_snippet(s, part="attention", n=n_of(s), custom=custom_list(s)))
    np.testing.assert_array_equal(ns["rows"].numpy(), rows)
    for key, title in zip(("weights_none", "weights_relative", "weights_cope"), cope.ATTENTION_TITLES, strict=True):
        np.testing.assert_allclose(ns[key].numpy(), panels(chart, title).to_numpy(), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_row_snippet(name):
    s = SETTINGS[name]
    ns = run(cope_snippet(s, part="row", custom=custom_list(s)))
    _, row = cope_query.query_row(**toy(s), query=s.query)  # what the row's figures and tables read
    np.testing.assert_array_equal(ns["pos"][0].numpy(), row.positions.numpy())
    np.testing.assert_allclose(ns["pos_logits"][0].numpy(), row.pos_logits.numpy(), rtol=1e-5, atol=1e-5)
    z = pd.read_csv(io.StringIO(cope_query.interpolation(**toy(s), query=s.query, key=s.key).csv()))
    np.testing.assert_allclose(ns["logits_int"][0].numpy(), z["z_i[p]"], rtol=1e-6, atol=1e-6)
    bars = pd.read_csv(io.StringIO(cope_query.counting(**toy(s), query=s.query).csv()))
    np.testing.assert_array_equal(ns["pos"][0, bars["key j"].tolist()].numpy(), bars["p_ij"].to_numpy(np.float32))
    pair = cope_query.pair_table(**toy(s), query=s.query, key=s.key)
    assert float(ns["z_pair"]) == pytest.approx(pair["z_i[p_ij]"][0], abs=1e-5)
    assert float(ns["pos_logits"][0, s.key]) == pytest.approx(pair["z_i[p_ij]"][0], abs=1e-5)
    assert float(ns["p"]) == pytest.approx(pair["p_ij"][0], abs=1e-6)
    assert (ns["floor"], ns["ceil"]) == (pair["floor"][0], pair["ceil"][0])
    exact = cope_query.pair(**toy(s), query=s.query, key=s.key)
    assert float(ns["p"]) == exact.p and float(ns["z_pair"]) == pytest.approx(exact.value, abs=1e-5)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_pitfall_snippet(name):
    s = SETTINGS[name]
    chart = cope_pitfall.pitfall(**toy(s))
    ns = run(cope_snippet(s, part="pitfall", n=n_of(s), custom=custom_list(s)))
    cols = ns["cols"]
    np.testing.assert_array_equal(ns["rows"].numpy(), panels(chart, "mask before").index.to_numpy())
    np.testing.assert_array_equal(cols.numpy(), panels(chart, "mask before").columns.to_numpy())
    np.testing.assert_array_equal(ns["pos"][:, cols].numpy(), panels(chart, "mask before").to_numpy(np.float32))
    np.testing.assert_allclose(ns["pos_wrong"][:, cols].numpy(), panels(chart, "mask after"), rtol=1e-6, atol=1e-6)
    leak = matrix(cope_pitfall.pitfall_difference(**toy(s))).to_numpy()
    np.testing.assert_allclose(ns["leak"][:, cols].numpy(), leak, rtol=1e-5, atol=1e-5)


def test_every_mode_has_a_setting():
    assert {s.mode for s in SETTINGS.values()} == set(MODES)


def test_count_tokens_view_is_relative():
    s = SETTINGS["tokens-clamped"]
    chart = cope.positions(**toy(s))
    drawn = matrix(chart)
    i, j = np.meshgrid(drawn.index.to_numpy(), drawn.columns.to_numpy(), indexing="ij")
    expected = np.where(j <= i, np.minimum(i - j + 1, s.npos_max - 1), 0)
    np.testing.assert_array_equal(drawn.to_numpy(), expected)
    (marks,) = [t for t in chart.spec["data"] if t.get("name") == f"clamped at {s.npos_max - 1}"]
    clamped = {(q, k) for q, k in zip(i.ravel(), j.ravel(), strict=True) if k <= q and q - k + 1 > s.npos_max - 1}
    assert set(zip(array(marks["y"]).tolist(), array(marks["x"]).tolist(), strict=True)) == clamped


def test_pitfall_leak_is_the_rows_future_gates():
    s = SETTINGS["random"]
    _, t = cope.toy_of(**toy(s))
    unmasked = torch.sigmoid(t.q[s.query] @ t.k.T / s.temperature)  # (n,): no mask at all
    leak = cope_query.future_gate_sum(**toy(s), query=s.query)
    assert leak == pytest.approx(float(unmasked[s.query + 1 :].sum()), rel=1e-6)
    assert leak > 0


def test_long_text_computes_only_shown_rows():
    s = SETTINGS["random-long"]
    v = cope.shown(**toy(s))
    n = len(tokenize(LONG))
    assert len(v.tokens) == n > cope.MAIN_POINTS
    assert v.gates.shape == (len(v.pos), len(v.pos))
    assert len(v.pos) <= cope.MAIN_POINTS and v.pos[-1] == n - 1


def test_custom_gate_values_fall_back_when_the_table_does_not_fit():
    tokens = ["a", ",", "b"]
    np.testing.assert_array_equal(gate_values("custom", tokens, b""), [1, 0, 1])
    table = np.array([0.5, 0.25, 1.0], dtype=np.float32)
    np.testing.assert_array_equal(gate_values("custom", tokens, table.tobytes()), table)
    np.testing.assert_array_equal(gate_values("custom", tokens, table[:2].tobytes()), [1, 0, 1])
    assert gate_values("random", tokens, b"") is None
    with pytest.raises(ValueError, match="mode must be one of"):
        gate_values("sideways", tokens)

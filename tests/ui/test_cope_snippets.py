"""Every generated CoPE snippet runs and rebuilds exactly the tensors the page draws; the custom table input."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from posviz.encodings.tokens import tokenize
from posviz.ui.cope.settings import MAIN_POINTS, MODES, CopeSettings, PairKey, RowKey, ViewKey, gate_key
from posviz.ui.cope.snippets import cope_snippet

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from posviz.ui.cope import views as ui

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


def uncached(fn):
    return getattr(fn, "__wrapped__", fn)


def custom_of(s: CopeSettings) -> np.ndarray | None:
    if s.mode != "custom":
        return None
    rng = np.random.default_rng(s.seed)
    return rng.random(len(tokenize(s.text))).astype(np.float32)  # an edited table with awkward values


def args(s: CopeSettings, cls: type = ViewKey):
    """A view's arguments: the settings' key ``cls`` and the gate table's bytes."""
    custom = custom_of(s)
    return gate_key(s, cls), b"" if custom is None else custom.tobytes()


def stride(pos: np.ndarray) -> int:
    return int(pos[1] - pos[0]) if len(pos) > 1 else 1


def custom_list(s):
    c = custom_of(s)
    return None if c is None else c.tolist()


def view_and_snippet(s: CopeSettings, view_fn, part: str, rows_of) -> tuple[Any, dict]:
    """The page's view (computed afresh) and what ``part``'s snippet defines when it runs at the stride of
    the rows that view shows (``rows_of(view)``)."""
    view = uncached(view_fn)(*args(s))
    return view, run(cope_snippet(s, part=part, stride=stride(rows_of(view)), custom=custom_list(s)))


@pytest.mark.parametrize("name", list(SETTINGS))
def test_matrices_snippet(name):
    s = SETTINGS[name]
    view, ns = view_and_snippet(s, ui.cope_view, "matrices", lambda v: v.q_pos)
    cols = ns["cols"]
    np.testing.assert_array_equal(ns["rows"].numpy(), view.q_pos)
    np.testing.assert_array_equal(ns["gates"][:, cols].numpy(), view.gates)
    np.testing.assert_array_equal(ns["pos"][:, cols].numpy(), view.positions)
    np.testing.assert_array_equal((ns["raw"][:, cols] > s.npos_max - 1).numpy(), view.clamped)
    np.testing.assert_allclose(ns["pos_logits"][:, cols].numpy(), view.pos_logits, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_attention_snippet(name):
    view, ns = view_and_snippet(SETTINGS[name], ui.cope_view, "attention", lambda v: v.attn_q)
    for key, got in zip(("weights_none", "weights_relative", "weights_cope"), view.attention, strict=True):
        np.testing.assert_allclose(ns[key].numpy(), got, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_row_snippet(name):
    s = SETTINGS[name]
    row = uncached(ui.row_view)(*args(s, RowKey))
    pair = ui.pair_view(*args(s, PairKey))  # read off the (cached) row
    ns = run(cope_snippet(s, part="row", custom=custom_list(s)))
    np.testing.assert_array_equal(ns["pos"][0].numpy(), row.positions)
    np.testing.assert_allclose(ns["logits_int"][0].numpy(), row.z_row, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ns["pos_logits"][0].numpy(), row.pos_logits, rtol=1e-5, atol=1e-5)
    assert float(ns["z_pair"]) == pytest.approx(pair.value, abs=1e-5)
    assert float(ns["pos_logits"][0, s.key]) == pytest.approx(pair.value, abs=1e-5)
    assert float(ns["p"]) == pair.p
    assert (ns["floor"], ns["ceil"]) == (pair.floor, pair.ceil)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_pitfall_snippet(name):
    pv, ns = view_and_snippet(SETTINGS[name], ui.pitfall_view, "pitfall", lambda v: v.pos)
    cols = ns["cols"]
    np.testing.assert_array_equal(ns["pos"][:, cols].numpy(), pv.right)
    np.testing.assert_allclose(ns["pos_wrong"][:, cols].numpy(), pv.wrong, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ns["leak"][:, cols].numpy(), pv.diff, rtol=1e-5, atol=1e-5)


def test_every_mode_has_a_setting():
    assert {s.mode for s in SETTINGS.values()} == set(MODES)


def test_count_tokens_view_is_relative():
    s = SETTINGS["tokens-clamped"]
    view = uncached(ui.cope_view)(*args(s))
    i, j = np.meshgrid(view.q_pos, view.k_pos, indexing="ij")
    expected = np.where(j <= i, np.minimum(i - j + 1, s.npos_max - 1), 0)
    np.testing.assert_array_equal(view.positions, expected)
    np.testing.assert_array_equal(view.clamped, (j <= i) & (i - j + 1 > s.npos_max - 1))


def test_pitfall_leak_is_the_rows_future_gates():
    s = SETTINGS["random"]
    row = uncached(ui.row_view)(*args(s, RowKey))
    inp = ui.inputs(*args(s))
    unmasked = ui.gate_rows(inp, __import__("torch").tensor([s.query]), masked=False)[0].numpy()
    assert row.future_sum == pytest.approx(float(unmasked[s.query + 1 :].sum()), rel=1e-6)
    assert row.future_sum > 0


def test_long_text_computes_only_shown_rows():
    s = SETTINGS["random-long"]
    view = uncached(ui.cope_view)(*args(s))
    assert view.n == len(tokenize(LONG)) > MAIN_POINTS
    assert view.gates.shape == (len(view.q_pos), len(view.k_pos))
    assert len(view.q_pos) <= MAIN_POINTS and view.q_pos[-1] == view.n - 1


def test_custom_gate_values_fall_back_when_the_table_does_not_fit():
    tokens = ["a", ",", "b"]
    np.testing.assert_array_equal(ui.gate_values("custom", tokens, b""), [1, 0, 1])
    table = np.array([0.5, 0.25, 1.0], dtype=np.float32)
    np.testing.assert_array_equal(ui.gate_values("custom", tokens, table.tobytes()), table)
    assert ui.gate_values("random", tokens, b"") is None

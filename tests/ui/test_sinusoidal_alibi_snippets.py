"""The sinusoidal and ALiBi snippets run and rebuild the tensors their pages draw."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from posviz.figures import alibi
from posviz.figures.sinusoidal import similarity, table
from posviz.ui.alibi.settings import AlibiSettings
from posviz.ui.alibi.snippets import ALIBI_PARTS, alibi_snippet
from posviz.ui.sinusoidal.settings import SinusoidalSettings
from posviz.ui.sinusoidal.snippets import SINUSOIDAL_PARTS, sinusoidal_snippet


def run(code: str) -> dict:
    scope: dict = {}
    exec(compile(code, "<snippet>", "exec"), scope)  # noqa: S102 - our own generated code
    return scope


SIN_SETTINGS = [
    SinusoidalSettings(),
    SinusoidalSettings(seq_len=5000, dim=16, base=500.0, layout="concat", seed=3),
    SinusoidalSettings(seq_len=7, dim=2),
]


def chart_frame(chart) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(chart.csv()))


def matrix_frame(chart) -> pd.DataFrame:
    """A chart's CSV of a (query, key) matrix: query positions down, key positions across."""
    return pd.read_csv(io.StringIO(chart.csv()), index_col=0)


@pytest.mark.parametrize("s", SIN_SETTINGS, ids=str)
def test_sinusoidal_snippets_match_the_page(s):
    shape = dict(seq_len=s.seq_len, dim=s.dim, base=s.base)
    rows = matrix_frame(table.heatmap(**shape, layout=s.layout))
    got = run(sinusoidal_snippet(s, part="table", stride=table.table_stride(s.seq_len)))
    assert len(got["shown_pe"]) == len(rows)
    np.testing.assert_allclose(got["shown_pe"].numpy(), rows.to_numpy(), atol=1e-6)
    sim = matrix_frame(similarity.matrix(**shape))
    got = run(sinusoidal_snippet(s, part="similarity", stride=similarity.sim_stride(s.seq_len)))
    assert got["sim"].shape == sim.shape
    np.testing.assert_allclose(got["sim"].numpy(), sim.to_numpy(), atol=1e-9)
    cosines = chart_frame(similarity.learned(learned_len=s.learned_len, dim=s.dim, base=s.base, seed=s.seed))
    learned = cosines.pivot(index="query i", columns="key j", values="learned")
    got = run(sinusoidal_snippet(s, part="learned", stride=similarity.learned_stride(s.learned_len)))
    assert got["learned_cos"].shape == learned.shape
    np.testing.assert_allclose(got["learned_cos"].numpy(), learned.to_numpy(), atol=1e-5)


ALIBI_SETTINGS = [
    AlibiSettings(),
    AlibiSettings(heads=12, seq_len=3000, causal=False),
    AlibiSettings(heads=1, seq_len=1),
    AlibiSettings(seq_len=131072, window=32, q_start=100000, k_start=99990),  # a zoom, every cell
    AlibiSettings(heads=3, seq_len=5000, causal=False, window=1000, q_start=4500, k_start=10),  # strided zoom
]


@pytest.mark.parametrize("s", ALIBI_SETTINGS, ids=str)
def test_alibi_snippets_match_the_page(s):
    slopes = chart_frame(alibi.slopes(heads=s.heads))["slope"].to_numpy()
    np.testing.assert_allclose(run(alibi_snippet(s, part="slopes"))["slopes"].numpy(), slopes, rtol=1e-12)
    ax = alibi.bias_axes(seq_len=s.seq_len, window=s.window, q_start=s.q_start, k_start=s.k_start)
    hs = alibi.shown_heads(s.heads, alibi.GRID_HEADS)
    scope = run(alibi_snippet(s, part="bias", axes=ax, heads_shown=hs.tolist()))
    drawn = chart_frame(alibi.bias_grid(heads=s.heads, seq_len=s.seq_len, causal=s.causal, window=s.window,
                                        q_start=s.q_start, k_start=s.k_start))  # fmt: skip
    np.testing.assert_array_equal(scope["q_pos"].numpy(), np.unique(drawn["query i"]))
    np.testing.assert_array_equal(scope["k_pos"].numpy(), np.unique(drawn["key j"]))
    np.testing.assert_array_equal(sorted(set(drawn["head"])), hs + 1)
    np.testing.assert_allclose(scope["bias"].numpy().ravel(), drawn["bias"], rtol=1e-6, atol=1e-6)
    curves = chart_frame(alibi.receptive_field(heads=s.heads, seq_len=s.seq_len))
    hs = alibi.shown_heads(s.heads, alibi.CURVE_HEADS)
    weights = run(alibi_snippet(s, part="receptive", heads_shown=hs.tolist()))["weights"].numpy()
    d = curves["distance"].to_numpy()
    for row, h in enumerate(hs):
        np.testing.assert_allclose(weights[row, d], curves[f"head {h + 1}"], rtol=1e-6, atol=1e-15)


def test_unknown_parts_are_refused():
    with pytest.raises(ValueError, match="part"):
        sinusoidal_snippet(SinusoidalSettings(), part="waves")
    with pytest.raises(ValueError, match="part"):
        alibi_snippet(AlibiSettings(), part="grid")
    assert "table" in SINUSOIDAL_PARTS and "bias" in ALIBI_PARTS

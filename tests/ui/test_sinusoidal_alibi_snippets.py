"""The sinusoidal and ALiBi snippets run and rebuild the tensors their pages draw."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import pytest

from posviz.figures import alibi
from posviz.ui.alibi.settings import AlibiSettings
from posviz.ui.alibi.snippets import ALIBI_PARTS, alibi_snippet
from posviz.ui.settings import project
from posviz.ui.sinusoidal.settings import LearnedKey, SinusoidalSettings, TableKey
from posviz.ui.sinusoidal.snippets import SINUSOIDAL_PARTS, sinusoidal_snippet

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # no runtime: Streamlit warns that caches live in memory
    from posviz.ui.sinusoidal import views as sin_ui


def run(code: str) -> dict:
    scope: dict = {}
    exec(compile(code, "<snippet>", "exec"), scope)  # noqa: S102 - our own generated code
    return scope


SIN_SETTINGS = [
    SinusoidalSettings(),
    SinusoidalSettings(seq_len=5000, dim=16, base=500.0, layout="concat", seed=3),
    SinusoidalSettings(seq_len=7, dim=2),
]


@pytest.mark.parametrize("s", SIN_SETTINGS, ids=str)
def test_sinusoidal_snippets_match_the_page(s):
    tv = sin_ui.table_view.__wrapped__(project(s, TableKey))
    got = run(sinusoidal_snippet(s, part="table", stride=sin_ui.table_stride(s.seq_len)))
    np.testing.assert_allclose(got["shown_pe"].numpy(), tv.table, atol=1e-6)
    sv = sin_ui.similarity_view.__wrapped__(project(s, TableKey))
    got = run(sinusoidal_snippet(s, part="similarity", stride=sin_ui.sim_stride(s.seq_len)))
    np.testing.assert_allclose(got["sim"].numpy(), sv.sim, atol=1e-9)
    lv = sin_ui.learned_view.__wrapped__(project(s, LearnedKey))
    got = run(sinusoidal_snippet(s, part="learned", stride=lv.stride))
    np.testing.assert_allclose(got["learned_cos"].numpy(), lv.learned_cos, atol=1e-5)


ALIBI_SETTINGS = [
    AlibiSettings(),
    AlibiSettings(heads=12, seq_len=3000, causal=False),
    AlibiSettings(heads=1, seq_len=1),
    AlibiSettings(seq_len=131072, window=32, q_start=100000, k_start=99990),  # a zoom, every cell
    AlibiSettings(heads=3, seq_len=5000, causal=False, window=1000, q_start=4500, k_start=10),  # strided zoom
]


def chart_frame(chart) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(chart.csv()))


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

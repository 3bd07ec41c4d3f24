"""The sinusoidal and ALiBi snippets run and rebuild the tensors their pages draw."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from posviz.ui.alibi.settings import AlibiSettings, ReceptiveKey, SlopesKey
from posviz.ui.alibi.snippets import ALIBI_PARTS, alibi_snippet
from posviz.ui.settings import project
from posviz.ui.sinusoidal.settings import LearnedKey, SinusoidalSettings, TableKey
from posviz.ui.sinusoidal.snippets import SINUSOIDAL_PARTS, sinusoidal_snippet

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # no runtime: Streamlit warns that caches live in memory
    from posviz.ui.alibi import views as alibi_ui
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


@pytest.mark.parametrize("s", ALIBI_SETTINGS, ids=str)
def test_alibi_snippets_match_the_page(s):
    sl = alibi_ui.slopes_view.__wrapped__(project(s, SlopesKey))
    np.testing.assert_array_equal(run(alibi_snippet(s, part="slopes"))["slopes"].numpy(), sl.slopes)
    bv = alibi_ui.bias_view.__wrapped__(s)
    scope = run(alibi_snippet(s, part="bias", axes=alibi_ui.bias_axes(s), heads_shown=bv.heads_shown.tolist()))
    np.testing.assert_array_equal(scope["q_pos"].numpy(), bv.q_pos)
    np.testing.assert_array_equal(scope["k_pos"].numpy(), bv.k_pos)
    np.testing.assert_allclose(scope["bias"].numpy(), bv.bias, rtol=1e-6, atol=1e-6)
    rv = alibi_ui.receptive_view.__wrapped__(project(s, ReceptiveKey))
    weights = run(alibi_snippet(s, part="receptive", heads_shown=rv.heads_shown.tolist()))["weights"].numpy()
    np.testing.assert_allclose(weights[:, rv.distances], rv.weights, rtol=1e-9, atol=1e-15)


def test_unknown_parts_are_refused():
    with pytest.raises(ValueError, match="part"):
        sinusoidal_snippet(SinusoidalSettings(), part="waves")
    with pytest.raises(ValueError, match="part"):
        alibi_snippet(AlibiSettings(), part="grid")
    assert "table" in SINUSOIDAL_PARTS and "bias" in ALIBI_PARTS

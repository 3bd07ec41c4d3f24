"""ALiBi's figures come with their CSV: one cached function returns both (posviz.ui.cache.Chart)."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd

from posviz.encodings.alibi import alibi_slopes
from posviz.ui.alibi.settings import AlibiSettings, ReceptiveKey, SlopesKey
from posviz.ui.settings import project

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # no runtime: Streamlit warns that caches live in memory
    from posviz.ui.alibi import charts
    from posviz.ui.alibi.views import bias_view, receptive_view
    from posviz.ui.cache import Chart


def frame(chart: Chart) -> pd.DataFrame:
    assert isinstance(chart, Chart) and chart.csv is not None
    return pd.read_csv(io.StringIO(chart.csv()))


def test_each_chart_carries_the_data_it_draws():
    s = AlibiSettings(heads=6, seq_len=300)
    sk, rk = project(s, SlopesKey), project(s, ReceptiveKey)
    for fn in (charts.slopes, charts.interleave):
        got = frame(fn.uncached(sk, False))
        assert list(got["head"]) == list(range(1, 7))
        np.testing.assert_allclose(got["slope"], alibi_slopes(6).numpy())
    bias = frame(charts.bias_grid.uncached(s, False))
    np.testing.assert_allclose(bias["bias"], bias_view(s).bias.ravel(), rtol=1e-6)
    receptive = frame(charts.receptive_field.uncached(rk, False))
    v = receptive_view(rk)
    np.testing.assert_allclose(receptive["distance"], v.distances)
    np.testing.assert_allclose(receptive[f"head {int(v.heads_shown[0]) + 1}"], v.weights[0], rtol=1e-6)

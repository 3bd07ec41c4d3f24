"""AppTest: the xPos page with default, changed and hostile link parameters."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
import torch

from posviz.encodings.xpos import xpos_zeta
from posviz.figures import xpos
from posviz.ui.xpos.settings import XposSettings
from posviz.ui.xpos.snippets import page_snippets

from .conftest import array, assert_healthy, chart, charts, open_code, open_page, value_of, warnings


def open_xpos(**params):
    return open_page("pages/xpos.py", **params)


@pytest.fixture(scope="module")
def default():
    return open_xpos()


def test_defaults_render(default):
    assert_healthy(default)
    assert default.title[0].value.startswith("xPos")
    assert len(charts(default)) == 2
    assert value_of(default, "scale_base") == 512 and value_of(default, "dim") == 64
    for c in charts(default):
        assert c.title.strip() and c.spec["data"], c.key


def test_the_decay_figure_draws_zeta_to_the_distance_over_the_scale():
    at = open_xpos(dim="16", scale_base="100", seq_len="1000")
    assert_healthy(at)
    fig = chart(at, "xpos_decay")
    zeta = xpos_zeta(16).numpy()
    first = fig.spec["data"][0]  # pair 0
    x, y = array(first["x"]).astype(float), array(first["y"]).astype(float)
    np.testing.assert_allclose(y, zeta[0] ** (x / 100), rtol=1e-5)
    assert x.max() == 999


def test_a_larger_scale_base_decays_less():
    fast = array(chart(open_xpos(scale_base="64"), "xpos_scores").spec["data"][1]["y"])
    slow_page = chart(open_xpos(scale_base="100000"), "xpos_scores").spec["data"]
    slow, rope = array(slow_page[1]["y"]), array(slow_page[0]["y"])
    far = slice(-50, None)
    assert np.abs(fast[far]).mean() < np.abs(slow[far]).mean()
    np.testing.assert_allclose(slow[:10], rope[:10], rtol=1e-2, atol=1e-3)


def test_hostile_links_get_notices_not_tracebacks():
    at = open_xpos(dim="7", scale_base="-3", seq_len="abc", seed="1e400")
    assert_healthy(at)
    assert warnings(at)
    assert value_of(at, "dim") % 2 == 0 and value_of(at, "scale_base") >= 1


def test_csv_carries_what_is_drawn():
    frame = pd.read_csv(io.StringIO(xpos.scores(dim=8, scale_base=512.0, seq_len=300, seed=0).csv()))
    assert list(frame.columns) == ["distance", "RoPE score", "xPos score"]
    torch.testing.assert_close(
        torch.tensor(frame["RoPE score"][0]), torch.tensor(frame["xPos score"][0])
    )  # distance 0: equal


def _shown_code(at) -> list[str]:
    """The text of every "PyTorch code" block, in page order."""
    return [e.code[0].value.strip() for e in open_code(at).expander if e.label == "PyTorch code"]


def test_every_figure_shows_the_code_of_the_settings_in_the_link():
    at = open_xpos(dim="6", scale_base="37.5", seq_len="1001", seed="2")
    assert_healthy(at)
    s = XposSettings(dim=6, scale_base=37.5, seq_len=1001, seed=2)
    assert _shown_code(at) == [c.strip() for c in page_snippets(s, pairs=xpos.shown_pairs(6).tolist()).values()]

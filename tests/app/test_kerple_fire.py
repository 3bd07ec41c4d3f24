"""AppTest: the KERPLE and FIRE pages with default, changed and hostile link parameters."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from posviz.encodings.fire import fire_normalized_distance
from posviz.encodings.kerple import kerple_parameters
from posviz.ui.fire.settings import FireSettings
from posviz.ui.fire.snippets import page_snippets as fire_snippets
from posviz.ui.kerple.settings import KerpleSettings
from posviz.ui.kerple.snippets import page_snippets as kerple_snippets

from .conftest import array, assert_healthy, chart, charts, open_code, open_page, tables, value_of, warnings


@pytest.fixture(scope="module")
def kerple_page():
    return open_page("pages/kerple.py")


@pytest.fixture(scope="module")
def fire_page():
    return open_page("pages/fire.py")


def test_kerple_defaults_render(kerple_page):
    assert_healthy(kerple_page)
    assert kerple_page.title[0].value.startswith("KERPLE")
    assert len(charts(kerple_page)) == 1 and value_of(kerple_page, "heads") == 4
    fig = chart(kerple_page, "kerple_family")
    assert len(fig.spec["data"]) == 4 * 4  # four panels, a line per head
    assert "illustrative" in fig.subtitle


def test_kerple_draws_its_seeded_kernels(kerple_page):
    p, a = kerple_parameters(4, generator=torch.Generator().manual_seed(0))
    log_head_1 = next(t for t in chart(kerple_page, "kerple_family").spec["data"] if t.get("xaxis") == "x2")
    r, y = array(log_head_1["x"]).astype(float), array(log_head_1["y"]).astype(float)
    np.testing.assert_allclose(y, -float(p[0]) * np.log1p(float(a[0]) * r), rtol=1e-5, atol=1e-6)
    table = tables(kerple_page)[0]
    assert list(table["head"]) == ["1", "2", "3", "4"]


def test_fire_defaults_render(fire_page):
    assert_healthy(fire_page)
    assert fire_page.title[0].value.startswith("FIRE")
    assert len(charts(fire_page)) == 3
    assert value_of(fire_page, "threshold") == 512 and value_of(fire_page, "c") == pytest.approx(0.1)


def test_fire_interpolation_is_flat_below_the_threshold_and_falls_past_it():
    at = open_page("pages/fire.py", threshold="1000", seq_len="20000")
    assert_healthy(at)
    first = chart(at, "fire_interpolation").spec["data"][0]  # distance 16
    x, u = array(first["x"]).astype(int), array(first["y"]).astype(float)
    below, past = u[x <= 1000], u[x > 2000]
    np.testing.assert_allclose(below, below[0], rtol=1e-6)
    assert bool((np.diff(past) <= 1e-7).all()) and past[-1] < below[0]
    want = fire_normalized_distance(torch.tensor([19999]), torch.tensor([19983]), threshold=1000.0)
    assert u[-1] == pytest.approx(float(want), rel=1e-5)


def test_hostile_links_get_notices():
    at = open_page("pages/fire.py", c="-1", threshold="nan", heads="999")
    assert_healthy(at)
    assert warnings(at) and value_of(at, "c") > 0 and value_of(at, "heads") <= 16
    at = open_page("pages/kerple.py", heads="0", seq_len="1e12")
    assert_healthy(at)
    assert warnings(at) and value_of(at, "heads") >= 1


def _shown_code(at) -> list[str]:
    """The text of every "PyTorch code" block, in page order."""
    return [e.code[0].value.strip() for e in open_code(at).expander if e.label == "PyTorch code"]


def test_every_figure_shows_the_code_of_the_settings_in_the_link():
    at = open_page("pages/kerple.py", heads="5", seq_len="129", seed="11")
    assert_healthy(at)
    assert _shown_code(at) == [
        c.strip() for c in kerple_snippets(KerpleSettings(heads=5, seq_len=129, seed=11)).values()
    ]
    at = open_page("pages/fire.py", c="0.37", threshold="10.5", seq_len="65", heads="3", seed="2")
    assert_healthy(at)
    s = FireSettings(c=0.37, threshold=10.5, seq_len=65, heads=3, seed=2)
    assert _shown_code(at) == [c.strip() for c in fire_snippets(s).values()]

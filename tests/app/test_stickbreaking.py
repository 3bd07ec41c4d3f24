"""AppTest: the stick-breaking page with default, changed and hostile link parameters."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from posviz.encodings.attention import toy_qk
from posviz.encodings.stickbreaking import stickbreaking_weights
from posviz.figures import stickbreaking
from posviz.ui.stickbreaking.settings import StickbreakingSettings
from posviz.ui.stickbreaking.snippets import page_snippets

from .conftest import array, assert_healthy, chart, charts, open_code, open_page, value_of, warnings


@pytest.fixture(scope="module")
def default():
    return open_page("pages/stickbreaking.py")


def test_defaults_render(default):
    assert_healthy(default)
    assert default.title[0].value.startswith("Stick-breaking")
    assert len(charts(default)) == 3 and value_of(default, "query") == 20


def test_the_row_is_the_encodings_stick(default):
    q, k = toy_qk(24, 24, 16, generator=torch.Generator().manual_seed(0))
    want = stickbreaking_weights(q, k)[20, :20].numpy()
    shares, left = (array(t["y"]).astype(float) for t in chart(default, "stickbreaking_row").spec["data"])
    np.testing.assert_allclose(shares, want, rtol=1e-5)
    assert left[0] == pytest.approx(1 - want.sum(), abs=1e-6)


def test_the_query_is_kept_inside_the_sequence():
    at = open_page("pages/stickbreaking.py", seq_len="10", query="50")
    assert_healthy(at)
    assert value_of(at, "query") == 9 and warnings(at)


def test_hostile_links_get_notices():
    at = open_page("pages/stickbreaking.py", seq_len="-4", dim="abc", seed="x")
    assert_healthy(at)
    assert warnings(at)


def _shown_code(at) -> list[str]:
    """The text of every "PyTorch code" block, in page order."""
    return [e.code[0].value.strip() for e in open_code(at).expander if e.label == "PyTorch code"]


def test_every_figure_shows_the_code_of_the_settings_in_the_link():
    at = open_page("pages/stickbreaking.py", seq_len="7", dim="6", seed="1", query="3")
    assert_healthy(at)
    s = StickbreakingSettings(seq_len=7, dim=6, seed=1, query=3)
    codes = page_snippets(s, scores=stickbreaking.EQUAL_SCORES, recency_len=stickbreaking.EQUAL_LEN)
    assert _shown_code(at) == [c.strip() for c in codes.values()]

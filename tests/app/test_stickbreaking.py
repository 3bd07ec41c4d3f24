"""AppTest: the stick-breaking page with default, changed and hostile link parameters."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from posviz.encodings.attention import toy_qk
from posviz.encodings.stickbreaking import stickbreaking_weights

from .conftest import array, assert_healthy, chart, charts, open_page, value_of, warnings


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

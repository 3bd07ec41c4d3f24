"""An even-only control typed to an odd value snaps to even, with a notice, on every page."""

from __future__ import annotations

import pytest

from .conftest import assert_healthy, charts, open_page, value_of, warnings, widget

PAGES_WITH_DIM = ["pages/compare.py", "pages/sinusoidal.py", "pages/rope.py", "pages/shaw.py", "pages/skew.py"]


@pytest.mark.parametrize("page", PAGES_WITH_DIM)
def test_typing_an_odd_dim(page):
    at = open_page(page)
    widget(at, "dim").set_value(61.0).run()
    assert_healthy(at)
    assert value_of(at, "dim") == 60
    assert any("must be even" in w for w in warnings(at)), warnings(at)
    assert charts(at)
    widget(at, "dim").set_value(32.0).run()  # moving on clears the notice
    assert_healthy(at)
    assert not any("must be even" in w for w in warnings(at))

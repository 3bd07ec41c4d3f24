"""Every figure a page sends passes Plotly's own validators.

Figures are built from plain data without validation (``posviz/figures/plotly_private.py``) and
not validated again on the way out. This checks what the browser receives, on
every page at its defaults and in lecture mode, against ``go.Figure``'s validators.
"""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from posviz.schemes import PAGES

from .conftest import assert_healthy, charts, open_page


@pytest.mark.parametrize("lecture", ["0", "1"])
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.key or "home")
def test_every_spec_a_page_sends_is_valid_plotly(page, lecture):
    at = open_page(page.path, lecture=lecture)
    assert_healthy(at)
    sent = charts(at)
    assert sent or page.key == "", "a page with figures sent none"
    for c in sent:
        go.Figure(c.spec)  # raises ValueError on any property or value Plotly does not accept

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

# The trace modules of Plotly's cartesian bundle (static/plotly-cartesian.min.js, posviz.ui.plot):
# a figure with any other trace would draw nothing.
CARTESIAN = {
    "bar", "box", "contour", "heatmap", "histogram", "histogram2d", "histogram2dcontour",
    "image", "pie", "scatter", "scatterternary", "violin",
}  # fmt: skip


@pytest.mark.parametrize("lecture", ["0", "1"])
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.key or "home")
def test_every_spec_a_page_sends_is_valid_plotly(page, lecture):
    at = open_page(page.path, lecture=lecture)
    assert_healthy(at)
    sent = charts(at)
    assert sent or page.key == "", "a page with figures sent none"
    for c in sent:
        go.Figure(c.spec)  # raises ValueError on any property or value Plotly does not accept
        assert set(c.trace_types) <= CARTESIAN, (c.key, c.trace_types)
        for frame in c.spec.get("frames", []):
            assert {t.get("type", "scatter") for t in frame.get("data", [])} <= CARTESIAN, c.key


def test_the_bundle_registers_the_trace_types_listed():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "static" / "plotly-cartesian.min.js").read_text()
    assert "plotly.js (cartesian - minified) v4.1.1" in text[:200]
    assert set(re.findall(r'name:"([a-z0-9]+)",basePlotModule', text)) == CARTESIAN

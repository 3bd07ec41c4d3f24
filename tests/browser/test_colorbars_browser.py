"""Colour-bar titles clear of their bars, as Plotly.js draws them (issue 29: /shaw's sat on the bars).

No server: each figure is drawn from its HTML (Plotly's bundled plotly.js) in headless Chromium.
"""

from __future__ import annotations

import numpy as np
import pytest

from posviz.figures.common import Panel, heatmap_row
from posviz.figures.shaw import index_figure

pytestmark = pytest.mark.browser

BOXES = """() => [...document.querySelectorAll('.colorbar')].map(bar => {
    const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
    return {bar: box(bar.querySelector('.cbfill')), title: box(bar.querySelector('.cbtitle text'))};
})"""


def _overlap(a: list[float], b: list[float]) -> float:
    """Area (px²) two boxes [left, top, right, bottom] share."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(w, 0) * max(h, 0)


def _figures():
    pos = np.arange(16)
    rel = pos[None, :] - pos[:, None]
    idx = np.clip(rel, -4, 4) + 4
    yield "shaw index", index_figure(rel, idx, clip=4, q_pos=pos, k_pos=pos, q_len=16, k_len=16)
    panels = [Panel(rel, "a", "value", "diverging"), Panel(np.abs(rel) + 1.0, "b", "weight", log_scale=True)]
    yield "row", heatmap_row(panels, q_pos=pos, k_pos=pos, title="two panels", lecture=True)


@pytest.mark.parametrize(("name", "fig"), list(_figures()), ids=lambda v: v if isinstance(v, str) else "")
def test_colour_bar_titles_sit_clear_of_their_bars(browser, tmp_path, name, fig):
    html = tmp_path / "fig.html"
    fig.write_html(html, include_plotlyjs=True, full_html=True)
    context = browser.new_context(viewport={"width": 760, "height": 1000})
    try:
        page = context.new_page()
        page.goto(html.as_uri())
        page.wait_for_selector(".colorbar .cbtitle text")
        bars = page.evaluate(BOXES)
    finally:
        context.close()
    assert bars, name
    for bar in bars:
        assert _overlap(bar["bar"], bar["title"]) == 0, (name, bar)

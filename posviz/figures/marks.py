"""Marked positions on a spec built as plain data, where Plotly's ``add_vline``/``add_hline`` cannot go.

A ``go.Figure`` takes Plotly's own ``add_vline``/``add_hline``. These are the same lines
and labels (the anchors of ``annotation_position`` are Plotly's own) for the two places
Plotly's cannot serve: a spec that is still plain data (``add_vline`` needs the figure
object, and costs about 3 ms a labelled line: T5's step chart marks up to six), and a log
axis, where Plotly's label lands at the value instead of its log10, far outside the plot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from posviz.figures.layout import on_panel

# annotation_position -> (xanchor, yanchor, where along the line: 0 start, 1 end, 0.5 middle)
VLINE = {
    "top left": ("right", "top", 1.0),
    "top right": ("left", "top", 1.0),
    "top": ("center", "bottom", 1.0),
    "bottom left": ("right", "bottom", 0.0),
    "bottom right": ("left", "bottom", 0.0),
    "bottom": ("center", "top", 0.0),
}
HLINE = {
    "top left": ("left", "bottom", 0.0),
    "top right": ("right", "bottom", 1.0),
    "top": ("center", "bottom", 0.5),
    "bottom left": ("left", "top", 0.0),
    "bottom right": ("right", "top", 1.0),
    "bottom": ("center", "top", 0.5),
}


@dataclass(frozen=True)
class Mark:
    """A line at ``at`` (x for a vertical line, y for a horizontal one), labelled ``label`` at ``position``."""

    at: float
    label: str | None = None
    position: str = "top right"


def add_marks(
    fig: dict[str, Any],
    marks: list[Mark],
    *,
    vertical: bool = True,
    line: dict[str, Any],
    panel: int = 1,
    log: bool = False,
):
    """Draw every mark as a line across the plot, with its label; returns ``fig``.

    ``fig``: a spec built as plain data (``dict(data=..., layout=...)``);
    ``panel``: the subplot whose axes the marks are on, row by row from 1 (``on_panel``);
    ``log``: the marked axis is a log axis. Plotly.js places a shape on a log axis by its
    value but an annotation by the value's log10, so the label goes there (Plotly's own
    ``add_hline`` leaves it at the value, far outside the plot).
    """
    x, y = on_panel(panel).values()
    shapes, labels = [], []
    for m in marks:
        if vertical:
            shapes.append(dict(type="line", x0=m.at, x1=m.at, xref=x, y0=0, y1=1, yref=f"{y} domain", line=line))
        else:
            shapes.append(dict(type="line", y0=m.at, y1=m.at, yref=y, x0=0, x1=1, xref=f"{x} domain", line=line))
        if m.label:
            xanchor, yanchor, where = (VLINE if vertical else HLINE)[m.position]
            label_at = math.log10(m.at) if log else m.at
            at = (
                dict(x=label_at, xref=x, y=where, yref=f"{y} domain")
                if vertical
                else dict(y=label_at, yref=y, x=where, xref=f"{x} domain")
            )
            labels.append(dict(text=m.label, showarrow=False, xanchor=xanchor, yanchor=yanchor, **at))
    layout = fig.setdefault("layout", {})
    if shapes or "shapes" in layout:
        layout["shapes"] = [*layout.get("shapes", []), *shapes]
    if labels or "annotations" in layout:
        layout["annotations"] = [*layout.get("annotations", []), *labels]
    return fig

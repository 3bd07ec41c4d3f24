"""Zoom by drawing a box: a matrix figure's box selection becomes the page's zoom window.

Streamlit reports Plotly's box select as the chart's selection state; the
callback turns the last box into ``window``, ``q_start`` and ``k_start`` (the
URL keys of :class:`posviz.figures.axes.Window`) for the next run, so the link
reopens the zoomed view.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from posviz.figures.axes import window_from_box
from posviz.ui.controls import set_on_next_run


def box_zoom(name: str) -> Callable[[], None]:
    """The ``on_select`` callback of the figure shown as ``name`` (see ``show_figure``)."""

    def apply() -> None:
        state = st.session_state.get(f"fig_{name}") or {}
        boxes = (state.get("selection") or {}).get("box") or []
        if not boxes:
            return
        w = window_from_box(boxes[-1]["x"], boxes[-1]["y"])
        if w is not None:
            set_on_next_run({"window": w.size, "q_start": w.q_start, "k_start": w.k_start})

    return apply

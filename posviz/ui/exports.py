"""Every figure with its exports: PNG (scale 2) from Plotly's toolbar, the CSV
of the matrix shown, and PyTorch code that reproduces it.

Figures arrive built and cached by their arguments (:mod:`posviz.ui.cache`):
a class opening the same link pays for each figure once per process.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from posviz.figures.chart import Chart
from posviz.i18n import _
from posviz.ui.code import translated_comments
from posviz.ui.plot import plot


def plotly_config(name: str) -> dict:
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": "png", "scale": 2, "filename": name},
    }


def show_figure(
    fig: Chart,
    *,
    name: str,
    alt: str,
    csv=None,
    code: str | None = None,
    on_select: Callable[[], None] | None = None,
    slot: str | None = None,
) -> None:
    """Draw ``fig`` and, under it, its CSV download and PyTorch code.

    Args:
        fig: the figure and its CSV, shared from :func:`posviz.ui.cache.chart`.
        name: file stem for the PNG and CSV downloads; also the element key.
        alt: one sentence describing the figure for screen readers.
        csv: a zero-argument callable returning the CSV text; a chart's own by default. Called only
            when the button is clicked (a page's CSVs cost nothing until someone asks for one); the
            file it makes is kept for this session by
            :func:`posviz.ui.streamlit_private.keep_made_downloads`.
        code: Python that reproduces the figure's tensor.
        on_select: called when the user draws a box on the figure (Plotly's box select); its
            selection is in ``st.session_state[f"fig_{name}"]``.
        slot: the figure's place on the page when ``name`` carries a step or head number; its
            code block keeps its open state under this key (``name`` by default).
    """
    csv = csv or fig.make_csv
    plot(fig, key=f"fig_{name}", config=plotly_config(name), alt=alt, on_select=on_select)
    if csv is None and code is None:
        return
    left, right = st.columns([1, 3])
    if csv is not None:
        left.download_button(
            _("Data as CSV"),
            data=csv,
            file_name=f"{name}.csv",
            mime="text/csv",
            on_click="ignore",
            key=f"csv_{name}",
            icon=":material/download:",
        )
    if code is not None:
        # Built and drawn only while open (a rerun on each toggle): a page's dozen closed
        # code blocks no longer cost the browser their syntax highlighting on every visit.
        # Keyed by the slot, so the block stays open while a teacher steps through.
        key = f"code_{slot or name}"
        with right.expander(_("PyTorch code"), icon=":material/code:", key=key, on_change="rerun") as box:
            if box.open:
                st.code(translated_comments(code), language="python")

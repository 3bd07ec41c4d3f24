"""Every figure with its exports: PNG (scale 2) from Plotly's toolbar, the CSV
of the matrix shown, and PyTorch code that reproduces it.

Figures are cached process-wide when the page says what they depend on
(:func:`cache_figures`): building a Plotly figure through its validating API
costs tens of milliseconds, far more than the tensors behind it, while
rebuilding one from its cached spec costs a few. A class opening the same link
then pays for each figure once per process.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st


def plotly_config(name: str) -> dict:
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": "png", "scale": 2, "filename": name},
    }


def matrix_csv(matrix, q_pos, k_pos) -> str:
    """CSV with query positions as rows and key positions as columns."""
    frame = pd.DataFrame(
        np.asarray(matrix),
        index=pd.Index(np.asarray(q_pos), name="query i \\ key j"),
        columns=np.asarray(k_pos),
    )
    return frame.to_csv()


def panels_csv(panels: dict[str, np.ndarray], q_pos, k_pos) -> str:
    """Several (q, k) matrices on the same positions, one row per (query, key), a column each."""
    q, k = np.meshgrid(np.asarray(q_pos), np.asarray(k_pos), indexing="ij")  # (q, k) each
    frame = pd.DataFrame({"query i": q.ravel(), "key j": k.ravel(), "r = j - i": (k - q).ravel()})
    for name, matrix in panels.items():
        frame[name] = np.asarray(matrix).ravel()
    return frame.to_csv(index=False)


def columns_csv(columns: dict[str, np.ndarray]) -> str:
    """Equal-length 1-D series side by side."""
    return pd.DataFrame({name: np.asarray(values) for name, values in columns.items()}).to_csv(index=False)


FIGURE_CACHE = 32  # figure specs kept per process (a few hundred KB each): a few views of each page
_FIGURE_KEY = "_posviz_figure_key"


def cache_figures(*parts: Any) -> None:
    """Cache this page's figures under ``parts`` (with each figure's name) from here on.

    ``parts`` must hold everything the page's figures depend on: the page's
    settings (a frozen dataclass of scalars), lecture mode, and any table the
    user edited. Cleared at the start of every full run (:func:`forget_figure_key`),
    so a page that does not call this builds its figures each time; a fragment's
    rerun keeps the key of the full run that drew the page.
    """
    st.session_state[_FIGURE_KEY] = parts


def forget_figure_key() -> None:
    st.session_state.pop(_FIGURE_KEY, None)


@st.cache_data(max_entries=FIGURE_CACHE, show_spinner=False)
def _figure_spec(name: str, key: tuple, _build: Callable[[], go.Figure]) -> dict:
    """The spec of figure ``name`` for ``key``; ``_build`` (not hashed) makes it on a miss."""
    return _build().to_dict()


def show_figure(
    fig: go.Figure | Callable[[], go.Figure],
    *,
    name: str,
    alt: str,
    csv=None,
    code: str | None = None,
) -> None:
    """Draw ``fig`` and, under it, its CSV download and PyTorch code.

    Args:
        fig: the figure's spec (from a :func:`posviz.ui.cache.cached_figure`) or the figure.
        name: file stem for the PNG and CSV downloads; also the element key.
        alt: one sentence describing the figure for screen readers.
        csv: a zero-argument callable returning the CSV text (built on click).
        code: Python that reproduces the figure's tensor.
    """
    if callable(fig):  # legacy: a builder under the page's declared key
        key = st.session_state.get(_FIGURE_KEY)
        fig = fig() if key is None else go.Figure(_figure_spec(name, key, fig))
    st.plotly_chart(fig, config=plotly_config(name), theme=None, key=f"fig_{name}", alt=alt)
    if csv is None and code is None:
        return
    left, right = st.columns([1, 3])
    if csv is not None:
        left.download_button(
            "Data as CSV",
            data=csv,
            file_name=f"{name}.csv",
            mime="text/csv",
            on_click="ignore",
            key=f"csv_{name}",
            icon=":material/download:",
        )
    if code is not None:
        with right.expander("PyTorch code", icon=":material/code:"):
            st.code(code, language="python")

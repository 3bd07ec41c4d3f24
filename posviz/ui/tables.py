"""Read-only tables drawn as markdown with the page: no data grid, no Arrow.

``st.dataframe`` draws on a canvas from Streamlit's data-grid bundle, and ``st.table``
parses its data with the Arrow chunk (0.74 MB of JavaScript). A first visit loads and runs
either beside Plotly's bundle, which puts a page with a table behind a bare page with as
many charts (``python -m tools.bench --floor``, docs/PERFORMANCE.md). A table of a few dozen
rows needs neither: here it is a GFM table in ``st.markdown``, drawn by the markdown code
every page already loads. The editors (T5's bias table, CoPE's custom gates) keep the data
grid and are drawn only when opened. The style is in :mod:`posviz.ui.chrome`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Number
from typing import Any

import pandas as pd
import streamlit as st

from posviz.ui.controls import lecture_mode
from posviz.ui.params import plain

ROW_PX = 39  # a row's height at the body size: 16 px type, padding and border
LECTURE_ROW_PX = 55  # at lecture mode's 20 px


def markdown_table(data: pd.DataFrame | Mapping[str, Sequence[Any]], *, hide_index: bool = False) -> str:
    """A GFM table of ``data`` (a frame, or columns as lists): every cell escaped, numbers right-aligned."""
    frame = pd.DataFrame(data) if not isinstance(data, pd.DataFrame) else data
    if not hide_index:
        frame = frame.reset_index()  # the index, under its name, becomes the first column
    columns = [str(c) for c in frame.columns]
    numeric = [
        all(isinstance(v, Number) and not isinstance(v, bool) for v in frame[c]) and len(frame) > 0
        for c in frame.columns
    ]
    lines = [
        "| " + " | ".join(plain(c) or " " for c in columns) + " |",
        "| " + " | ".join("---:" if n else ":---" for n in numeric) + " |",
    ]
    lines += ["| " + " | ".join(plain(str(v)) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def static_table(
    data: pd.DataFrame | Mapping[str, Sequence[Any]],
    *,
    key: str,
    hide_index: bool = False,
    max_rows: int | None = None,
) -> None:
    """Draw ``data`` as a table in a box keyed ``table_<key>``; past ``max_rows`` rows (normal size) it scrolls."""
    rows = len(data) if isinstance(data, pd.DataFrame) else len(next(iter(data.values()), ()))
    row = LECTURE_ROW_PX if lecture_mode() else ROW_PX
    box = None if max_rows is None else ROW_PX * (max_rows + 1)  # in lecture mode, fewer rows in as tall a box
    scrolls = box is not None and row * (rows + 1) > box
    where = st.container(height=box if scrolls else "content", border=False, key=f"table_{key}")
    where.markdown(markdown_table(data, hide_index=hide_index))

"""Read-only tables drawn as HTML with the page: no data grid, no Arrow.

``st.dataframe`` draws on a canvas from Streamlit's data-grid bundle, and ``st.table``
parses its data with the Arrow chunk (0.74 MB of JavaScript). A first visit loads and runs
either beside Plotly's bundle, and every lazily loaded element type holds back the moment
the page's figures mount (``python -m tools.bench --floor``, docs/PERFORMANCE.md). A table of
a few dozen rows needs neither: here it is an HTML table in ``st.html``, whose code every page
already loads (its style sheets), every cell escaped. It sits in a box that scrolls when the
table is taller than ``max_rows`` rows or wider than the page; the box is a labelled region
that takes keyboard focus, so it can be scrolled without a mouse (axe-core's
``scrollable-region-focusable``). The editors (T5's bias table, CoPE's custom gates) keep the
data grid and are drawn only when opened. The style is in :mod:`posviz.ui.chrome`.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from numbers import Number
from typing import Any

import pandas as pd
import streamlit as st

ROW_PX = 39  # a row's height at the body size: 16 px type, padding and border


def _columns(data: pd.DataFrame | Mapping[str, Sequence[Any]], hide_index: bool) -> tuple[list[Any], list[list[Any]]]:
    """The headers and the columns (Python values, as ``itertuples`` gives them) of the table drawn.

    Unless ``hide_index``, the index comes first under its name, as ``reset_index`` would put it.
    """
    frame = pd.DataFrame(data) if not isinstance(data, pd.DataFrame) else data
    if not hide_index and (isinstance(frame.index, pd.MultiIndex) or frame.index.name in frame.columns):
        frame, hide_index = frame.reset_index(), True  # pandas names these (and refuses a clash, as before)
    headers = list(frame.columns)
    columns = [column.tolist() for _name, column in frame.items()]
    if not hide_index:
        unnamed = "level_0" if "index" in headers else "index"
        headers.insert(0, unnamed if frame.index.name is None else frame.index.name)
        columns.insert(0, frame.index.tolist())
    return headers, columns


def html_table(
    data: pd.DataFrame | Mapping[str, Sequence[Any]], *, label: str, hide_index: bool = False, height: int | None = None
) -> str:
    """``data`` (a frame, or columns as lists) as an HTML table in a focusable region named ``label``.

    Every header and cell is escaped; a numeric column is aligned right; ``height`` (px) caps the box.
    """
    headers, columns = _columns(data, hide_index)
    align = [
        ' class="num"' if col and all(isinstance(v, Number) and not isinstance(v, bool) for v in col) else ""
        for col in columns
    ]
    head = "".join(f'<th scope="col"{a}>{html.escape(str(c))}</th>' for c, a in zip(headers, align, strict=True))
    body = "".join(
        "<tr>" + "".join(f"<td{a}>{html.escape(str(v))}</td>" for v, a in zip(row, align, strict=True)) + "</tr>"
        for row in zip(*columns, strict=True)
    )
    cap = "" if height is None else f' style="max-height: {int(height)}px"'
    return (
        f'<div class="posviz-table" tabindex="0" role="region" aria-label="{html.escape(label)}"{cap}>'
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def static_table(
    data: pd.DataFrame | Mapping[str, Sequence[Any]],
    *,
    label: str,
    hide_index: bool = False,
    max_rows: int | None = None,
) -> None:
    """Draw ``data`` as a table named ``label``; its box holds ``max_rows`` rows at the body size and scrolls
    past them (a cap, so a shorter table keeps its height; in lecture mode, fewer rows in as tall a box)."""
    height = None if max_rows is None else ROW_PX * (max_rows + 1)  # the rows and the header
    st.html(html_table(data, label=label, hide_index=hide_index, height=height))

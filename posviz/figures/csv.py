"""CSV text of what a figure draws: matrices, panels of matrices, and columns.

Numeric columns are written directly (each value's shortest text at its array's dtype, an empty cell
for NaN, as ``DataFrame.to_csv`` writes them, in about half its time: a new /compare view writes two
CSVs of 8 panels); anything else goes through pandas.
"""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd


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
    columns = {"query i": q.ravel(), "key j": k.ravel(), "r = j - i": (k - q).ravel()}
    return columns_csv(columns | {name: np.asarray(matrix).ravel() for name, matrix in panels.items()})


def columns_csv(columns: dict[str, np.ndarray]) -> str:
    """Equal-length 1-D series side by side."""
    arrays = {name: np.asarray(values) for name, values in columns.items()}
    if not arrays or not all(a.ndim == 1 and a.dtype.kind in "biuf" for a in arrays.values()):
        return pd.DataFrame(arrays).to_csv(index=False)
    if len({len(a) for a in arrays.values()}) > 1:
        raise ValueError("columns of different lengths")
    cells = [_texts(a) for a in arrays.values()]
    header = io.StringIO()
    csv.writer(header, lineterminator="\n").writerow(arrays)  # quoted where a name needs it
    # a row that is one empty cell is written "" (as the csv module writes it), not as an empty line
    return header.getvalue() + "".join((",".join(row) or '""') + "\n" for row in zip(*cells, strict=True))


def _texts(a: np.ndarray) -> list[str]:
    """Each value of ``a`` (n,) as pandas writes it: numpy's shortest text at the array's dtype, NaN empty.

    An integer column of few distinct values (a panel's query, key and distance columns: ``L`` values in
    ``L²`` rows) writes each value once and looks the rest up.
    """
    if a.dtype.kind in "iu" and len(a) >= 64:
        low, high = int(a.min()), int(a.max())
        if high - low < len(a) // 4:
            # offsets from the lowest value: unsigned ones cannot wrap, signed ones are taken to int64 first
            offsets = a - a.dtype.type(low) if a.dtype.kind == "u" else a.astype(np.int64) - low
            return np.arange(low, high + 1, dtype=a.dtype).astype(str)[offsets].tolist()
    text = a.astype(str)
    if a.dtype.kind == "f":
        text[np.isnan(a)] = ""
    return text.tolist()

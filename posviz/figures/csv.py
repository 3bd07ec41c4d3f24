"""CSV text of what a figure draws: matrices, panels of matrices, and columns. pandas only."""

from __future__ import annotations

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
    frame = pd.DataFrame({"query i": q.ravel(), "key j": k.ravel(), "r = j - i": (k - q).ravel()})
    for name, matrix in panels.items():
        frame[name] = np.asarray(matrix).ravel()
    return frame.to_csv(index=False)


def columns_csv(columns: dict[str, np.ndarray]) -> str:
    """Equal-length 1-D series side by side."""
    return pd.DataFrame({name: np.asarray(values) for name, values in columns.items()}).to_csv(index=False)

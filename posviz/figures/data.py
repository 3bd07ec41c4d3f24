"""Arrays for charts: tensors in, small numpy arrays out."""

from __future__ import annotations

import numpy as np


def as_array(x) -> np.ndarray:
    """A tensor or array as a numpy array (no autograd, on the CPU)."""
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    return np.asarray(x)


def compact(z) -> np.ndarray:
    """Chart data as small as it can honestly be: int8/int16 for small integers, else float32.

    Plotly ships numpy arrays base64-encoded, so bytes per cell is what a chart weighs.
    """
    z = as_array(z)
    if z.dtype == np.bool_:
        return z.astype(np.int8)
    if np.issubdtype(z.dtype, np.integer) and z.size:
        lo, hi = int(z.min()), int(z.max())
        for small in (np.int8, np.int16, np.int32):
            if np.iinfo(small).min <= lo and hi <= np.iinfo(small).max:
                return z.astype(small)
    return z.astype(np.float32)

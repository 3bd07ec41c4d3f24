"""The skew page's memory bill: Shaw's ``R (L, L, dim)`` against the skew's ``Er (L, dim)``, per head.

``memory`` and the page's number ``saving`` are functions of plain arguments; both measure the real
operations (:mod:`posviz.encodings`), on PyTorch's meta device past ``ALLOCATE_UP_TO`` bytes.
"""

from __future__ import annotations

import numpy as np

from posviz.encodings.attention import logits_bytes
from posviz.encodings.shaw import shaw_relations_bytes
from posviz.encodings.skew import skew_er_bytes
from posviz.figures.chart import Chart
from posviz.figures.csv import columns_csv
from posviz.figures.memory import bytes_figure

MEMORY_LENGTHS = tuple(2**p for p in range(4, 15))  # 16 .. 16384
ALLOCATE_UP_TO = 64 * 2**20  # bytes: below this the memory chart allocates the tensors for real


def _allocated(length: int, dim: int) -> bool:
    """Whether the memory chart builds Shaw's ``R (L, L, dim)`` for real at ``length`` (else on the meta device)."""
    return length * length * dim * 4 <= ALLOCATE_UP_TO


def _measured(length: int, dim: int) -> tuple[int, int, int]:
    """Bytes of Shaw's ``R (L, L, dim)``, of the skew's ``Er (L, dim)`` and of the ``(L, L)`` logits, from the real
    operations (on the meta device past ``ALLOCATE_UP_TO``)."""
    device = "cpu" if _allocated(length, dim) else "meta"
    return (
        shaw_relations_bytes(length, length, dim, clip=length, device=device),
        skew_er_bytes(length, dim, device=device),
        logits_bytes(length, length, device=device),
    )


def memory(*, dim: int, current: int, lecture: bool = False) -> Chart:
    """Bytes per head of Shaw's ``R`` against the skew's ``Er`` for ``MEMORY_LENGTHS``, ``current`` marked."""
    rows = [_measured(n, dim) for n in MEMORY_LENGTHS]
    r, er, lg = (np.array(col) for col in zip(*rows, strict=True))
    allocated = np.array([_allocated(n, dim) for n in MEMORY_LENGTHS])
    lengths = np.array(MEMORY_LENGTHS)
    figure = bytes_figure(
        lengths,
        {
            f"Shaw R (L, L, {dim})": (r, allocated),
            f"skew Er (L, {dim})": (er, allocated),
            "logits (L, L), both": (lg, allocated),
        },
        title="Bytes per head: Shaw's R against the skew's Er",
        subtitle=f"float32, dim = {dim}; the gap is a factor of L",
        current=current,
        lecture=lecture,
    )
    return Chart.of(
        figure, lambda: columns_csv({"L": lengths, "Shaw R bytes": r, "skew Er bytes": er, "logits bytes": lg})
    )


def saving(*, dim: int, length: int = 4096) -> tuple[int, int] | None:
    """Bytes of ``R`` and of ``Er`` at ``length``, as the memory chart measures them; None when it does not."""
    if length not in MEMORY_LENGTHS:
        return None
    r, er, _ = _measured(length, dim)
    return r, er

"""The skew page's memory bill: Shaw's ``R (L, L, dim)`` against the skew's ``Er (L, dim)``, per head.

``memory`` and the page's number ``saving`` are functions of plain arguments; both measure the real
operations (:mod:`posviz.encodings`), on PyTorch's meta device past ``ALLOCATE_UP_TO`` bytes.
"""

from __future__ import annotations

import functools

import numpy as np

from posviz.encodings.attention import logits_bytes
from posviz.encodings.shaw import shaw_relations_bytes
from posviz.encodings.skew import skew_er_bytes
from posviz.figures.chart import Chart
from posviz.figures.csv import columns_csv
from posviz.figures.memory import bytes_figure
from posviz.i18n import _

MEMORY_LENGTHS = tuple(2**p for p in range(4, 15))  # 16 .. 16384
ALLOCATE_UP_TO = 64 * 2**20  # bytes: below this the memory chart allocates the tensors for real
MEASURED_ENTRIES = 16  # dims whose measurements are kept: moving the length only moves the chart's marker


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


@functools.lru_cache(maxsize=MEASURED_ENTRIES)
def measurements(dim: int) -> dict[str, np.ndarray]:
    """Every ``MEMORY_LENGTHS`` measured once per ``dim`` (the chart marks the page's length on them, the page
    quotes one): ``"L"``, ``"R"``, ``"Er"``, ``"logits"`` (bytes) and ``"allocated"`` (bool), each (n,), read-only."""
    rows = [_measured(n, dim) for n in MEMORY_LENGTHS]
    r, er, lg = (np.array(col) for col in zip(*rows, strict=True))
    allocated = np.array([_allocated(n, dim) for n in MEMORY_LENGTHS])
    out = {"L": np.array(MEMORY_LENGTHS), "R": r, "Er": er, "logits": lg, "allocated": allocated}
    for a in out.values():
        a.flags.writeable = False
    return out


def memory(*, dim: int, current: int, lecture: bool = False) -> Chart:
    """Bytes per head of Shaw's ``R`` against the skew's ``Er`` for ``MEMORY_LENGTHS``, ``current`` marked."""
    m = measurements(dim)
    lengths, r, er, lg, allocated = m["L"], m["R"], m["Er"], m["logits"], m["allocated"]
    figure = bytes_figure(
        lengths,
        {
            f"Shaw R (L, L, {dim})": (r, allocated),
            _("skew Er (L, {dim})").format(dim=dim): (er, allocated),
            _("logits (L, L), both"): (lg, allocated),
        },
        title=_("Bytes per head: Shaw's R against the skew's Er"),
        subtitle=_("float32, dim = {dim}; the gap is a factor of L").format(dim=dim),
        current=current,
        lecture=lecture,
    )
    return Chart.of(
        figure, lambda: columns_csv({"L": lengths, "Shaw R bytes": r, "skew Er bytes": er, "logits bytes": lg})
    )


def saving(*, dim: int, length: int = 4096) -> tuple[int, int] | None:
    """Bytes of ``R`` and of ``Er`` at ``length``, as the memory chart measures them; None when it does not."""
    m = measurements(dim)
    at = {int(n): (int(r), int(e)) for n, r, e in zip(m["L"], m["R"], m["Er"], strict=True)}
    return at.get(length)

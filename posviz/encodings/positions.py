"""Positions and relative positions shared by every scheme.

Positions are explicit 1-D integer tensors so one function serves a full
matrix and a strided sample of a huge one.
"""

from __future__ import annotations

import math

import torch

from posviz.i18n import _

ALIGNS = ("start", "end")


def all_positions(length: int) -> torch.Tensor:
    """Every position of a sequence: (length,) int64, ``0 .. length - 1``."""
    return torch.arange(length)


def signed_distances(reach: int) -> torch.Tensor:
    """Every relative position ``r = j - i`` from ``-reach`` to ``reach``: (2 reach + 1,) int64."""
    return torch.arange(-reach, reach + 1)


def mirrored(far: torch.Tensor) -> torch.Tensor:
    """Distances ``0 = far[0] < far[1] < ...`` mirrored to both sides of 0, sorted.

    Args:
        far: (n,) int64 increasing, starting at 0 (``curve_positions``).

    Returns:
        (2n - 1,) int64: ``-far[n-1], ..., -far[1], 0, far[1], ..., far[n-1]``.
    """
    return torch.cat([-far.flip(0), far[1:]])


def relative_positions(q_pos: torch.Tensor, k_pos: torch.Tensor) -> torch.Tensor:
    """Key minus query position, ``r = j - i``.

    Args:
        q_pos: (q_len,) int64 query positions.
        k_pos: (k_len,) int64 key positions.

    Returns:
        (q_len, k_len) int64, ``k_pos[None, :] - q_pos[:, None]``.
    """
    return k_pos[None, :] - q_pos[:, None]  # (q_len, k_len)


def query_positions(q_len: int, k_len: int, *, align: str = "start") -> torch.Tensor:
    """Absolute positions of ``q_len`` queries against keys ``0 .. k_len - 1``.

    ``align="start"`` puts the queries at the first key positions, as in the seed
    notebooks. ``align="end"`` puts them at the last ones, as in cached decoding
    (Hugging Face ``context_position = arange(q_len) + past_len``) and
    Transformer-XL memory, where the keys are the past plus the current segment.

    Returns:
        (q_len,) int64.
    """
    if align not in ALIGNS:
        raise ValueError(_("align must be one of {allowed}, got {align}.").format(allowed=ALIGNS, align=repr(align)))
    if align == "end" and q_len > k_len:
        raise ValueError(
            _(
                "Queries aligned at the end need at least as many keys as queries "
                "(q_len={q_len}, k_len={k_len}): raise k_len to {q_len} or more, "
                "or align the queries at the start."
            ).format(q_len=q_len, k_len=k_len)
        )
    offset = k_len - q_len if align == "end" else 0
    return torch.arange(q_len, dtype=torch.long) + offset


def display_positions(length: int, max_points: int) -> torch.Tensor:
    """At most ``max_points`` evenly strided positions in ``[0, length)``.

    The stride is the smallest integer that fits; ``0`` and ``length - 1`` are
    always included, so the last gap may be shorter than the stride.

    Returns:
        (n,) int64, strictly increasing, ``n <= max(max_points, 2)``.
    """
    if length < 1:
        raise ValueError(_("length must be at least 1, got {length}.").format(length=length))
    if max_points < 2:
        raise ValueError(_("max_points must be at least 2, got {max_points}.").format(max_points=max_points))
    if length <= max_points:
        return torch.arange(length, dtype=torch.long)
    stride = display_stride(length, max_points)
    pos = torch.arange(0, length, stride, dtype=torch.long)
    if pos[-1] != length - 1:
        pos = torch.cat([pos, torch.tensor([length - 1])])
    return pos


def display_stride(length: int, max_points: int) -> int:
    """Stride that :func:`display_positions` uses; 1 when nothing is skipped.

    The smallest stride whose positions ``0, s, 2s, ...`` plus ``length - 1``
    number at most ``max_points``.
    """
    if length <= max_points:
        return 1
    stride = -(-(length - 1) // (max_points - 1))  # lower bound: the strided part alone fits
    while -(-length // stride) + ((length - 1) % stride != 0) > max_points:
        stride += 1  # the appended last position did not fit
    return stride


def curve_positions(last: int, *, dense: int = 128, points: int = 480, start: int = 0) -> torch.Tensor:
    """Positions (or distances) for a curve over ``start .. last``: every one up to ``dense``, then log-spaced.

    A curve against distance needs each small distance (where the schemes differ
    most) and only a sample of the far ones; on a log axis the sample looks even.

    Args:
        last: the largest value drawn (included); ``last < start`` gives just ``start``.
        dense: every value from ``start`` up to this one is included (0: none beyond ``start``).
        points: how many log-spaced values from 1 to ``last`` (before rounding and de-duplication).
        start: the smallest value drawn, 0 or 1 (log-spaced values start at 1).

    Returns:
        (n,) int64, sorted and unique, ``start`` and ``last`` included, n <= dense + points + 1.
    """
    if last <= start:
        return torch.tensor([start], dtype=torch.int64)
    near = torch.arange(start, min(dense, last) + 1, dtype=torch.int64)
    far = torch.logspace(0, math.log10(last), max(points, 2), dtype=torch.float64)  # float64 throughout
    far = far.round().to(torch.int64).clamp(1, last)
    far[-1] = last
    return torch.unique(torch.cat([near, far[far >= start]]))  # sorted


def window_positions(length: int, max_points: int, *, start: int = 0, size: int = 0) -> torch.Tensor:
    """At most ``max_points`` strided positions of the window ``[start, start + size)`` of ``[0, length)``.

    A zoom into a long view: ``size = 0`` means the whole range (exactly
    :func:`display_positions`). The window is moved inside ``[0, length)`` when
    it would run past the end, so it always shows ``min(size, length)`` positions'
    worth of range; its first and last position are always included.

    Returns:
        (n,) int64, strictly increasing, within ``[0, length)``.
    """
    if size <= 0 or size >= length:
        return display_positions(length, max_points)
    start = min(max(start, 0), length - size)
    return display_positions(size, max_points) + start

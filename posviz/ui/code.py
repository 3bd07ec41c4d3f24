"""Pieces shared by the schemes' PyTorch snippets (plain text, no streamlit)."""

from __future__ import annotations

from posviz.figures.axes import Axes


def shown_args(stride: int, start: int = 0, count: int | None = None) -> str:
    """The arguments after ``length`` of a ``shown(...)`` call that draws a window's positions."""
    return f"{stride}" if count is None else f"{stride}, start={start}, count={count}"


def shown_lines(axes: Axes | None) -> list[str]:
    """The lines that define ``q_pos`` and ``k_pos``, the positions a matrix figure draws on ``axes``
    (every position without axes); they need ``q_len``, ``k_len``, ``offset`` and :data:`SHOWN_FN`."""
    q_args = shown_args(axes.q_stride, axes.q_from, axes.q_count) if axes else shown_args(1)
    k_args = shown_args(axes.k_stride, axes.k_from, axes.k_count) if axes else shown_args(1)
    return [
        f"q_pos = shown(q_len, {q_args}) + offset  # query positions i",
        f"k_pos = shown(k_len, {k_args})  # key positions j",
    ]


SHOWN_FN = '''\
def shown(length, stride, start=0, count=None):
    """Every stride-th position of [start, start + count) (default: all of [0, length)) and its last."""
    stop = length if count is None else start + count
    pos = torch.arange(start, stop, stride)
    return pos if pos[-1] == stop - 1 else torch.cat([pos, torch.tensor([stop - 1])])
'''

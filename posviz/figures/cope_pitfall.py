"""The CoPE page's masking pitfall: positions with the causal mask applied after the gates, and the leak.

Functions of plain arguments as in :mod:`posviz.figures.cope`; the ``*_figure`` builders turn
arrays into specs.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from posviz.encodings.cope_toy import cope_pitfall
from posviz.encodings.positions import display_positions
from posviz.figures.chart import Chart
from posviz.figures.common import as_array, heatmap, heatmap_grid
from posviz.figures.cope import SHARED_ENTRIES, toy_of
from posviz.figures.csv import matrix_csv, panels_csv
from posviz.i18n import _

PITFALL_POINTS = 112  # per axis for the pitfall panels


def pitfall_figure(correct, wrong, *, q_pos, k_pos, n: int, lecture: bool = False) -> go.Figure:
    """Positions with the mask applied before the gates (right) and after them (wrong), on one scale."""
    future = as_array(k_pos)[None, :] > as_array(q_pos)[:, None]
    both = np.stack([as_array(m) for m in (correct, wrong)]).astype(np.float32)
    fig = heatmap_grid(
        both,
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=n,
        k_len=n,
        titles=[_("mask before the gates (right)"), _("mask after the gates (wrong)")],
        title=_("The masking pitfall: future gates leak into every position"),
        subtitle=_("wrong: gates of the future keys t > i are summed into p_ij before the mask removes them"),
        value_name="p_ij",
        palette="sequential",
        cols=2,
        lecture=lecture,
        mask=future,
        mask_label=_("future keys j > i: never attended"),
    )
    return fig


def pitfall_difference_figure(diff, *, q_pos, k_pos, n: int, lecture: bool = False) -> go.Figure:
    """Wrong minus right positions on the causal cells: the future gates' sum, row by row."""
    future = as_array(k_pos)[None, :] > as_array(q_pos)[:, None]
    d = as_array(diff)
    return heatmap(
        d,
        q_pos=q_pos,
        k_pos=k_pos,
        q_len=n,
        k_len=n,
        title=_("Difference: wrong − right positions"),
        value_name=_("leak"),
        palette="diverging",
        value_format=".2f",
        subtitle=_(
            "every earlier key of row i is shifted by the same amount: the sum of row i's future gates, up to the clamp"
        ),
        mask=future,
        mask_label=_("future keys j > i"),
        lecture=lecture,
    )


# --- the figures, by plain arguments ---------------------------------------------------------------


@dataclass(frozen=True)
class Pitfall:
    """The shown query rows against the keys at the same positions, ``(p, p)`` each."""

    n: int
    pos: np.ndarray  # (p,) int64
    right: np.ndarray  # mask before the gates
    wrong: np.ndarray  # mask after the gates (future cells 0)
    leak: np.ndarray  # wrong - right


@functools.lru_cache(maxsize=SHARED_ENTRIES)  # one computation for both pitfall figures of a view
def pitfall_matrices(
    *, text: str, mode: str, temperature: float, npos_max: int, dim: int, seed: int, custom: bytes = b""
) -> Pitfall:
    """The drawn positions with the mask before and after the gates, and their difference."""
    tokens, toy = toy_of(
        text=text, mode=mode, temperature=temperature, npos_max=npos_max, dim=dim, seed=seed, custom=custom
    )
    rows = display_positions(len(tokens), PITFALL_POINTS)
    p = cope_pitfall(toy, rows)
    pos, *drawn = (x.numpy() for x in (rows, p.right[:, rows], p.wrong[:, rows], p.leak[:, rows]))
    for array in (pos, *drawn):
        array.setflags(write=False)  # shared by both figures
    return Pitfall(len(tokens), pos, *drawn)


def pitfall(
    *, text: str, mode: str, temperature: float, npos_max: int, dim: int, seed: int, custom: bytes = b"",
    lecture: bool = False,
) -> Chart:  # fmt: skip
    """Positions with the mask before the gates and after them, side by side."""
    v = pitfall_matrices(
        text=text, mode=mode, temperature=temperature, npos_max=npos_max, dim=dim, seed=seed, custom=custom
    )
    figure = pitfall_figure(v.right, v.wrong, q_pos=v.pos, k_pos=v.pos, n=v.n, lecture=lecture)
    return Chart.of(figure, lambda: panels_csv({"mask before": v.right, "mask after": v.wrong}, v.pos, v.pos))


def pitfall_difference(
    *, text: str, mode: str, temperature: float, npos_max: int, dim: int, seed: int, custom: bytes = b"",
    lecture: bool = False,
) -> Chart:  # fmt: skip
    """Wrong minus right positions: the leak."""
    v = pitfall_matrices(
        text=text, mode=mode, temperature=temperature, npos_max=npos_max, dim=dim, seed=seed, custom=custom
    )
    figure = pitfall_difference_figure(v.leak, q_pos=v.pos, k_pos=v.pos, n=v.n, lecture=lecture)
    return Chart.of(figure, lambda: matrix_csv(v.leak, v.pos, v.pos))

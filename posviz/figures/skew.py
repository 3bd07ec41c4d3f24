"""The skew walk-through: every cell keeps its colour from step 1 to step 4.

``step`` and ``animation`` are functions of plain arguments that the page (and a notebook) calls;
the ``skew_*`` builders above them turn arrays into specs. ``walkthrough`` is the one skew run that
they, the check (:mod:`posviz.figures.skew_check`) and the page's numbers share.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from posviz.encodings.skew import SkewSteps, SkewWalkthrough, skew_walkthrough
from posviz.figures.chart import Chart
from posviz.figures.colors import plain
from posviz.figures.common import (
    MASK_COLOR,
    as_array,
    compact,
    finish,
    look,
    subtitle_lines,
)
from posviz.figures.csv import matrix_csv
from posviz.figures.layout import TITLE_PAD, WALK_LECTURE_HEIGHT, title_font, wrap
from posviz.i18n import N_, _

MAX_TEXT = 16  # write the values into the cells up to L = 16
MAX_HOVER = 64  # per-cell provenance in the hover up to L = 64 (it triples the chart's bytes)
MAX_ANIMATION = 64  # the animation ships four matrices: up to L = 64
COLOUR_BY = {"distance": N_("relative position r it holds"), "row": N_("query row it came from")}
STEP_KEYS = ("rel", "padded", "reshaped", "sliced")
STEPS = len(STEP_KEYS)  # steps 1-4 draw the matrices; the steps after them check the result
WALK_ENTRIES = 8  # skew runs kept, each shared by the steps, the check, the animation and the page's numbers


def step_titles(variant: str) -> tuple[str, ...]:
    """The six titles of the walk-through of ``variant``."""
    if variant == "unmasked":
        middle = (
            _("Step 1 · rel = Q Erᵀ, L × (2L − 1): column c holds r = c − (L − 1)"),
            _("Step 2 · append one zero column on the right: L × 2L"),
            _("Step 3 · flatten, append L − 1 zeros, read in rows of 2L − 1: (L + 1) × (2L − 1)"),
            _("Step 4 · keep rows :L and columns L − 1: — S, L × L, indexed by key"),
        )
    elif variant == "rel_shift":
        middle = (
            _("Step 1 · BD = q · rᵀ, L × K: column c holds i − j = K − 1 − c"),
            _("Step 2 · torch.cat a zero column in front: L × (K + 1)"),
            _("Step 3 · view as (K + 1) × L: the same memory, rows of L"),
            _("Step 4 · x_padded[1:].view_as(x): L × K, indexed by key"),
        )
    else:
        middle = (
            _("Step 1 · rel = Q Erᵀ, L × L: column c holds r = c − (L − 1)"),
            _("Step 2 · pad one zero column on the left: L × (L + 1)"),
            _("Step 3 · reshape to (L + 1) × L: the same numbers, read in rows of L"),
            _("Step 4 · drop the first row — S_rel, L × L, indexed by key"),
        )
    last = (
        _("Step 5 · the result beside the direct gather, garbage marked"),
        _("Step 6 · the mask removes the garbage; the difference is rounding")
        if variant != "unmasked"
        else _("Step 6 · nothing to mask; the difference is rounding"),
    )
    return middle + last


@dataclass(frozen=True)
class Grid:
    """One step's matrix with where each cell came from."""

    values: np.ndarray  # (R, C) float
    source: np.ndarray  # (R, C) int64 id ``i * cols + c`` of the input cell, -1 for a padded zero
    x_title: str
    y_title: str


def grids(steps: SkewSteps, sources: SkewSteps, variant: str) -> list[Grid]:
    """The four matrices of steps 1-4, with their axis titles."""
    query = _("query i")
    titles = {
        "rel": (_("relative column c"), query),
        "padded": (_("column of the padded matrix"), query),
        "reshaped": (_("column of the reshaped view"), _("row of the reshaped view")),
        "sliced": (_("key j"), query),
    }
    return [
        Grid(
            values=as_array(getattr(steps, key)).astype(np.float32),
            source=as_array(getattr(sources, key)).astype(np.int64),
            x_title=titles[key][0],
            y_title=titles[key][1],
        )
        for key in STEP_KEYS
    ]


def relative_center(variant: str, seq_len: int, in_cols: int) -> int:
    """The input column that holds r = 0: ``r = c - center``."""
    return seq_len - 1 if variant == "unmasked" else in_cols - 1


def _colour(grid: Grid, *, in_cols: int, center: int, colour_by: str) -> np.ndarray:
    row, col = np.divmod(grid.source, in_cols)
    z = (row if colour_by == "row" else col - center).astype(np.float32)
    return np.where(grid.source < 0, np.nan, z)


@dataclass(frozen=True)
class Walk:
    """Steps 1-4 ready to draw: the four grids, and the colouring every step shares (the scale of step 1)."""

    grids: tuple[Grid, ...]
    variant: str
    colour_by: str  # a key of COLOUR_BY
    in_cols: int  # columns of the input matrix: a source id is ``i * in_cols + c``
    center: int  # the input column that holds r = 0
    zmin: float
    zmax: float
    text: bool  # the values are written in the cells (L <= MAX_TEXT)


def skew_walk(steps: SkewSteps, sources: SkewSteps, *, variant: str, seq_len: int, colour_by: str = "distance") -> Walk:
    """The walk-through of ``variant`` that :func:`skew_step_figure` and :func:`skew_animation_figure` draw.

    Args:
        steps: the skew's intermediates; sources: the same shapes, where each value came from
            (:func:`posviz.encodings.skew.cell_sources`).
        colour_by: ``"distance"`` (the relative position a cell holds) or ``"row"`` (its query row).
    """
    gs = grids(steps, sources, variant)
    in_cols = gs[0].values.shape[1]
    center = relative_center(variant, seq_len, in_cols)
    z0 = _colour(gs[0], in_cols=in_cols, center=center, colour_by=colour_by)
    return Walk(
        grids=tuple(gs),
        variant=variant,
        colour_by=colour_by,
        in_cols=in_cols,
        center=center,
        zmin=float(np.nanmin(z0)),
        zmax=float(np.nanmax(z0)),
        text=seq_len <= MAX_TEXT,
    )


def _trace(walk: Walk, grid: Grid) -> dict:
    row, col = np.divmod(grid.source, walk.in_cols)
    z = _colour(grid, in_cols=walk.in_cols, center=walk.center, colour_by=walk.colour_by)
    name = _("r held") if walk.colour_by == "distance" else _("from row")
    extra = dict(hovertemplate=_("cell (%{y}, %{x})") + f"<br>{name}: %{{z}}<extra></extra>")
    if max(grid.values.shape) <= MAX_HOVER + 1:
        extra = dict(
            customdata=compact(np.stack([row, col, col - walk.center], axis=-1)),
            hovertemplate=_(
                "cell (%{y}, %{x})<br>came from input cell (%{customdata[0]}, %{customdata[1]})"
                "<br>which holds r = %{customdata[2]}"
            )
            + "<extra></extra>",
        )
    if walk.text:
        words = np.where(grid.source < 0, "", np.char.mod("%.2f", grid.values))  # pads get their own "0"
        extra.update(text=words, texttemplate="%{text}")
    return plain(  # plain data (named scale spelled out): a step's figure is built once, by finish
        dict(
            type="heatmap",
            z=z,
            x=np.arange(grid.values.shape[1]),
            y=np.arange(grid.values.shape[0]),
            zmin=walk.zmin,
            zmax=walk.zmax,
            colorscale="Viridis",
            hoverongaps=False,
            colorbar=dict(title=dict(text=name, side="right")),
            **extra,
        )
    )


def _pads(grid: Grid, text: bool) -> dict:
    """The padded zeros: a mark (and a 0) on the grey cells."""
    ys, xs = np.nonzero(grid.source < 0)
    return plain(
        dict(
            type="scatter",
            x=xs,
            y=ys,
            mode="text" if text else "markers",
            text=["0"] * len(xs) if text else None,
            marker=dict(symbol="square-open", color="#555", size=4) if not text else None,
            textfont=dict(color="#222"),
            name=_("padded zero"),
            hovertemplate=_("padded zero") + "<extra></extra>",
            showlegend=False,
        )
    )


def _axes_for(walk: Walk, step_index: int) -> dict:
    """Both axes of a step as layout data, every tick property set: an animation frame carries its own,
    so a step never keeps another step's labels (step 1 names its columns by distance, the others count)."""
    grid = walk.grids[step_index]
    rows, cols = grid.values.shape
    small = max(rows, cols) <= 24
    ticks = dict(tickmode="linear", tick0=0, dtick=1) if small else dict(tickmode="auto")
    xaxis = dict(title=dict(text=grid.x_title), range=[-0.5, cols - 0.5], showgrid=False, zeroline=False, **ticks)
    yaxis = dict(title=dict(text=grid.y_title), range=[rows - 0.5, -0.5], showgrid=False, zeroline=False, **ticks)
    if step_index == 0 and small:  # label each relative column with the distance it holds
        word = "i − j" if walk.variant == "rel_shift" else "r"
        held = [(walk.center - c) if walk.variant == "rel_shift" else (c - walk.center) for c in range(cols)]
        xaxis.update(tickmode="array", tickvals=list(range(cols)), ticktext=[str(h) for h in held])
        xaxis["title"] = dict(text=_("column: {word}").format(word=word))
    return dict(xaxis=xaxis, yaxis=yaxis)


def skew_step_figure(walk: Walk, step: int, *, lecture: bool = False) -> go.Figure:
    """Step 1-4 of the walk-through: the matrix, coloured by where each cell came from."""
    grid = walk.grids[step - 1]
    layout = dict(plot_bgcolor=MASK_COLOR, **_axes_for(walk, step - 1))
    fig = dict(data=[_trace(walk, grid), _pads(grid, walk.text)], layout=layout)
    sub = subtitle_lines(
        _("colour: the {what} (it stays with the value from step to step); grey: a padded zero").format(
            what=_(COLOUR_BY[walk.colour_by])
        ),
        _("numbers: the values")
        if walk.text
        else _("values are written in the cells up to L = {most}; hover for the rest").format(most=MAX_TEXT),
    )
    height = WALK_LECTURE_HEIGHT if lecture else None  # fits a projector below the step buttons
    return finish(fig, title=step_titles(walk.variant)[step - 1], subtitle=sub, lecture=lecture, height=height)


def skew_animation_figure(walk: Walk, *, lecture: bool = False) -> go.Figure:
    """Steps 1-4 as a Plotly animation with Play and a step slider (runs in the browser)."""
    titles = step_titles(walk.variant)
    frames = []
    for n, grid in enumerate(walk.grids):
        rows, cols = grid.values.shape
        frames.append(
            go.Frame(
                name=str(n + 1),
                data=[_trace(walk, grid), _pads(grid, walk.text)],
                layout=dict(**_axes_for(walk, n), title=dict(text=titles[n])),
            )
        )
    lk = look(lecture)
    fig = go.Figure(data=frames[0].data, frames=frames, layout=_axes_for(walk, 0))
    play = dict(frame=dict(duration=1400, redraw=True), transition=dict(duration=0), fromcurrent=True)
    fig.update_layout(
        plot_bgcolor=MASK_COLOR,
        updatemenus=[
            dict(
                type="buttons",
                direction="left",
                x=0,
                y=-0.2,
                xanchor="left",
                yanchor="top",
                font=dict(size=lk.font),
                buttons=[
                    dict(label=_("▶ Play"), method="animate", args=[None, play]),
                    dict(label=_("❚❚ Pause"), method="animate", args=[[None], dict(mode="immediate")]),
                ],
            )
        ],
        sliders=[
            dict(
                active=0,
                x=0.22,
                len=0.78,
                y=-0.16,
                yanchor="top",
                currentvalue=dict(prefix=_("step "), font=dict(size=lk.font)),
                steps=[
                    dict(
                        label=f.name, method="animate", args=[[f.name], dict(mode="immediate", frame=dict(redraw=True))]
                    )
                    for f in frames
                ],
            )
        ],
    )
    # The frames change the title: lay it out for the longest one, then give each frame its own at that size.
    shown = titles[: len(frames)]
    longest = max(shown, key=lambda t: len(wrap(t, size=title_font(t, lk), width=lk.width)))
    fig = finish(
        fig,
        title=longest,
        subtitle=_("Play runs steps 1 to 4 in the browser; colour: the {what}; grey: a padded zero").format(
            what=_(COLOUR_BY[walk.colour_by])
        ),
        lecture=lecture,
    )
    size = fig.layout.title.font.size
    for frame, title in zip(fig.frames, shown, strict=True):
        frame.layout.title.text = wrap(title, size=size, width=lk.width - 2 * TITLE_PAD)
    fig.layout.title.text = fig.frames[0].layout.title.text
    fig.update_layout(margin_b=170 if lecture else 130)
    return fig


# --- the figures, by plain arguments ---------------------------------------------------------------


@functools.lru_cache(maxsize=WALK_ENTRIES)
def walkthrough(seq_len: int, dim: int, seed: int, variant: str, mem_len: int) -> SkewWalkthrough:
    """The skew of ``variant`` on the toy ``Q Er^T``, its sources and its check against the direct gather
    (:func:`posviz.encodings.skew.skew_walkthrough`): computed once for every figure of one view, never mutated.
    The gather costs ``(L, K, dim)``: seconds at the longest lengths."""
    return skew_walkthrough(seq_len, dim, seed=seed, variant=variant, mem_len=mem_len)


def _walk(w: SkewWalkthrough, *, variant: str, seq_len: int, colour: str) -> Walk:
    """Steps 1-4 of ``w`` ready to draw, coloured by ``colour``."""
    return skew_walk(w.steps, w.sources, variant=variant, seq_len=seq_len, colour_by=colour)


def step_csv(matrix) -> str:
    """A step's matrix, rows and columns numbered from 0."""
    m = as_array(matrix)
    return matrix_csv(m, range(m.shape[0]), range(m.shape[1]))


def step(
    *,
    seq_len: int,
    dim: int,
    seed: int,
    variant: str,
    mem_len: int = 0,
    colour: str = "distance",
    number: int,
    lecture: bool = False,
) -> Chart:
    """Step ``number`` (1-4) of the walk-through: the matrix, coloured by where each value came from (``colour``)."""
    w = walkthrough(seq_len, dim, seed, variant, mem_len)
    walk = _walk(w, variant=variant, seq_len=seq_len, colour=colour)
    matrix = getattr(w.steps, STEP_KEYS[number - 1])
    return Chart.of(skew_step_figure(walk, number, lecture=lecture), lambda: step_csv(matrix))


def animation(
    *,
    seq_len: int,
    dim: int,
    seed: int,
    variant: str,
    mem_len: int = 0,
    colour: str = "distance",
    lecture: bool = False,
) -> Chart:
    """Steps 1-4 as a Plotly animation (no download: the steps have theirs)."""
    walk = _walk(walkthrough(seq_len, dim, seed, variant, mem_len), variant=variant, seq_len=seq_len, colour=colour)
    return Chart.of(skew_animation_figure(walk, lecture=lecture))

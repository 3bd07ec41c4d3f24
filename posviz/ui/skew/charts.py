"""The skew page's figures, each with its CSV, cached process-wide by exactly the arguments they are built from.

The steps and the animation depend on every setting (the colouring too); the
check against the direct gather does not depend on the colouring, and the
memory chart on ``dim`` and the length it marks only.
"""

from __future__ import annotations

from posviz.figures import skew as fig
from posviz.figures.csv import columns_csv, matrix_csv
from posviz.figures.memory import bytes_figure
from posviz.ui.cache import Chart, cached_figure
from posviz.ui.settings import project
from posviz.ui.skew.settings import BytesKey, SkewKey, SkewSettings
from posviz.ui.skew.views import memory_view, skew_view

STEPS = len(fig.STEP_KEYS)  # steps 1-4 draw the matrices; the steps after them check the result


def walkthrough(s: SkewSettings, number: int, lecture: bool) -> Chart:
    """Step ``number`` of the walk-through (1-based): a matrix of the skew, or its check."""
    return step(s, number, lecture) if number <= STEPS else check(project(s, SkewKey), number, lecture)


def _walk(s: SkewSettings) -> fig.Walk:
    """Steps 1-4 ready to draw, coloured as the settings say."""
    v = skew_view(project(s, SkewKey))
    return fig.skew_walk(v.steps, v.sources, variant=s.variant, seq_len=s.seq_len, colour_by=s.colour)


@cached_figure(max_entries=64)  # four steps of a few views
def step(s: SkewSettings, number: int, lecture: bool) -> Chart:
    """Steps 1-4: the matrices, coloured by where each value came from."""
    return Chart(fig.skew_step_figure(_walk(s), number, lecture=lecture), lambda: step_csv(project(s, SkewKey), number))


@cached_figure
def check(k: SkewKey, number: int, lecture: bool) -> Chart:
    """Step 5 or 6: the skew's result against the direct gather (the colouring plays no part)."""
    v = skew_view(k)
    figure = fig.skew_check_figure(
        v.steps.sliced, v.gather, v.valid, number, variant=k.variant, max_diff=v.max_diff, lecture=lecture
    )
    return Chart(figure, lambda: step_csv(k, number))


@cached_figure
def animation(s: SkewSettings, lecture: bool) -> Chart:
    return Chart(fig.skew_animation_figure(_walk(s), lecture=lecture))


@cached_figure
def memory(k: BytesKey, current: int, lecture: bool) -> Chart:
    """``current``: the length marked on the chart (``seq_len``)."""
    v = memory_view(k)
    figure = bytes_figure(
        v.lengths,
        {
            f"Shaw R (L, L, {k.dim})": (v.shaw_r, v.allocated),
            f"skew Er (L, {k.dim})": (v.skew_er, v.allocated),
            "logits (L, L), both": (v.logits, v.allocated),
        },
        title="Bytes per head: Shaw's R against the skew's Er",
        subtitle=f"float32, dim = {k.dim}; the gap is a factor of L",
        current=current,
        lecture=lecture,
    )
    return Chart(figure, lambda: memory_csv(k))


# The data behind each figure as CSV (built when the download is clicked).
def step_csv(k: SkewKey, number: int) -> str:
    v = skew_view(k)
    matrix = getattr(v.steps, fig.STEP_KEYS[number - 1]) if number <= STEPS else v.steps.sliced
    return matrix_csv(matrix, range(matrix.shape[0]), range(matrix.shape[1]))


def memory_csv(k: BytesKey) -> str:
    v = memory_view(k)
    return columns_csv({"L": v.lengths, "Shaw R bytes": v.shaw_r, "skew Er bytes": v.skew_er, "logits bytes": v.logits})


def saving_at(k: BytesKey, length: int = 4096) -> tuple[int, int] | None:
    """Bytes of ``R`` and of ``Er`` at ``length``, when the chart measures it."""
    v = memory_view(k)
    at = {int(n): (int(r), int(e)) for n, r, e in zip(v.lengths, v.shaw_r, v.skew_er, strict=True)}
    return at.get(length)

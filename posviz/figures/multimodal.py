"""Figures of a vision-language prompt: token ids on the patch grid and along the sequence, and video time.

``grid``, ``sequence`` and ``time`` are what the /vision page (and a notebook) calls, each a function
of plain arguments returning a :class:`Chart`; the ``*_figure`` builders below them turn arrays into
specs. Which pairs each id turns, the 2-D relative property and how encoders split a head are
:mod:`posviz.figures.multimodal_pairs`.

Plotly only, built as plain specs (``dict(data=[...], layout={...})``, no ``go.Figure`` object model:
its validation costs tens of milliseconds a figure) and handed to :func:`posviz.figures.layout.finish`;
each figure is titled and its axes named.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import plotly.graph_objects as go

from posviz.encodings.multimodal_prompt import Prompt, video_time_ids, vl_prompt
from posviz.figures.chart import Chart
from posviz.figures.colors import scale_stops
from posviz.figures.csv import columns_csv
from posviz.figures.data import compact
from posviz.figures.layout import finish, look, subtitle_lines
from posviz.i18n import N_, _

AXIS_NAMES = (N_("time t"), N_("height h"), N_("width w"))  # shown as _(name); the CSVs use t, h, w
AXIS_COLOURS = ("#2ca02c", "#1f77b4", "#d62728")  # t green, h blue, w red
KIND_FILL = {"text": "rgba(127,127,127,0.10)", "stamp": "rgba(148,103,189,0.15)",
             "image": "rgba(31,119,180,0.12)", "video": "rgba(44,160,44,0.12)"}  # fmt: skip
KIND_SWATCH = {"text": "rgba(127,127,127,0.45)", "stamp": "rgba(148,103,189,0.55)",
               "image": "rgba(31,119,180,0.5)", "video": "rgba(44,160,44,0.5)"}  # fmt: skip
KIND_LABEL = {"text": N_("text"), "stamp": N_("time stamp"), "image": N_("image"), "video": N_("video")}
MAX_CELL_TEXT = 12  # write ids into cells up to 12 columns a panel
DOTTED = dict(color="#555", dash="dot", width=1.5)


def panels(rows: int, cols: int, titles: list[str], *, hgap: float = 0.06, vgap: float = 0.12) -> dict[str, Any]:
    """A layout of ``rows x cols`` panels as plain data, numbered row by row from 1, each titled above."""
    width, height = (1 - hgap * (cols - 1)) / cols, (1 - vgap * (rows - 1)) / rows
    layout: dict[str, Any] = {"annotations": []}
    for p in range(rows * cols):
        r, c = divmod(p, cols)
        x0, y1 = c * (width + hgap), 1 - r * (height + vgap)
        n = "" if p == 0 else str(p + 1)
        layout[f"xaxis{n}"] = dict(domain=[x0, x0 + width], anchor=f"y{n}")
        layout[f"yaxis{n}"] = dict(domain=[max(y1 - height, 0.0), y1], anchor=f"x{n}")
        layout["annotations"].append(
            dict(text=titles[p], x=x0 + width / 2, y=y1, xref="paper", yref="paper",
                 xanchor="center", yanchor="bottom", showarrow=False)
        )  # fmt: skip
    return layout


def on(panel: int) -> dict[str, str]:
    """A trace's axes in panel ``panel`` of :func:`panels`."""
    n = "" if panel == 1 else str(panel)
    return dict(xaxis=f"x{n}", yaxis=f"y{n}")


def axis(layout: dict[str, Any], letter: str, panel: int = 1, **props: Any) -> None:
    """Set properties of a panel's x or y axis (``title`` as text)."""
    name = f"{letter}axis" if panel == 1 else f"{letter}axis{panel}"
    if "title" in props:
        props["title"] = dict(text=props["title"])
    layout.setdefault(name, {}).update(props)


def hline(y: float, panel: int = 1) -> dict[str, Any]:
    """A dotted horizontal line across a panel (a shape)."""
    n = "" if panel == 1 else str(panel)
    return dict(type="line", xref=f"x{n} domain", x0=0, x1=1, yref=f"y{n}", y0=y, y1=y, line=DOTTED)


def _cell_text(ids: np.ndarray) -> list[list[str]]:
    """ids (3, rows, cols) -> 't,h,w' per cell."""
    return [[f"{ids[0, r, c]},{ids[1, r, c]},{ids[2, r, c]}" for c in range(ids.shape[2])] for r in range(ids.shape[1])]


def grid_figure(
    panel_list: list[tuple[str, np.ndarray, np.ndarray]], *, merge: int, lecture: bool = False
) -> go.Figure:
    """Vision blocks drawn as their grids of tokens, each cell labelled with its (t, h, w) ids.

    Args:
        panel_list: (panel title, ids (3, rows, cols), token index (rows, cols)) per grid drawn.
        merge: the spatial merge size (each cell is merge x merge patches).
    """
    lk = look(lecture)
    layout = panels(1, len(panel_list), [p[0] for p in panel_list])
    blues = scale_stops("Blues")
    data = []
    for i, (_title, ids, index) in enumerate(panel_list, start=1):
        rows, cols = index.shape
        trace = dict(
            type="heatmap",
            z=compact(ids[1] + ids[2]),  # colour runs along the diagonal: h + w
            x=compact(np.arange(cols)),
            y=compact(np.arange(rows)),
            colorscale=blues,
            showscale=False,
            text=_cell_text(ids),
            customdata=compact(index),
            hovertemplate=_("token %{customdata} of the sequence<br>row %{y}, column %{x}")
            + "<br>(t, h, w) = (%{text})<extra></extra>",
            xgap=2,
            ygap=2,
            **on(i),
        )
        if cols <= MAX_CELL_TEXT:
            trace.update(texttemplate="%{text}", textfont=dict(size=lk.font - 2 if cols > 6 else lk.font))
        data.append(trace)
        axis(
            layout,
            "x",
            i,
            title=_("column (tokens)"),
            showgrid=False,
            zeroline=False,
            **({"dtick": 1} if cols <= 16 else {}),
        )
        axis(
            layout, "y", i, autorange="reversed", showgrid=False, zeroline=False, **({"dtick": 1} if rows <= 16 else {})
        )
    axis(layout, "y", 1, title=_("row (tokens)"))
    return finish(
        dict(data=data, layout=layout),
        title=_("Each image or video token's three position ids (t, h, w)"),
        subtitle=subtitle_lines(
            _("One cell = one token = {m} × {m} patches merged; the ids are written as t,h,w").format(m=merge),
            _("Rows share h, columns share w; every frame of a video shares its t"),
        ),
        lecture=lecture,
    )


def _swatch(kind: str) -> dict[str, Any]:
    """A legend entry for a kind of run (a trace with no points)."""
    return dict(type="scatter", x=[], y=[], mode="markers", name=_(KIND_LABEL[kind]), hoverinfo="skip",
                marker=dict(symbol="square", size=14, color=KIND_SWATCH[kind]))  # fmt: skip


def sequence_figure(
    ids: np.ndarray,
    original: np.ndarray,
    blocks: list[tuple[str, int, int]],
    *,
    resume_at: int | None,
    lecture: bool = False,
) -> go.Figure:
    """The three ids of every token along the 1-D sequence, with the original Qwen rule dashed.

    Args:
        ids: (3, seq) transformers 5.23. original: (3, seq) the original Qwen code.
        blocks: (kind, start, stop) runs of the sequence.
        resume_at: the first token after the video (where the two rules part), if any.
    """
    seq = ids.shape[1]
    x = compact(np.arange(seq))
    parted = not np.array_equal(ids, original)
    shapes = [
        dict(type="rect", xref="x", yref="y domain", x0=start - 0.5, x1=stop - 0.5, y0=0, y1=1,
             fillcolor=KIND_FILL[kind], line=dict(width=0), layer="below")
        for kind, start, stop in blocks
    ]  # fmt: skip
    data = [_swatch(kind) for kind in dict.fromkeys(b[0] for b in blocks)]
    if parted:
        data.append(
            dict(type="scatter", x=x, y=compact(original.max(axis=0)), mode="lines",
                 name=_("original Qwen code (largest id)"), line=dict(color="#555", dash="dash", width=2, shape="hvh"))
        )  # fmt: skip
    for a in range(3):
        data.append(
            dict(
                type="scatter",
                x=x,
                y=compact(ids[a]),
                mode="lines+markers" if seq <= 120 else "lines",
                name=_("{axis} id").format(axis=_(AXIS_NAMES[a])),
                line=dict(color=AXIS_COLOURS[a], width=2, shape="hvh"),
                marker=dict(size=5),
                hovertemplate=_("token %{x}")
                + "<br>"
                + _("{axis} id").format(axis=_(AXIS_NAMES[a]))
                + " = %{y}<extra></extra>",
            )
        )
    if resume_at is not None and resume_at < seq:  # where the text after the video starts, by each rule
        new, old = int(ids[0, resume_at]), int(original[0, resume_at])
        for y, name, symbol in (
            (new, _("text resumes at {id} (5.23)").format(id=new), "star"),
            (old, _("text resumes at {id} (original)").format(id=old), "circle-open"),
        ):
            data.append(
                dict(type="scatter", x=[resume_at], y=[y], mode="markers", name=name, hoverinfo="name",
                     marker=dict(symbol=symbol, size=16, color="#111", line=dict(width=2, color="#111")))
            )  # fmt: skip
    layout = dict(
        shapes=shapes,
        xaxis=dict(title=dict(text=_("token index in the sequence")), showgrid=False, zeroline=False),
        yaxis=dict(title=dict(text=_("position id")), rangemode="tozero"),
    )
    return finish(
        dict(data=data, layout=layout),
        title=_("The sequence in 1-D: every token's t, h and w ids"),
        subtitle=subtitle_lines(
            _("Text: the three ids are equal and count up. A vision block starts all three at the same id"),
            _(
                "Text after it resumes at start + max(h, w)/m (transformers 5.23) or at largest id + 1 "
                "(original, dashed)"
            )
            if parted
            else _("Text after it resumes at start + max(h, w)/m; the original rule (largest id + 1) agrees here"),
        ),
        lecture=lecture,
    )


def time_figure(
    frames: np.ndarray,
    seconds: np.ndarray,
    frame_ids: np.ndarray,
    second_ids: np.ndarray,
    *,
    resume: int,
    tokens_per_second: int,
    lecture: bool = False,
) -> go.Figure:
    """The temporal id of each temporal patch of a video, frame index against seconds."""
    series = (
        (_("Qwen2-VL, Qwen3-VL: frame index"), frame_ids, "#2ca02c"),
        (_("Qwen2.5-VL: ⌊seconds × {rate}⌋").format(rate=tokens_per_second), second_ids, "#9467bd"),
    )
    data = [
        dict(
            type="scatter",
            x=compact(frames),
            y=compact(ids),
            customdata=np.asarray(seconds, dtype=np.float32),
            mode="lines+markers",
            name=name,
            line=dict(color=colour, width=2),
            hovertemplate=_("temporal patch %{x} (starts at %{customdata:.2f} s)<br>time id = start + %{y}")
            + "<extra></extra>",
        )
        for name, ids, colour in series
    ]
    layout = dict(
        shapes=[hline(resume)],
        annotations=[
            dict(x=0, y=resume, xref="x", yref="y", xanchor="left", yanchor="bottom", showarrow=False,
                 text=_("next text starts at start + {resume} (5.23)").format(resume=resume))
        ],
        xaxis=dict(title=dict(text=_("temporal patch of the video (2 frames each)")), zeroline=False,
                   **({"dtick": 1} if len(frames) <= 20 else {})),
        yaxis=dict(title=dict(text=_("time id − the video's start id")), rangemode="tozero"),
    )  # fmt: skip
    return finish(
        dict(data=data, layout=layout),
        title=_("The time axis of a video: frame index or seconds"),
        subtitle=subtitle_lines(
            _("Above the dotted line the video's time ids run past where the following text starts"),
            _("Qwen2.5-VL spaces frames by real time, so a slow frame rate and a fast one get different ids"),
        ),
        lecture=lecture,
    )


# --- the figures, by plain arguments ---------------------------------------------------------------

PROMPT_ENTRIES = 4  # prompts kept for the two figures that share one


@functools.lru_cache(maxsize=PROMPT_ENTRIES)  # one computation for the grid and the sequence of a view
def prompt(
    *, vl_model: str, merge: int, text_before: int, image_rows: int, image_cols: int, text_mid: int, video: bool,
    frames: int, video_rows: int, video_cols: int, fps: float, tokens_per_second: int, text_after: int,
) -> Prompt:  # fmt: skip
    """The prompt's tokens and ids (:func:`posviz.encodings.multimodal_prompt.vl_prompt`; shared, never mutated)."""
    return vl_prompt(
        vl_model=vl_model, merge=merge, text_before=text_before, image_rows=image_rows, image_cols=image_cols,
        text_mid=text_mid, video=video, frames=frames, video_rows=video_rows, video_cols=video_cols, fps=fps,
        tokens_per_second=tokens_per_second, text_after=text_after,
    )  # fmt: skip


def prompt_columns(p: Prompt) -> dict[str, np.ndarray]:
    """The CSV of the grid and the sequence: every token, its kind, type and ids by both rules."""
    kinds = np.empty(len(p.types), dtype=object)
    for run in p.runs:
        kinds[run.start : run.stop] = run.kind
    ids, original = p.ids.numpy(), p.original.numpy()
    return {
        "token": np.arange(len(p.types)),
        "kind": kinds,
        "mm_token_type_id": p.types.numpy(),
        "t": ids[0],
        "h": ids[1],
        "w": ids[2],
        "t original": original[0],
        "h original": original[1],
        "w original": original[2],
    }


def _grid(ids: np.ndarray, start: int, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """One run's ids as (3, rows, cols) and its token indices as (rows, cols)."""
    n = rows * cols
    return ids[:, start : start + n].reshape(3, rows, cols), np.arange(start, start + n).reshape(rows, cols)


def grid(
    *, vl_model: str, merge: int, text_before: int, image_rows: int, image_cols: int, text_mid: int, video: bool,
    frames: int, video_rows: int, video_cols: int, fps: float, tokens_per_second: int, text_after: int,
    lecture: bool = False,
) -> Chart:  # fmt: skip
    """The image's tokens, and the video's first and last frames, as grids labelled with their (t, h, w) ids."""
    p = prompt(
        vl_model=vl_model, merge=merge, text_before=text_before, image_rows=image_rows, image_cols=image_cols,
        text_mid=text_mid, video=video, frames=frames, video_rows=video_rows, video_cols=video_cols, fps=fps,
        tokens_per_second=tokens_per_second, text_after=text_after,
    )  # fmt: skip
    ids = p.ids.numpy()
    image = next(r for r in p.runs if r.kind == "image")
    panel_list = [(_("Image"), *_grid(ids, image.start, image_rows, image_cols))]
    if video:
        runs = [r for r in p.runs if r.kind == "video"]
        first, last = runs[0].start, runs[-1].stop - video_rows * video_cols
        panel_list.append((_("Video: first frame"), *_grid(ids, first, video_rows, video_cols)))
        if frames > 1:
            panel_list.append(
                (_("Video: last frame ({frames})").format(frames=frames), *_grid(ids, last, video_rows, video_cols))
            )
    figure = grid_figure(panel_list, merge=merge, lecture=lecture)
    return Chart.of(figure, lambda: columns_csv(prompt_columns(p)))


def sequence(
    *, vl_model: str, merge: int, text_before: int, image_rows: int, image_cols: int, text_mid: int, video: bool,
    frames: int, video_rows: int, video_cols: int, fps: float, tokens_per_second: int, text_after: int,
    lecture: bool = False,
) -> Chart:  # fmt: skip
    """Every token's t, h and w ids along the sequence, by transformers 5.23 and by the original Qwen code."""
    p = prompt(
        vl_model=vl_model, merge=merge, text_before=text_before, image_rows=image_rows, image_cols=image_cols,
        text_mid=text_mid, video=video, frames=frames, video_rows=video_rows, video_cols=video_cols, fps=fps,
        tokens_per_second=tokens_per_second, text_after=text_after,
    )  # fmt: skip
    blocks = [(r.kind, r.start, r.stop) for r in p.runs]
    resume_at = [r for r in p.runs if r.kind == "video"][-1].stop if video else None  # where the two rules part
    figure = sequence_figure(p.ids.numpy(), p.original.numpy(), blocks, resume_at=resume_at, lecture=lecture)
    return Chart.of(figure, lambda: columns_csv(prompt_columns(p)))


def time(
    *, frames: int, merge: int, video_rows: int, video_cols: int, fps: float, tokens_per_second: int,
    lecture: bool = False,
) -> Chart:  # fmt: skip
    """The time id of each of a video's ``frames`` temporal patches: frame index against seconds."""
    v = video_time_ids(
        frames=frames, merge=merge, video_rows=video_rows, video_cols=video_cols, fps=fps,
        tokens_per_second=tokens_per_second,
    )  # fmt: skip
    columns = {
        "temporal patch": v.frames.numpy(),
        "start (s)": v.seconds.numpy(),
        "time id, frame index": v.frame_ids.numpy(),
        "time id, seconds": v.second_ids.numpy(),
    }
    figure = time_figure(*columns.values(), resume=v.resume, tokens_per_second=tokens_per_second, lecture=lecture)
    return Chart.of(figure, lambda: columns_csv(columns))

"""Figures for images and video: token ids on the patch grid and along the sequence, which pairs
carry time, height and width, the 2-D relative property, how vision encoders split a head, video time.

Plotly only (arrays in, ``go.Figure`` out); each figure is titled and its axes named.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from posviz.figures.colors import DIVERGING
from posviz.figures.data import compact
from posviz.figures.layout import finish, look, subtitle_lines

AXIS_NAMES = ("time t", "height h", "width w")
AXIS_COLOURS = ("#2ca02c", "#1f77b4", "#d62728")  # t green, h blue, w red
ROW_COL = ("row (height)", "column (width)")
ROW_COL_COLOURS = ("#1f77b4", "#d62728")
KIND_FILL = {"text": "rgba(127,127,127,0.10)", "stamp": "rgba(148,103,189,0.15)",
             "image": "rgba(31,119,180,0.12)", "video": "rgba(44,160,44,0.12)"}  # fmt: skip
KIND_SWATCH = {"text": "rgba(127,127,127,0.45)", "stamp": "rgba(148,103,189,0.55)",
               "image": "rgba(31,119,180,0.5)", "video": "rgba(44,160,44,0.5)"}  # fmt: skip
KIND_LABEL = {"text": "text", "stamp": "time stamp", "image": "image", "video": "video"}
MAX_CELL_TEXT = 12  # write ids into cells up to 12 columns a panel


def _cell_text(ids: np.ndarray) -> list[list[str]]:
    """ids (3, rows, cols) -> 't,h,w' per cell."""
    return [[f"{ids[0, r, c]},{ids[1, r, c]},{ids[2, r, c]}" for c in range(ids.shape[2])] for r in range(ids.shape[1])]


def grid_figure(panels: list[tuple[str, np.ndarray, np.ndarray]], *, merge: int, lecture: bool = False) -> go.Figure:
    """Vision blocks drawn as their grids of tokens, each cell labelled with its (t, h, w) ids.

    Args:
        panels: (panel title, ids (3, rows, cols), token index (rows, cols)) per grid drawn.
        merge: the spatial merge size (each cell is merge x merge patches).
    """
    lk = look(lecture)
    fig = make_subplots(rows=1, cols=len(panels), subplot_titles=[p[0] for p in panels], horizontal_spacing=0.06)
    for i, (_, ids, index) in enumerate(panels, start=1):
        rows, cols = index.shape
        text = _cell_text(ids)
        trace = go.Heatmap(
            z=compact(ids[1] + ids[2]),  # colour runs along the diagonal: h + w
            x=compact(np.arange(cols)),
            y=compact(np.arange(rows)),
            colorscale="Blues",
            showscale=False,
            text=text,
            customdata=compact(index),
            hovertemplate="token %{customdata} of the sequence<br>row %{y}, column %{x}<br>"
            "(t, h, w) = (%{text})<extra></extra>",
            xgap=2,
            ygap=2,
        )
        if cols <= MAX_CELL_TEXT:
            trace.texttemplate = "%{text}"
            trace.textfont = dict(size=lk.font - 2 if cols > 6 else lk.font)
        fig.add_trace(trace, row=1, col=i)
        fig.update_xaxes(title_text="column (tokens)", dtick=1 if cols <= 16 else None, row=1, col=i)
        fig.update_yaxes(autorange="reversed", dtick=1 if rows <= 16 else None, row=1, col=i)
    fig.update_yaxes(title_text="row (tokens)", row=1, col=1)
    fig.update_xaxes(showgrid=False, zeroline=False)
    fig.update_yaxes(showgrid=False, zeroline=False)
    return finish(
        fig,
        title="Each image or video token's three position ids (t, h, w)",
        subtitle=subtitle_lines(
            f"One cell = one token = {merge} × {merge} patches merged; the ids are written as t,h,w",
            "Rows share h, columns share w; every frame of a video shares its t",
        ),
        lecture=lecture,
    )


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
    fig = go.Figure()
    for kind, start, stop in blocks:
        fig.add_vrect(x0=start - 0.5, x1=stop - 0.5, fillcolor=KIND_FILL[kind], line_width=0, layer="below")
    for kind in dict.fromkeys(b[0] for b in blocks):  # one legend entry per kind of run
        fig.add_trace(
            go.Scatter(x=[None], y=[None], mode="markers", name=KIND_LABEL[kind], hoverinfo="skip",
                       marker=dict(symbol="square", size=14, color=KIND_SWATCH[kind]))
        )  # fmt: skip
    if not np.array_equal(ids, original):
        fig.add_trace(
            go.Scatter(x=x, y=compact(original.max(axis=0)), mode="lines", name="original Qwen code (largest id)",
                       line=dict(color="#555", dash="dash", width=2, shape="hvh"))
        )  # fmt: skip
    for a in range(3):
        fig.add_trace(
            go.Scatter(
                x=x,
                y=compact(ids[a]),
                mode="lines+markers" if seq <= 120 else "lines",
                name=f"{AXIS_NAMES[a]} id",
                line=dict(color=AXIS_COLOURS[a], width=2, shape="hvh"),
                marker=dict(size=5),
                hovertemplate=f"token %{{x}}<br>{AXIS_NAMES[a]} id = %{{y}}<extra></extra>",
            )
        )
    if resume_at is not None and resume_at < seq:  # where the text after the video starts, by each rule
        new, old = int(ids[0, resume_at]), int(original[0, resume_at])
        for y, name, symbol in (
            (new, f"text resumes at {new} (5.23)", "star"),
            (old, f"text resumes at {old} (original)", "circle-open"),
        ):
            fig.add_trace(
                go.Scatter(x=[resume_at], y=[y], mode="markers", name=name, hoverinfo="name",
                           marker=dict(symbol=symbol, size=16, color="#111", line=dict(width=2, color="#111")))
            )  # fmt: skip
    fig.update_xaxes(title_text="token index in the sequence", showgrid=False, zeroline=False)
    fig.update_yaxes(title_text="position id", rangemode="tozero")
    return finish(
        fig,
        title="The sequence in 1-D: every token's t, h and w ids",
        subtitle=subtitle_lines(
            "Text: the three ids are equal and count up. A vision block starts all three at the same id",
            "Text after it resumes at start + max(h, w)/m (transformers 5.23) or at largest id + 1 (original, dashed)"
            if not np.array_equal(ids, original)
            else "Text after it resumes at start + max(h, w)/m; the original rule (largest id + 1) agrees here",
        ),
        lecture=lecture,
    )


def pairs_figure(
    wavelength: np.ndarray, layouts: list[tuple[str, np.ndarray]], *, side: int, theta: float, lecture: bool = False
) -> go.Figure:
    """Each frequency pair's wavelength, coloured by the id (t, h, w) that turns it, one panel per layout.

    Args:
        wavelength: (n,) tokens per full turn of each pair.
        layouts: (panel title, axis per pair (n,)) per layout.
        side: the image's larger side in tokens (a pair with a longer wavelength barely turns across it).
        theta: the rope_theta the wavelengths come from.
    """
    fig = make_subplots(rows=len(layouts), cols=1, shared_xaxes=True, subplot_titles=[t for t, _ in layouts],
                        vertical_spacing=0.14)  # fmt: skip
    k = np.arange(len(wavelength))
    for row, (_, axes) in enumerate(layouts, start=1):
        for a in range(3):
            on = axes == a
            fig.add_trace(
                go.Scatter(
                    x=compact(k[on]),
                    y=compact(wavelength[on].astype(np.float32)),
                    mode="markers",
                    name=AXIS_NAMES[a],
                    legendgroup=AXIS_NAMES[a],
                    showlegend=row == 1,
                    marker=dict(color=AXIS_COLOURS[a], size=7),
                    hovertemplate=f"pair %{{x}}: {AXIS_NAMES[a]}<br>wavelength %{{y:.4g}} tokens<extra></extra>",
                ),
                row=row,
                col=1,
            )
        fig.add_hline(y=side, line=dict(color="#555", dash="dot", width=1.5), row=row, col=1)
        fig.update_yaxes(type="log", title_text="wavelength (tokens per turn)", row=row, col=1)
    fig.update_xaxes(title_text="frequency pair k (fast → slow)", row=len(layouts), col=1)
    fig.update_xaxes(zeroline=False)
    return finish(
        fig,
        title="Which frequency pairs each id turns: blocks against interleaved",
        subtitle=subtitle_lines(
            f"Dotted: the image's larger side, {side} tokens; a pair far above it barely turns across the image",
            f"Wavelengths for rope_theta {theta:,.0f}, head_dim {2 * len(wavelength)}",
            "Blocks give time only fast pairs and width only slow ones; interleaving gives each axis both",
        ),
        lecture=lecture,
        height=look(lecture).height + 120,
    )


def offset_figure(
    panels: list[tuple[str, np.ndarray]], *, height: int, width: int, gap: float, encoder: str, lecture: bool = False
) -> go.Figure:
    """Score of one query patch against every key patch, by offset (dh, dw), for two query patches.

    Args:
        panels: (panel title, scores (2h-1, 2w-1) with NaN off the grid) per query patch.
        height, width: the patch grid.
        gap: the largest difference between the panels where both are defined.
    """
    fig = make_subplots(rows=1, cols=len(panels), subplot_titles=[t for t, _ in panels], horizontal_spacing=0.08)
    dh = compact(np.arange(-(height - 1), height))
    dw = compact(np.arange(-(width - 1), width))
    top = max(float(np.nanmax(np.abs(z))) for _, z in panels) or 1.0
    for i, (_, z) in enumerate(panels, start=1):
        fig.add_trace(
            go.Heatmap(
                z=z.astype(np.float32),
                x=dw,
                y=dh,
                coloraxis="coloraxis",
                hovertemplate="dh = %{y}, dw = %{x}<br>score = %{z:.4f}<extra></extra>",
            ),
            row=1,
            col=i,
        )
        fig.update_xaxes(title_text="dw: key column − query column", row=1, col=i)
    fig.update_yaxes(title_text="dh: key row − query row", autorange="reversed", row=1, col=1)
    fig.update_yaxes(autorange="reversed", row=1, col=2)
    fig.update_layout(
        coloraxis=dict(colorscale=DIVERGING, cmin=-top, cmax=top, colorbar=dict(title=dict(text="score"))),
        plot_bgcolor="#e8e8e8",
    )
    return finish(
        fig,
        title=f"{encoder}: the score depends only on the offset (dh, dw)",
        subtitle=subtitle_lines(
            "One random vector as query and key, the query at two different patches; grey: keys off the image",
            f"Where both are defined the panels agree to {gap:.1e}",
        ),
        lecture=lecture,
    )


def split_figure(
    names: tuple[str, ...],
    axes: tuple[np.ndarray, ...],
    wavelengths: tuple[np.ndarray, ...],
    channels: tuple[np.ndarray, ...],
    *,
    lecture: bool = False,
) -> go.Figure:
    """Per vision encoder: each pair of a head, in the model's own order, coloured by row or column."""
    lk = look(lecture)
    fig = make_subplots(rows=len(names), cols=1, subplot_titles=list(names), vertical_spacing=0.09,
                        shared_xaxes=False)  # fmt: skip
    for row, (axis, wave, chans) in enumerate(zip(axes, wavelengths, channels, strict=True), start=1):
        k = np.arange(len(axis))
        for a in range(2):
            on = axis == a
            fig.add_trace(
                go.Scatter(
                    x=compact(k[on]),
                    y=compact(wave[on].astype(np.float32)),
                    customdata=compact(chans[on]),
                    mode="markers",
                    name=ROW_COL[a],
                    legendgroup=ROW_COL[a],
                    showlegend=row == 1,
                    marker=dict(color=ROW_COL_COLOURS[a], size=6),
                    hovertemplate=f"pair %{{x}} turns channels %{{customdata[0]}} and %{{customdata[1]}}"
                    f"<br>by the {ROW_COL[a]}<br>wavelength %{{y:.4g}} patches<extra></extra>",
                ),
                row=row,
                col=1,
            )
        fig.update_yaxes(type="log", title_text="patches per turn", row=row, col=1)
    fig.update_xaxes(title_text="pair k, in the model's own order", row=len(names), col=1)
    fig.update_xaxes(zeroline=False)
    return finish(
        fig,
        title="How each vision encoder splits a head between rows and columns",
        subtitle=subtitle_lines(
            "Pixtral: rows take the even, columns the odd frequencies of one table",
            "Qwen-VL: the same frequencies for rows, then columns; Gemma 4: columns first",
        ),
        lecture=lecture,
        height=lk.height + 260,
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
    fig = go.Figure()
    series = (
        ("Qwen2-VL, Qwen3-VL: frame index", frame_ids, "#2ca02c"),
        (f"Qwen2.5-VL: ⌊seconds × {tokens_per_second}⌋", second_ids, "#9467bd"),
    )
    for name, ids, colour in series:
        fig.add_trace(
            go.Scatter(
                x=compact(frames),
                y=compact(ids),
                customdata=compact(seconds),
                mode="lines+markers",
                name=name,
                line=dict(color=colour, width=2),
                hovertemplate="temporal patch %{x} (starts at %{customdata:.2f} s)<br>time id = start + %{y}"
                "<extra></extra>",
            )
        )
    fig.add_hline(y=resume, line=dict(color="#555", dash="dot", width=1.5))
    fig.add_annotation(
        x=0, y=resume, xanchor="left", yanchor="bottom", showarrow=False,
        text=f"next text starts at start + {resume} (5.23)",
    )  # fmt: skip
    whole = {"dtick": 1} if len(frames) <= 20 else {}
    fig.update_xaxes(title_text="temporal patch of the video (2 frames each)", zeroline=False, **whole)
    fig.update_yaxes(title_text="time id − the video's start id", rangemode="tozero")
    return finish(
        fig,
        title="The time axis of a video: frame index or seconds",
        subtitle=subtitle_lines(
            "Above the dotted line the video's time ids run past where the following text starts",
            "Qwen2.5-VL spaces frames by real time, so a slow frame rate and a fast one get different ids",
        ),
        lecture=lecture,
    )

"""Figures for images and video: token ids on the patch grid and along the sequence, which pairs
carry time, height and width, the 2-D relative property, how vision encoders split a head, video time.

Plotly only, built as plain specs (``dict(data=[...], layout={...})``, no ``go.Figure`` object model:
its validation costs tens of milliseconds a figure) and handed to :func:`posviz.figures.layout.finish`;
each figure is titled and its axes named.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from posviz.figures.colors import DIVERGING, scale_stops
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
    for i, (_, ids, index) in enumerate(panel_list, start=1):
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
            hovertemplate="token %{customdata} of the sequence<br>row %{y}, column %{x}<br>"
            "(t, h, w) = (%{text})<extra></extra>",
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
            title="column (tokens)",
            showgrid=False,
            zeroline=False,
            **({"dtick": 1} if cols <= 16 else {}),
        )
        axis(
            layout, "y", i, autorange="reversed", showgrid=False, zeroline=False, **({"dtick": 1} if rows <= 16 else {})
        )
    axis(layout, "y", 1, title="row (tokens)")
    return finish(
        dict(data=data, layout=layout),
        title="Each image or video token's three position ids (t, h, w)",
        subtitle=subtitle_lines(
            f"One cell = one token = {merge} × {merge} patches merged; the ids are written as t,h,w",
            "Rows share h, columns share w; every frame of a video shares its t",
        ),
        lecture=lecture,
    )


def _swatch(kind: str) -> dict[str, Any]:
    """A legend entry for a kind of run (a trace with no points)."""
    return dict(type="scatter", x=[], y=[], mode="markers", name=KIND_LABEL[kind], hoverinfo="skip",
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
                 name="original Qwen code (largest id)", line=dict(color="#555", dash="dash", width=2, shape="hvh"))
        )  # fmt: skip
    for a in range(3):
        data.append(
            dict(
                type="scatter",
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
            data.append(
                dict(type="scatter", x=[resume_at], y=[y], mode="markers", name=name, hoverinfo="name",
                     marker=dict(symbol=symbol, size=16, color="#111", line=dict(width=2, color="#111")))
            )  # fmt: skip
    layout = dict(
        shapes=shapes,
        xaxis=dict(title=dict(text="token index in the sequence"), showgrid=False, zeroline=False),
        yaxis=dict(title=dict(text="position id"), rangemode="tozero"),
    )
    return finish(
        dict(data=data, layout=layout),
        title="The sequence in 1-D: every token's t, h and w ids",
        subtitle=subtitle_lines(
            "Text: the three ids are equal and count up. A vision block starts all three at the same id",
            "Text after it resumes at start + max(h, w)/m (transformers 5.23) or at largest id + 1 (original, dashed)"
            if parted
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
    layout = panels(len(layouts), 1, [t for t, _ in layouts], vgap=0.14)
    k = np.arange(len(wavelength))
    data, shapes = [], []
    for row, (_, axes) in enumerate(layouts, start=1):
        for a in range(3):
            sel = axes == a
            data.append(
                dict(
                    type="scatter",
                    x=compact(k[sel]),
                    y=wavelength[sel].astype(np.float32),
                    mode="markers",
                    name=AXIS_NAMES[a],
                    legendgroup=AXIS_NAMES[a],
                    showlegend=row == 1,
                    marker=dict(color=AXIS_COLOURS[a], size=7),
                    hovertemplate=f"pair %{{x}}: {AXIS_NAMES[a]}<br>wavelength %{{y:.4g}} tokens<extra></extra>",
                    **on(row),
                )
            )
        shapes.append(hline(side, row))
        axis(layout, "y", row, type="log", title="wavelength (tokens per turn)")
        axis(layout, "x", row, zeroline=False, **({"matches": "x"} if row > 1 else {}))
    axis(layout, "x", len(layouts), title="frequency pair k (fast → slow)")
    layout["shapes"] = shapes
    return finish(
        dict(data=data, layout=layout),
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
    panel_list: list[tuple[str, np.ndarray]],
    *,
    height: int,
    width: int,
    gap: float,
    encoder: str,
    lecture: bool = False,
) -> go.Figure:
    """Score of one query patch against every key patch, by offset (dh, dw), for two query patches.

    Args:
        panel_list: (panel title, scores (2h-1, 2w-1) with NaN off the grid) per query patch.
        height, width: the patch grid.
        gap: the largest difference between the panels where both are defined.
    """
    layout = panels(1, len(panel_list), [t for t, _ in panel_list], hgap=0.08)
    dh = compact(np.arange(-(height - 1), height))
    dw = compact(np.arange(-(width - 1), width))
    top = max(float(np.nanmax(np.abs(z))) for _, z in panel_list) or 1.0
    data = []
    for i, (_, z) in enumerate(panel_list, start=1):
        data.append(
            dict(type="heatmap", z=z.astype(np.float32), x=dw, y=dh, coloraxis="coloraxis",
                 hovertemplate="dh = %{y}, dw = %{x}<br>score = %{z:.4f}<extra></extra>", **on(i))
        )  # fmt: skip
        axis(layout, "x", i, title="dw: key column − query column")
        axis(layout, "y", i, autorange="reversed")
    axis(layout, "y", 1, title="dh: key row − query row")
    layout.update(
        coloraxis=dict(colorscale=scale_stops(DIVERGING), cmin=-top, cmax=top, colorbar=dict(title=dict(text="score"))),
        plot_bgcolor="#e8e8e8",
    )
    return finish(
        dict(data=data, layout=layout),
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
    layout = panels(len(names), 1, list(names), vgap=0.09)
    data = []
    for row, (ax, wave, chans) in enumerate(zip(axes, wavelengths, channels, strict=True), start=1):
        k = np.arange(len(ax))
        for a in range(2):
            sel = ax == a
            data.append(
                dict(
                    type="scatter",
                    x=compact(k[sel]),
                    y=wave[sel].astype(np.float32),
                    customdata=compact(chans[sel]),
                    mode="markers",
                    name=ROW_COL[a],
                    legendgroup=ROW_COL[a],
                    showlegend=row == 1,
                    marker=dict(color=ROW_COL_COLOURS[a], size=6),
                    hovertemplate=f"pair %{{x}} turns channels %{{customdata[0]}} and %{{customdata[1]}}"
                    f"<br>by the {ROW_COL[a]}<br>wavelength %{{y:.4g}} patches<extra></extra>",
                    **on(row),
                )
            )
        axis(layout, "y", row, type="log", title="patches per turn")
        axis(layout, "x", row, zeroline=False)
    axis(layout, "x", len(names), title="pair k, in the model's own order")
    return finish(
        dict(data=data, layout=layout),
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
    series = (
        ("Qwen2-VL, Qwen3-VL: frame index", frame_ids, "#2ca02c"),
        (f"Qwen2.5-VL: ⌊seconds × {tokens_per_second}⌋", second_ids, "#9467bd"),
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
            hovertemplate="temporal patch %{x} (starts at %{customdata:.2f} s)<br>time id = start + %{y}"
            "<extra></extra>",
        )
        for name, ids, colour in series
    ]
    layout = dict(
        shapes=[hline(resume)],
        annotations=[
            dict(x=0, y=resume, xref="x", yref="y", xanchor="left", yanchor="bottom", showarrow=False,
                 text=f"next text starts at start + {resume} (5.23)")
        ],
        xaxis=dict(title=dict(text="temporal patch of the video (2 frames each)"), zeroline=False,
                   **({"dtick": 1} if len(frames) <= 20 else {})),
        yaxis=dict(title=dict(text="time id − the video's start id"), rangemode="tozero"),
    )  # fmt: skip
    return finish(
        dict(data=data, layout=layout),
        title="The time axis of a video: frame index or seconds",
        subtitle=subtitle_lines(
            "Above the dotted line the video's time ids run past where the following text starts",
            "Qwen2.5-VL spaces frames by real time, so a slow frame rate and a fast one get different ids",
        ),
        lecture=lecture,
    )

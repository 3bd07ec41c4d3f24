"""Figures of frequency pairs for images and video: which pairs each M-RoPE id turns, the 2-D relative
property of a vision encoder's RoPE, and how each encoder splits a head between rows and columns.

``pairs``, ``offsets`` and ``split`` (and the table ``axis_ranges``) are what the /vision page (and a
notebook) calls, each a function of plain arguments; the ``*_figure`` builders turn arrays into specs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from posviz.encodings.model_vision import ENCODERS, PRESETS
from posviz.encodings.multimodal_pairs import (
    BLOCKS,
    INTERLEAVED,
    axis_wavelengths,
    encoder_splits,
    mrope_pairs,
    offset_maps,
)
from posviz.figures.chart import Chart
from posviz.figures.colors import DIVERGING, scale_stops
from posviz.figures.csv import columns_csv
from posviz.figures.data import compact
from posviz.figures.layout import finish, look, subtitle_lines
from posviz.figures.multimodal import AXIS_COLOURS, AXIS_NAMES, axis, hline, on, panels
from posviz.i18n import N_, _

ROW_COL = (N_("row (height)"), N_("column (width)"))  # shown as _(name)
ROW_COL_COLOURS = ("#1f77b4", "#d62728")


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
    layout = panels(len(layouts), 1, [t for t, _axes in layouts], vgap=0.14)
    k = np.arange(len(wavelength))
    data, shapes = [], []
    for row, (_title, axes) in enumerate(layouts, start=1):
        for a in range(3):
            sel = axes == a
            data.append(
                dict(
                    type="scatter",
                    x=compact(k[sel]),
                    y=wavelength[sel].astype(np.float32),
                    mode="markers",
                    name=_(AXIS_NAMES[a]),
                    legendgroup=AXIS_NAMES[a],
                    showlegend=row == 1,
                    marker=dict(color=AXIS_COLOURS[a], size=7),
                    hovertemplate=_("pair %{x}")
                    + ": "
                    + _(AXIS_NAMES[a])
                    + "<br>"
                    + _("wavelength %{y:.4g} tokens")
                    + "<extra></extra>",
                    **on(row),
                )
            )
        shapes.append(hline(side, row))
        axis(layout, "y", row, type="log", title=_("wavelength (tokens per turn)"))
        axis(layout, "x", row, zeroline=False, **({"matches": "x"} if row > 1 else {}))
    axis(layout, "x", len(layouts), title=_("frequency pair k (fast → slow)"))
    layout["shapes"] = shapes
    return finish(
        dict(data=data, layout=layout),
        title=_("Which frequency pairs each id turns: blocks against interleaved"),
        subtitle=subtitle_lines(
            _(
                "Dotted: the image's larger side, {side} tokens; a pair far above it barely turns across the image"
            ).format(side=side),
            _("Wavelengths for rope_theta {theta}, head_dim {head_dim}").format(
                theta=f"{theta:,.0f}", head_dim=2 * len(wavelength)
            ),
            _("Blocks give time only fast pairs and width only slow ones; interleaving gives each axis both"),
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
    layout = panels(1, len(panel_list), [t for t, _z in panel_list], hgap=0.08)
    dh = compact(np.arange(-(height - 1), height))
    dw = compact(np.arange(-(width - 1), width))
    top = max(float(np.nanmax(np.abs(z))) for _title, z in panel_list) or 1.0
    data = []
    for i, (_title, z) in enumerate(panel_list, start=1):
        data.append(
            dict(type="heatmap", z=z.astype(np.float32), x=dw, y=dh, coloraxis="coloraxis",
                 hovertemplate=_("dh = %{y}, dw = %{x}<br>score = %{z:.4f}") + "<extra></extra>", **on(i))
        )  # fmt: skip
        axis(layout, "x", i, title=_("dw: key column − query column"))
        axis(layout, "y", i, autorange="reversed")
    axis(layout, "y", 1, title=_("dh: key row − query row"))
    layout.update(
        coloraxis=dict(
            colorscale=scale_stops(DIVERGING), cmin=-top, cmax=top, colorbar=dict(title=dict(text=_("score")))
        ),
        plot_bgcolor="#e8e8e8",
    )
    return finish(
        dict(data=data, layout=layout),
        title=_("{encoder}: the score depends only on the offset (dh, dw)").format(encoder=encoder),
        subtitle=subtitle_lines(
            _("One random vector as query and key, the query at two different patches; grey: keys off the image"),
            _("Where both are defined the panels agree to {gap}").format(gap=f"{gap:.1e}"),
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
    layout = panels(len(names), 1, [_(n) for n in names], vgap=0.09)
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
                    name=_(ROW_COL[a]),
                    legendgroup=ROW_COL[a],
                    showlegend=row == 1,
                    marker=dict(color=ROW_COL_COLOURS[a], size=6),
                    hovertemplate=_("pair %{x} turns channels %{customdata[0]} and %{customdata[1]}")
                    + "<br>"
                    + _("by the {axis}").format(axis=_(ROW_COL[a]))
                    + "<br>"
                    + _("wavelength %{y:.4g} patches")
                    + "<extra></extra>",
                    **on(row),
                )
            )
        axis(layout, "y", row, type="log", title=_("patches per turn"))
        axis(layout, "x", row, zeroline=False)
    axis(layout, "x", len(names), title=_("pair k, in the model's own order"))
    return finish(
        dict(data=data, layout=layout),
        title=_("How each vision encoder splits a head between rows and columns"),
        subtitle=subtitle_lines(
            _("Pixtral: rows take the even, columns the odd frequencies of one table"),
            _("Qwen-VL: the same frequencies for rows, then columns; Gemma 4: columns first"),
        ),
        lecture=lecture,
        height=lk.height + 260,
    )


# --- the figures and the table, by plain arguments --------------------------------------------------

AXES = np.array(["t", "h", "w"])


def pairs(*, vl_model: str, side: int, lecture: bool = False) -> Chart:
    """``vl_model``'s text pairs by wavelength, coloured by the id that turns them, in blocks and interleaved;
    ``side`` is the image's larger side in tokens."""
    v = mrope_pairs(vl_model)
    wavelength, blocks, interleaved = (x.numpy() for x in (v.wavelength, v.blocks, v.interleaved))
    layouts = [
        (
            _("Blocks t | h | w: Qwen2-VL, Qwen2.5-VL, mrope_section {section}").format(
                section=list(BLOCKS.mrope_section)
            ),
            blocks,
        ),
        (
            _("Interleaved t h w t h w …: Qwen3-VL, mrope_section {section}").format(
                section=list(INTERLEAVED.mrope_section)
            ),
            interleaved,
        ),
    ]
    figure = pairs_figure(wavelength, layouts, side=side, theta=PRESETS[vl_model].rope_theta, lecture=lecture)
    columns = {
        "pair k": np.arange(len(wavelength)),
        "wavelength (tokens)": wavelength,
        "blocks axis": AXES[blocks],
        "interleaved axis": AXES[interleaved],
    }
    return Chart.of(figure, lambda: columns_csv(columns))


def axis_ranges(*, vl_model: str, side: int) -> pd.DataFrame:
    """Per layout and axis: how many pairs, the shortest and the longest wavelength, and how far the
    fastest pair turns across the image's larger side."""
    v = mrope_pairs(vl_model)
    # A table the page shows (no CSV): its headers and words in the run's language.
    names = [_("layout"), _("id"), _("pairs"), _("shortest wavelength"), _("longest wavelength")]
    names.append(_("turns of its fastest pair across {side} tokens").format(side=side))
    rows: list[list] = []
    for layout, axes in ((_("blocks"), v.blocks), (_("interleaved"), v.interleaved)):
        for name, found in zip(AXIS_NAMES, axis_wavelengths(v.wavelength, axes), strict=True):
            count, shortest, longest = found or (0, None, None)
            rows.append(
                [layout, _(name), count]
                + (["—"] * 3 if found is None else [f"{shortest:,.1f}", f"{longest:,.0f}", f"{side / shortest:.3g}"])
            )
    return pd.DataFrame(rows, columns=names)


def offsets(
    *, encoder: str, height: int, width: int, q_row: int, q_col: int, seed: int, lecture: bool = False
) -> Chart:
    """``encoder``'s 2-D RoPE score by offset on a ``height x width`` patch grid, for the query at
    ``(q_row, q_col)`` and at a second patch: the two agree."""
    v = offset_maps(encoder, height=height, width=width, row=q_row, col=q_col, seed=seed)
    chosen, other = v.chosen.numpy(), v.other.numpy()
    panel_list = [
        (_("query at patch {patch}").format(patch=f"({q_row}, {q_col})"), chosen),
        (_("query at patch {patch}").format(patch=v.other_patch), other),
    ]
    figure = offset_figure(
        panel_list, height=height, width=width, gap=v.gap, encoder=_(ENCODERS[encoder][0]), lecture=lecture
    )
    dh, dw = np.meshgrid(np.arange(-(height - 1), height), np.arange(-(width - 1), width), indexing="ij")
    columns = {
        "dh": dh.ravel(),
        "dw": dw.ravel(),
        f"score, query ({q_row}, {q_col})": chosen.ravel(),
        f"score, query {v.other_patch}": other.ravel(),
    }
    return Chart.of(figure, lambda: columns_csv(columns))


def split(*, lecture: bool = False) -> Chart:
    """Every vision encoder's pairs, coloured by row or column, by wavelength."""
    splits = encoder_splits()
    names = tuple(e.name for e in splits)
    axes = tuple(e.axis.numpy() for e in splits)
    waves = tuple(e.wavelength.numpy() for e in splits)
    channels = tuple(e.channels.numpy() for e in splits)
    figure = split_figure(names, axes, waves, channels, lecture=lecture)
    columns = {
        "encoder": np.concatenate([[n] * len(a) for n, a in zip(names, axes, strict=True)]),
        "pair k": np.concatenate([np.arange(len(a)) for a in axes]),
        "axis": np.concatenate([np.array(["row", "column"])[a] for a in axes]),
        "wavelength (patches)": np.concatenate(waves),
        "channel a": np.concatenate([c[:, 0] for c in channels]),
        "channel b": np.concatenate([c[:, 1] for c in channels]),
    }
    return Chart.of(figure, lambda: columns_csv(columns))

"""Figures of video generators' 3-D RoPE: how frames, rows and columns share one head.

``head`` and ``ladders`` are what the /vision page (and a notebook) calls, each a function of plain
arguments returning a :class:`Chart`. The arrays come from :mod:`posviz.encodings.video_rope` (Wan 2.1,
HunyuanVideo) and, beside them, Qwen3-VL's interleaved M-RoPE (:mod:`posviz.encodings.multimodal_pairs`).
"""

from __future__ import annotations

import numpy as np

from posviz.encodings.model_vision import PRESETS
from posviz.encodings.multimodal_pairs import mrope_pairs, pair_wavelengths
from posviz.encodings.video_rope import (
    VIDEO_MODELS,
    video_axis_of_pairs,
    video_inv_freq,
    video_positions,
    video_rope_angles,
    video_rope_cos_sin,
)
from posviz.figures.chart import Chart
from posviz.figures.colors import DIVERGING, scale_stops
from posviz.figures.csv import columns_csv
from posviz.figures.data import compact
from posviz.figures.layout import finish, look, subtitle_lines
from posviz.figures.multimodal import AXIS_COLOURS, AXIS_NAMES, axis, hline, on, panels
from posviz.i18n import N_, _

AXIS_WORDS = np.array([N_("time"), N_("height"), N_("width")])  # shown as _(word); the CSV keeps English
QWEN3 = PRESETS["qwen3_vl"]


def _split(dims: tuple[int, int, int]) -> str:
    return " + ".join(_("{n} {axis}").format(n=d // 2, axis=_(str(a))) for d, a in zip(dims, AXIS_WORDS, strict=True))


def _text_note(video_model: str) -> str | None:
    if video_model == "hunyuan_video":
        return _("HunyuanVideo's text tokens after the video are not rotated: cos 1, sin 0 on every pair")
    return None


def head(*, video_model: str, frames: int, height: int, width: int, lecture: bool = False) -> Chart:
    """``cos`` of every pair's angle for every patch of a ``frames x height x width`` latent, patches
    frame-major; a strip above says which axis turns each pair."""
    m = VIDEO_MODELS[video_model]
    pos = video_positions(frames, height, width)  # (N, 3)
    angles = video_rope_angles(pos, m.dims, theta=m.theta).numpy()  # (N, d/2)
    cos = video_rope_cos_sin(pos, m.dims, theta=m.theta)[0].numpy()[:, ::2]  # (N, d/2): one per pair
    axes = video_axis_of_pairs(m.dims).numpy()  # (d/2,)
    n, pairs = cos.shape
    k = np.arange(pairs)
    token = np.arange(n)
    stops = [[0, AXIS_COLOURS[0]], [1 / 3, AXIS_COLOURS[0]], [1 / 3, AXIS_COLOURS[1]], [2 / 3, AXIS_COLOURS[1]]]
    stops += [[2 / 3, AXIS_COLOURS[2]], [1, AXIS_COLOURS[2]]]
    data = [
        dict(type="heatmap", z=compact(cos), x=compact(k), y=compact(token), zmin=-1, zmax=1,
             colorscale=scale_stops(DIVERGING), colorbar=dict(title=dict(text="cos"), len=0.8, y=0.4),
             hovertemplate=_("patch %{y}, pair %{x}<br>cos(angle) = %{z:.3f}") + "<extra></extra>"),
        dict(type="heatmap", z=compact(axes[None, :]), x=compact(k), y=["axis"], zmin=-0.5, zmax=2.5,
             colorscale=stops, showscale=False, xaxis="x2", yaxis="y2",
             customdata=np.array([_(str(w)) for w in AXIS_WORDS])[axes][None, :].tolist(),
             hovertemplate=_("pair %{x} turns with %{customdata}") + "<extra></extra>"),
    ]  # fmt: skip
    ticks = [f * height * width for f in range(frames)]
    layout = dict(
        xaxis=dict(domain=[0, 1], anchor="y",
                   title=dict(text=_("frequency pair k of the head (fast → slow per axis)"))),
        yaxis=dict(domain=[0, 0.86], anchor="x", autorange="reversed", title=dict(text=_("patch (frame-major)")),
                   tickvals=ticks, ticktext=[_("frame {f}").format(f=f) for f in range(frames)]),
        xaxis2=dict(domain=[0, 1], anchor="y2", matches="x", showticklabels=False),
        yaxis2=dict(domain=[0.9, 1], anchor="x2", showticklabels=False),
    )  # fmt: skip
    figure = finish(
        dict(data=data, layout=layout),
        title=_("{name}: frames, rows and columns share one head").format(name=m.name),
        subtitle=subtitle_lines(
            _("Head {head_dim}: {split} pairs (green time, blue height, red width), θ = {theta}").format(
                head_dim=m.head_dim, split=_split(m.dims), theta=f"{m.theta:,.0f}"
            ),
            _("A {frames} × {height} × {width} latent: time pairs change only from frame to frame").format(
                frames=frames, height=height, width=width
            ),
            _text_note(video_model),
        ),
        lecture=lecture,
        height=look(lecture).height + 80,
    )
    columns = {"patch": token, "frame": pos[:, 0].numpy(), "row": pos[:, 1].numpy(), "column": pos[:, 2].numpy()}
    columns |= {f"angle pair {j} ({AXIS_WORDS[a]})": angles[:, j] for j, a in enumerate(axes)}
    return Chart.of(figure, lambda: columns_csv(columns))


def ladders(*, video_model: str, side: int, lecture: bool = False) -> Chart:
    """Each pair's wavelength on its own axis's ladder, coloured by axis: ``video_model`` beside Qwen3-VL's
    interleaved M-RoPE of the same 128-dim head. Dotted: ``side``, the latent's largest side in patches."""
    m = VIDEO_MODELS[video_model]
    video_axes = video_axis_of_pairs(m.dims).numpy()
    video_wave = pair_wavelengths(video_inv_freq(m.dims, theta=m.theta)).numpy()
    q = mrope_pairs("qwen3_vl")
    qwen_axes, qwen_wave = q.interleaved.numpy(), q.wavelength.numpy()
    titles = [
        _("{name}: one ladder per axis, θ = {theta}, pairs {split}").format(
            name=m.name, theta=f"{m.theta:,.0f}", split=_split(m.dims)
        ),
        _("{name}: one ladder, interleaved t h w …, θ = {theta}, mrope_section {section}").format(
            name=QWEN3.name, theta=f"{QWEN3.rope_theta:,.0f}", section=list(QWEN3.mrope_section)
        ),
    ]
    layout = panels(2, 1, titles, vgap=0.16)
    data, shapes = [], []
    for row, (axes, wave) in enumerate(((video_axes, video_wave), (qwen_axes, qwen_wave)), start=1):
        k = np.arange(len(wave))
        for a in range(3):
            sel = axes == a
            data.append(
                dict(type="scatter", x=compact(k[sel]), y=wave[sel].astype(np.float32), mode="markers",
                     name=_(AXIS_NAMES[a]), legendgroup=AXIS_NAMES[a], showlegend=row == 1,
                     marker=dict(color=AXIS_COLOURS[a], size=7),
                     hovertemplate=_("pair %{x}") + ": " + _(AXIS_NAMES[a]) + "<br>"
                     + _("wavelength %{y:.4g} positions") + "<extra></extra>",
                     **on(row))
            )  # fmt: skip
        axis(layout, "y", row, type="log", title=_("wavelength (positions per turn)"))
        axis(layout, "x", row, zeroline=False, **({"matches": "x"} if row > 1 else {}))
    shapes.append(hline(side, 1))
    axis(layout, "x", 2, title=_("frequency pair k of the head, in the model's order"))
    layout["shapes"] = shapes
    figure = finish(
        dict(data=data, layout=layout),
        title=_("Three ladders against one interleaved ladder"),
        subtitle=subtitle_lines(
            _(
                "Dotted: the latent's largest side, {side} patches; a pair far above it barely turns across the video"
            ).format(side=side),
            _("A video generator restarts the ladder on each axis; Qwen3-VL deals one ladder out to t, h and w"),
        ),
        lecture=lecture,
        height=look(lecture).height + 120,
    )
    columns = {
        "pair k": np.arange(len(video_wave)),
        f"{m.name} axis": AXIS_WORDS[video_axes],
        f"{m.name} wavelength": video_wave,
        f"{QWEN3.name} axis": AXIS_WORDS[qwen_axes],
        f"{QWEN3.name} wavelength": qwen_wave,
    }
    return Chart.of(figure, lambda: columns_csv(columns))

"""The /vision page's figures, each with its CSV, cached process-wide by the key and lecture mode it
is built from (:func:`posviz.ui.cache.cached_figure`: the CSV is built once per view)."""

from __future__ import annotations

import numpy as np

from posviz.figures import multimodal as fig
from posviz.figures.csv import columns_csv
from posviz.ui.cache import Chart, cached_figure
from posviz.ui.vision.settings import ENCODERS, PRESETS, OffsetKey, SequenceKey
from posviz.ui.vision.views import BLOCKS, INTERLEAVED, offset_view, pairs_view, sequence_view, split_view, time_view

Columns = dict[str, np.ndarray]


def _grid(ids: np.ndarray, start: int, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """One run's ids as (3, rows, cols) and its token indices as (rows, cols)."""
    n = rows * cols
    return ids[:, start : start + n].reshape(3, rows, cols), np.arange(start, start + n).reshape(rows, cols)


@cached_figure
def grid(k: SequenceKey, lecture: bool) -> Chart:
    v = sequence_view(k)
    image = next(b for b in v.blocks if b.kind == "image")
    panels = [("Image", *_grid(v.ids, image.start, k.image_rows, k.image_cols))]
    if k.video:
        runs = [b for b in v.blocks if b.kind == "video"]
        first, last = runs[0].start, runs[-1].stop - k.video_rows * k.video_cols
        panels.append(("Video: first frame", *_grid(v.ids, first, k.video_rows, k.video_cols)))
        if k.frames > 1:
            panels.append((f"Video: last frame ({k.frames})", *_grid(v.ids, last, k.video_rows, k.video_cols)))
    figure = fig.grid_figure(panels, merge=k.merge, lecture=lecture)
    return Chart(figure, lambda: columns_csv(sequence_columns(k)))


def sequence_columns(k: SequenceKey) -> Columns:
    v = sequence_view(k)
    kinds = np.empty(len(v.types), dtype=object)
    for b in v.blocks:
        kinds[b.start : b.stop] = b.kind
    return {
        "token": np.arange(len(v.types)),
        "kind": kinds,
        "mm_token_type_id": v.types,
        "t": v.ids[0],
        "h": v.ids[1],
        "w": v.ids[2],
        "t original": v.original[0],
        "h original": v.original[1],
        "w original": v.original[2],
    }


def resume_token(k: SequenceKey) -> int | None:
    """The first token after the video, where the two rules part; None without a video."""
    if not k.video:
        return None
    v = sequence_view(k)
    return [b for b in v.blocks if b.kind == "video"][-1].stop


@cached_figure
def sequence(k: SequenceKey, lecture: bool) -> Chart:
    v = sequence_view(k)
    blocks = [(b.kind, b.start, b.stop) for b in v.blocks]
    figure = fig.sequence_figure(v.ids, v.original, blocks, resume_at=resume_token(k), lecture=lecture)
    return Chart(figure, lambda: columns_csv(sequence_columns(k)))


@cached_figure
def pairs(vl_model: str, side: int, lecture: bool) -> Chart:
    v = pairs_view(vl_model)
    p = PRESETS[vl_model]
    layouts = [
        (f"Blocks t | h | w: Qwen2-VL, Qwen2.5-VL, mrope_section {list(BLOCKS.mrope_section)}", v.blocks),
        (f"Interleaved t h w t h w …: Qwen3-VL, mrope_section {list(INTERLEAVED.mrope_section)}", v.interleaved),
    ]
    figure = fig.pairs_figure(v.wavelength, layouts, side=side, theta=p.rope_theta, lecture=lecture)
    names = np.array(["t", "h", "w"])
    columns = {
        "pair k": np.arange(len(v.wavelength)),
        "wavelength (tokens)": v.wavelength,
        "blocks axis": names[v.blocks],
        "interleaved axis": names[v.interleaved],
    }
    return Chart(figure, lambda: columns_csv(columns))


def axis_ranges(vl_model: str, side: int) -> dict[str, list]:
    """Per layout and axis: how many pairs, the shortest and the longest wavelength, and how far the
    fastest pair turns across the image's larger side (a table)."""
    v = pairs_view(vl_model)
    turns = f"turns of its fastest pair across {side} tokens"
    rows: dict[str, list] = {
        "layout": [], "id": [], "pairs": [], "shortest wavelength": [], "longest wavelength": [], turns: []
    }  # fmt: skip
    for layout, axes in (("blocks", v.blocks), ("interleaved", v.interleaved)):
        for a, name in enumerate(fig.AXIS_NAMES):
            waves = v.wavelength[axes == a]
            rows["layout"].append(layout)
            rows["id"].append(name)
            rows["pairs"].append(int(len(waves)))
            rows["shortest wavelength"].append(f"{waves.min():,.1f}" if len(waves) else "—")
            rows["longest wavelength"].append(f"{waves.max():,.0f}" if len(waves) else "—")
            rows[turns].append(f"{side / waves.min():.3g}" if len(waves) else "—")
    return rows


@cached_figure
def offsets(k: OffsetKey, lecture: bool) -> Chart:
    v = offset_view(k)
    panels = [
        (f"query at patch ({k.q_row}, {k.q_col})", v.chosen),
        (f"query at patch {v.other_patch}", v.other),
    ]
    figure = fig.offset_figure(
        panels, height=v.height, width=v.width, gap=v.gap, encoder=ENCODERS[k.encoder][0], lecture=lecture
    )
    dh, dw = np.meshgrid(np.arange(-(v.height - 1), v.height), np.arange(-(v.width - 1), v.width), indexing="ij")
    columns = {
        "dh": dh.ravel(),
        "dw": dw.ravel(),
        f"score, query ({k.q_row}, {k.q_col})": v.chosen.ravel(),
        f"score, query {v.other_patch}": v.other.ravel(),
    }
    return Chart(figure, lambda: columns_csv(columns))


@cached_figure
def split(lecture: bool) -> Chart:
    v = split_view()
    figure = fig.split_figure(v.names, v.axis, v.wavelength, v.channels, lecture=lecture)
    columns: Columns = {
        "encoder": np.concatenate([[n] * len(a) for n, a in zip(v.names, v.axis, strict=True)]),
        "pair k": np.concatenate([np.arange(len(a)) for a in v.axis]),
        "axis": np.concatenate([np.array(["row", "column"])[a] for a in v.axis]),
        "wavelength (patches)": np.concatenate(v.wavelength),
        "channel a": np.concatenate([c[:, 0] for c in v.channels]),
        "channel b": np.concatenate([c[:, 1] for c in v.channels]),
    }
    return Chart(figure, lambda: columns_csv(columns))


@cached_figure
def time(k: SequenceKey, lecture: bool) -> Chart:
    v = time_view(k)
    figure = fig.time_figure(
        v.frames,
        v.seconds,
        v.frame_ids,
        v.second_ids,
        resume=v.resume,
        tokens_per_second=k.tokens_per_second,
        lecture=lecture,
    )
    columns = {
        "temporal patch": v.frames,
        "start (s)": v.seconds,
        "time id, frame index": v.frame_ids,
        "time id, seconds": v.second_ids,
    }
    return Chart(figure, lambda: columns_csv(columns))

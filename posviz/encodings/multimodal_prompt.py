"""A vision-language prompt as the Qwen-VL processors lay it out, and its M-RoPE ids.

Text, an image, text, a video and text: runs of ``mm_token_type_ids`` with their
grids (``image_grid_thw``, ``video_grid_thw``), Qwen3-VL's timestamp text before
each later frame, and the three ids of every token under both resume rules
(:func:`posviz.encodings.multimodal.mrope_position_ids`); and a video's time ids,
frame index against seconds.

Notation: grids ``(t, h, w)`` in patches; ``m`` the merge size; ``seq`` tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from posviz.encodings.multimodal import IMAGE, TEXT, VIDEO, mrope_position_ids, token_types
from posviz.i18n import _

STAMP_TOKENS = 3  # Qwen3-VL's timestamp text before each frame after the first ("<1.0 seconds>", about 3 tokens)
TEMPORAL_PATCH = 2  # frames per temporal patch in every Qwen-VL video processor


@dataclass(frozen=True)
class Run:
    """One run of the prompt: its kind and where it sits."""

    kind: str  # "text", "image", "video", "stamp" (Qwen3-VL's timestamp text between frames)
    start: int  # first token index
    stop: int
    frame: int = -1  # Qwen3-VL: which frame this video run is


@dataclass(frozen=True)
class Prompt:
    """A prompt's tokens and their ids."""

    types: torch.Tensor  # (seq,) int64: 0 text, 1 image, 2 video
    ids: torch.Tensor  # (3, seq) int64, transformers 5.23
    original: torch.Tensor  # (3, seq) int64, the original Qwen code: each block at the largest id + 1
    runs: tuple[Run, ...]
    image_grid: tuple[int, int, int]  # (t, h, w) patches
    video_grid: tuple[int, int, int] | None


def seconds_per_grid(fps: float) -> float:
    """Seconds per temporal patch of a video sampled at ``fps`` frames per second (``second_per_grid_t``)."""
    if not fps > 0:
        raise ValueError(_("fps must be positive, got {fps}.").format(fps=fps))
    return TEMPORAL_PATCH / fps


def prompt_runs(
    *, vl_model: str, image_tokens: int, video_frames: int, frame_tokens: int, text: tuple[int, int, int]
) -> tuple[list[int], list[Run]]:
    """The token types and runs of text, image, text, video (``video_frames`` of ``frame_tokens``; 0: none), text.

    ``text`` is the length of each text run (before, between, after). Qwen3-VL takes one run per frame
    with ``STAMP_TOKENS`` of timestamp text before each frame after the first.
    """
    types: list[int] = []
    runs: list[Run] = []

    def add(kind: str, code: int, n: int, frame: int = -1) -> None:
        if n:
            runs.append(Run(kind, len(types), len(types) + n, frame))
            types.extend([code] * n)

    add("text", TEXT, text[0])
    add("image", IMAGE, image_tokens)
    add("text", TEXT, text[1])
    if video_frames and vl_model == "qwen3_vl":  # one run per frame, a timestamp before each later one
        for f in range(video_frames):
            add("stamp", TEXT, STAMP_TOKENS if f else 0)
            add("video", VIDEO, frame_tokens, f)
    elif video_frames:
        add("video", VIDEO, video_frames * frame_tokens)
    add("text", TEXT, text[2])
    return types, runs


def vl_prompt(
    *,
    vl_model: str,
    merge: int,
    text_before: int,
    image_rows: int,
    image_cols: int,
    text_mid: int,
    video: bool,
    frames: int,
    video_rows: int,
    video_cols: int,
    fps: float,
    tokens_per_second: int,
    text_after: int,
) -> Prompt:
    """Text, an image of ``image_rows x image_cols`` tokens, text, a video of ``frames`` temporal patches of
    ``video_rows x video_cols`` tokens (if ``video``), text: its types, runs and ids (both resume rules).

    Rows and columns count tokens after merging: the grids are ``merge`` times as many patches.
    """
    types, runs = prompt_runs(
        vl_model=vl_model,
        image_tokens=image_rows * image_cols,
        video_frames=frames if video else 0,
        frame_tokens=video_rows * video_cols,
        text=(text_before, text_mid, text_after),
    )
    image = (1, image_rows * merge, image_cols * merge)
    grid = (frames, video_rows * merge, video_cols * merge) if video else None
    kinds = torch.tensor(types, dtype=torch.long)
    args = dict(
        model=vl_model,
        spatial_merge_size=merge,
        tokens_per_second=tokens_per_second,
        seconds_per_grid=[seconds_per_grid(fps)] if grid else [],
    )
    videos = [grid] if grid else []
    ids = mrope_position_ids(kinds, [image], videos, **args)
    original = mrope_position_ids(kinds, [image], videos, resume="original", **args)
    return Prompt(kinds, ids, original, tuple(runs), image, grid)


@dataclass(frozen=True)
class VideoTime:
    """A video's time ids by temporal patch, each counted from the video's start id."""

    frames: torch.Tensor  # (t,) int64 temporal patch index
    seconds: torch.Tensor  # (t,) float32 its start time
    frame_ids: torch.Tensor  # (t,) Qwen2-VL / Qwen3-VL: the frame index
    second_ids: torch.Tensor  # (t,) Qwen2.5-VL: floor(frame * seconds_per_grid * tokens_per_second)
    resume: int  # ids the next text is ahead of the video's start in 5.23: max(h, w) / m


def video_time_ids(
    *, frames: int, merge: int, video_rows: int, video_cols: int, fps: float, tokens_per_second: int
) -> VideoTime:
    """The time ids of a video of ``frames`` temporal patches alone (starting at id 0), by both rules."""
    grid = (frames, video_rows * merge, video_cols * merge)
    per_frame = video_rows * video_cols
    tokens = token_types((VIDEO, frames * per_frame))
    by_frame = mrope_position_ids(tokens, (), [grid], model="qwen2_vl", spatial_merge_size=merge)
    by_second = mrope_position_ids(
        tokens,
        (),
        [grid],
        model="qwen2_5_vl",
        spatial_merge_size=merge,
        tokens_per_second=tokens_per_second,
        seconds_per_grid=[seconds_per_grid(fps)],
    )
    index = torch.arange(frames)
    return VideoTime(
        frames=index,
        seconds=(index.double() * seconds_per_grid(fps)).float(),  # in float64, then rounded once
        frame_ids=by_frame[0, ::per_frame],
        second_ids=by_second[0, ::per_frame],
        resume=max(video_rows, video_cols),
    )

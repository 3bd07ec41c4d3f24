"""The /vision page's views: settings in, arrays out (numpy), cached process-wide by their arguments.

The sequence is built here from the settings as transformers' processors lay it out
(text, image run, text, video run(s), text); every id comes from
:mod:`posviz.encodings.multimodal`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st
import torch

from posviz.encodings.attention import toy_normal
from posviz.encodings.multimodal import (
    VIDEO,
    mrope_axes,
    mrope_position_ids,
    token_types,
    vision_offset_scores,
    vision_pair_dims,
    vision_rope_angles,
    vision_rope_frequencies,
)
from posviz.encodings.rope import rope_inv_freq
from posviz.ui.vision.settings import ENCODERS, PRESETS, STAMP_TOKENS, TEMPORAL_PATCH, OffsetKey, SequenceKey

ENTRIES = 16


@dataclass(frozen=True)
class Block:
    """One run of the sequence: its kind, where it sits, and (vision) its grid in patches."""

    kind: str  # "text", "image", "video", "stamp" (Qwen3-VL's timestamp text between frames)
    start: int  # first token index
    stop: int
    frame: int = -1  # Qwen3-VL: which frame this video run is


@dataclass(frozen=True)
class SequenceView:
    types: np.ndarray  # (seq,) 0 text, 1 image, 2 video
    ids: np.ndarray  # (3, seq) transformers 5.23
    original: np.ndarray  # (3, seq) the original Qwen code: each block at the largest id + 1
    blocks: tuple[Block, ...]
    image_grid: tuple[int, int, int]  # (t, h, w) patches
    video_grid: tuple[int, int, int] | None
    seconds_per_grid: float  # Qwen2.5-VL: seconds per temporal patch


def seconds_per_grid(k: SequenceKey) -> float:
    return TEMPORAL_PATCH / k.fps


def _layout(k: SequenceKey) -> tuple[list[int], list[Block]]:
    types: list[int] = []
    blocks: list[Block] = []

    def add(kind: str, code: int, n: int, frame: int = -1) -> None:
        if n:
            blocks.append(Block(kind, len(types), len(types) + n, frame))
            types.extend([code] * n)

    add("text", 0, k.text_before)
    add("image", 1, k.image_rows * k.image_cols)
    add("text", 0, k.text_mid)
    if k.video:
        per_frame = k.video_rows * k.video_cols
        if k.vl_model == "qwen3_vl":  # one run per frame, a timestamp before each later one
            for f in range(k.frames):
                add("stamp", 0, STAMP_TOKENS if f else 0)
                add("video", 2, per_frame, f)
        else:
            add("video", 2, k.frames * per_frame)
    add("text", 0, k.text_after)
    return types, blocks


@st.cache_data(max_entries=ENTRIES, show_spinner=False)
def sequence_view(k: SequenceKey) -> SequenceView:
    types, blocks = _layout(k)
    image = (1, k.image_rows * k.merge, k.image_cols * k.merge)
    video = (k.frames, k.video_rows * k.merge, k.video_cols * k.merge) if k.video else None
    token_types = torch.tensor(types, dtype=torch.long)
    args = dict(
        model=k.vl_model,
        spatial_merge_size=k.merge,
        tokens_per_second=k.tokens_per_second,
        seconds_per_grid=[seconds_per_grid(k)] if video else [],
    )
    videos = [video] if video else []
    ids = mrope_position_ids(token_types, [image], videos, **args)
    original = mrope_position_ids(token_types, [image], videos, resume="original", **args)
    return SequenceView(
        np.asarray(types, dtype=np.int8),
        ids.numpy(),
        original.numpy(),
        tuple(blocks),
        image,
        video,
        seconds_per_grid(k),
    )


BLOCKS, INTERLEAVED = PRESETS["qwen2_vl"], PRESETS["qwen3_vl"]  # each layout as its model ships it


@dataclass(frozen=True)
class PairsView:
    wavelength: np.ndarray  # (n,) tokens per turn of each pair, 2 pi / theta_k, the chosen model's theta
    blocks: np.ndarray  # (n,) axis per pair, Qwen2-VL's blocks [16, 24, 24]
    interleaved: np.ndarray  # (n,) axis per pair, Qwen3-VL's interleaving [24, 20, 20]


@st.cache_data(max_entries=ENTRIES, show_spinner=False)
def pairs_view(vl_model: str) -> PairsView:
    p = PRESETS[vl_model]
    inv = rope_inv_freq(p.head_dim, base=p.rope_theta)  # (n,) float64
    return PairsView(
        (2 * np.pi / inv).numpy(),
        mrope_axes(BLOCKS.head_dim, BLOCKS.mrope_section).numpy(),
        mrope_axes(INTERLEAVED.head_dim, INTERLEAVED.mrope_section, interleaved=True).numpy(),
    )


@dataclass(frozen=True)
class OffsetView:
    chosen: np.ndarray  # (2h-1, 2w-1) score by offset, query at the chosen patch
    other: np.ndarray  # the same for a second query patch
    other_patch: tuple[int, int]
    height: int  # patches
    width: int
    gap: float  # largest |chosen - other| where both are defined


def other_patch(k: OffsetKey) -> tuple[int, int]:
    """A second query patch: the mirror of the chosen one, or the corner when that is the same patch."""
    h, w = k.image_rows * k.merge, k.image_cols * k.merge
    mirror = (h - 1 - k.q_row, w - 1 - k.q_col)
    return mirror if mirror != (k.q_row, k.q_col) else (0, 0)


@st.cache_data(max_entries=ENTRIES, show_spinner=False)
def offset_view(k: OffsetKey) -> OffsetView:
    h, w = k.image_rows * k.merge, k.image_cols * k.merge
    cfg = ENCODERS[k.encoder][1]
    dim = int(cfg["head_dim"])
    gen = torch.Generator().manual_seed(k.seed)
    q = toy_normal(dim, generator=gen, dtype=torch.float64)
    kk = q  # the same vector as query and key: the score peaks at offset (0, 0)
    angles = vision_rope_angles(k.encoder, cfg, h, w)  # (h*w, dim/2)
    pairs = vision_pair_dims(k.encoder, dim)
    chosen = vision_offset_scores(q, kk, angles, pairs, height=h, width=w, row=k.q_row, col=k.q_col)
    other = other_patch(k)
    second = vision_offset_scores(q, kk, angles, pairs, height=h, width=w, row=other[0], col=other[1])
    both = ~(chosen.isnan() | second.isnan())
    gap = float((chosen - second)[both].abs().max()) if bool(both.any()) else 0.0
    return OffsetView(chosen.numpy(), second.numpy(), other, h, w, gap)


@dataclass(frozen=True)
class SplitView:
    names: tuple[str, ...]
    axis: tuple[np.ndarray, ...]  # (n,) per encoder: 0 row, 1 column
    wavelength: tuple[np.ndarray, ...]  # (n,) patches per turn
    channels: tuple[np.ndarray, ...]  # (n, 2) the head channels each pair turns


@st.cache_data(max_entries=1, show_spinner=False)
def split_view() -> SplitView:
    names, axes, waves, chans = [], [], [], []
    for key, (name, cfg) in ENCODERS.items():
        axis, inv = vision_rope_frequencies(key, cfg)
        names.append(name)
        axes.append(axis.numpy())
        waves.append(2 * np.pi / inv.numpy().astype(np.float64))
        chans.append(vision_pair_dims(key, int(cfg["head_dim"])).numpy())
    return SplitView(tuple(names), tuple(axes), tuple(waves), tuple(chans))


@dataclass(frozen=True)
class TimeView:
    frames: np.ndarray  # (t,) temporal patch index
    seconds: np.ndarray  # (t,) its start time
    frame_ids: np.ndarray  # (t,) Qwen2-VL / Qwen3-VL: the frame index
    second_ids: np.ndarray  # (t,) Qwen2.5-VL: floor(frame * seconds_per_grid * tokens_per_second)
    resume: int  # ids the next text is ahead of the video's start in 5.23: max(h, w) / m


@st.cache_data(max_entries=ENTRIES, show_spinner=False)
def time_view(k: SequenceKey) -> TimeView:
    t = k.frames if k.video else 1
    grid = (t, k.video_rows * k.merge, k.video_cols * k.merge)
    tokens = token_types((VIDEO, t * k.video_rows * k.video_cols))  # the video alone, starting at id 0
    per_frame = k.video_rows * k.video_cols
    by_frame = mrope_position_ids(tokens, (), [grid], model="qwen2_vl", spatial_merge_size=k.merge)
    by_second = mrope_position_ids(
        tokens,
        (),
        [grid],
        model="qwen2_5_vl",
        spatial_merge_size=k.merge,
        tokens_per_second=k.tokens_per_second,
        seconds_per_grid=[seconds_per_grid(k)],
    )
    frames = np.arange(t)
    return TimeView(
        frames,
        (frames * seconds_per_grid(k)).astype(np.float32),
        by_frame[0, ::per_frame].numpy(),
        by_second[0, ::per_frame].numpy(),
        max(k.video_rows, k.video_cols),
    )

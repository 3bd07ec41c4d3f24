"""The T5 page's cached views: settings (or a narrower key) in, arrays out."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import torch

from posviz.encodings.attention import attention_weights_sampled, toy_normal, toy_qk
from posviz.encodings.pooling import block_edges, relative_block_means
from posviz.encodings.positions import all_positions, relative_positions, signed_distances
from posviz.encodings.t5 import (
    T5BucketRange,
    T5BucketSteps,
    t5_bias,
    t5_bias_seed_transpose,
    t5_bucket,
    t5_bucket_ranges,
    t5_bucket_steps,
)
from posviz.figures.axes import Axes, Window, axes
from posviz.figures.csv import columns_csv
from posviz.ui.cache import cached_view, numpy_fields
from posviz.ui.settings import project
from posviz.ui.t5.notes import bucket_notes, ranges_frame
from posviz.ui.t5.settings import (
    MAIN_POINTS,
    PAIR_POINTS,
    PITFALL_POINTS,
    TOY_DIM,
    TOY_MAX_LEN,
    AttentionKey,
    BucketKey,
    GridKey,
    HeadKey,
)


def main_axes(k: BucketKey, points: int = MAIN_POINTS) -> Axes:
    """The shown queries and keys of the page's matrices (inside the zoom window, if any)."""
    return axes(k.q_len, k.k_len, k.align, points, window=Window(k.q_start, k.k_start, k.window))


def toy_key(k: AttentionKey) -> AttentionKey:
    """The toy attention's key: lengths capped at ``TOY_MAX_LEN``.

    Toy queries and keys are content: the softmax over them needs every key, so
    unlike the position terms its cost grows with the length. Capping both
    lengths keeps the alignment (``q_len <= k_len`` stays true).
    """
    return project(replace(k, q_len=min(k.q_len, TOY_MAX_LEN), k_len=min(k.k_len, TOY_MAX_LEN)), AttentionKey)


@dataclass(frozen=True)
class BucketView:
    """Everything on the page that does not depend on the table."""

    steps: T5BucketSteps  # every intermediate on the shown cells, numpy arrays (cache.numpy_fields)
    max_exact: int
    profile_r: np.ndarray
    profile_bucket: np.ndarray
    ranges: list[T5BucketRange]
    r_min: int
    r_max: int


@cached_view(max_entries=16)  # about 2 MB an entry: every pipeline step
def bucket_view(k: BucketKey) -> BucketView:
    ax = main_axes(k)
    rel = relative_positions(torch.as_tensor(ax.q_pos), torch.as_tensor(ax.k_pos))  # (q shown, k shown)
    kw = dict(bidirectional=k.bidirectional, num_buckets=k.num_buckets, max_distance=k.max_distance)
    steps = numpy_fields(t5_bucket_steps(rel, **kw))
    r_min, r_max = -int(ax.q_pos[-1]), k.k_len - 1 - int(ax.q_pos[0])  # the whole view's range of r
    # The profile is a function of r, not of the view: show it a little past max_distance, where
    # every distance has joined the last bucket, on both sides (a decoder's future is all bucket 0).
    reach = max(int(1.5 * k.max_distance), 16)
    prof_r = signed_distances(reach)
    ranges = t5_bucket_ranges(**kw)
    return BucketView(
        steps=steps,
        max_exact=steps.max_exact,
        profile_r=prof_r.numpy(),
        profile_bucket=t5_bucket(prof_r, **kw).numpy(),
        ranges=ranges,
        r_min=r_min,
        r_max=r_max,
    )


@dataclass(frozen=True)
class BucketSummary:
    """What the page reads of the bucket view on every run: 5 KB to copy out of the cache, not the steps' 1 MB."""

    max_exact: int
    profile_range: tuple[int, int]  # the first and last r of the profile
    ranges_table: pd.DataFrame  # notes.ranges_frame: built once, not on every rerun
    notes: tuple[str, ...]  # notes.bucket_notes of the table


@cached_view(max_entries=16)
def bucket_summary(k: BucketKey) -> BucketSummary:
    v = bucket_view(k)
    table = ranges_frame(v.ranges, r_min=v.r_min, r_max=v.r_max, max_distance=k.max_distance)
    return BucketSummary(
        max_exact=v.max_exact,
        profile_range=(int(v.profile_r[0]), int(v.profile_r[-1])),
        ranges_table=table,
        notes=tuple(bucket_notes(table)),
    )


def profile_csv(k: BucketKey) -> str:
    """The bucket profile as CSV: r and its bucket."""
    v = bucket_view(k)
    return columns_csv({"r = j - i": v.profile_r, "bucket": v.profile_bucket})


@cached_view(max_entries=64)
def seeded_table(num_buckets: int, heads: int, seed: int) -> np.ndarray:
    """(num_buckets, heads) float32: N(0, 1), as ``nn.Embedding`` initialises it."""
    return toy_normal(num_buckets, heads, generator=torch.Generator().manual_seed(seed)).numpy()


def table_from_bytes(table: bytes, k: GridKey) -> torch.Tensor:
    """The (num_buckets, heads) float32 table back from the bytes a cache key carries."""
    return torch.as_tensor(np.frombuffer(table, dtype=np.float32).reshape(k.num_buckets, k.heads).copy())


def grid_points(heads: int) -> int:
    """Points per axis of each small multiple: all heads together hold about one 192 x 192 heatmap."""
    return max(16, min(64, int((MAIN_POINTS**2 / heads) ** 0.5)))


def grid_axes(k: GridKey) -> Axes:
    return main_axes(k, grid_points(k.heads))


def _bias(column: torch.Tensor, k: BucketKey, ax: Axes, *, scale: float) -> torch.Tensor:
    """(heads of column, q shown, k shown) bias on the shown positions."""
    q, kp = torch.as_tensor(ax.q_pos), torch.as_tensor(ax.k_pos)
    return t5_bias(column, q, kp, bidirectional=k.bidirectional, max_distance=k.max_distance, scale=scale)


@cached_view(max_entries=64)
def grid_view(k: GridKey, table: bytes) -> np.ndarray:
    """(heads, g, g) float32: every head's bias on a coarser grid, for the small multiples; each cell the
    mean over the block of positions it starts (a strided sample aliases: posviz.encodings.pooling)."""
    ax, column = grid_axes(k), table_from_bytes(table, k)
    q0 = torch.tensor([0])
    kw = dict(bidirectional=k.bidirectional, max_distance=k.max_distance, scale=k.scale)
    edges = block_edges(torch.as_tensor(ax.q_pos)), block_edges(torch.as_tensor(ax.k_pos))
    means = relative_block_means(lambda r: t5_bias(column, q0, r, **kw)[:, 0], *edges)  # (heads, g, g)
    return means.float().numpy()


@cached_view(max_entries=64)
def head_view(k: HeadKey, table: bytes) -> np.ndarray:
    """(q shown, k shown) float32: the chosen head's bias at full resolution."""
    column = table_from_bytes(table, k)[:, k.head : k.head + 1]  # (num_buckets, 1)
    return _bias(column, k, main_axes(k), scale=k.scale)[0].numpy()


def pitfall_axes(k: BucketKey) -> Axes:
    return main_axes(k, PITFALL_POINTS)  # coarser: the pitfall figure draws three panels


@cached_view(max_entries=64)
def pitfall_view(k: HeadKey, table: bytes) -> tuple[np.ndarray, np.ndarray] | None:
    """The chosen head by ``permute(2, 0, 1)`` and by the seeds' ``transpose(0, 2)``; square views only."""
    if k.q_len != k.k_len:
        return None
    px = pitfall_axes(k)
    pq, pk = torch.as_tensor(px.q_pos), torch.as_tensor(px.k_pos)
    column = table_from_bytes(table, k)[:, k.head : k.head + 1]  # (num_buckets, 1)
    kw = dict(bidirectional=k.bidirectional, max_distance=k.max_distance)
    return (
        t5_bias(column, pq, pk, scale=k.scale, **kw)[0].numpy(),
        (t5_bias_seed_transpose(column, pq, pk, **kw)[0] * k.scale).numpy(),
    )


def pair_axes(k: AttentionKey) -> Axes:
    return main_axes(k, PAIR_POINTS)


@cached_view(max_entries=64)
def attention_view(k: AttentionKey, table: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Toy attention of one head, without and with the bias: two (rows, cols) float32.

    ``k`` is the toy key (:func:`toy_key`). The softmax runs over every key;
    only the shown rows and columns are kept.
    """
    column = table_from_bytes(table, k)[:, k.head : k.head + 1]  # (num_buckets, 1): this head only
    # Toy queries and keys have their own generator (seed + 1): they stay put when the table changes.
    q, kk = toy_qk(k.q_len, k.k_len, TOY_DIM, generator=torch.Generator().manual_seed(k.seed + 1))
    px = pair_axes(k)
    q_pos = torch.as_tensor(px.q_pos)  # the shown queries' positions
    rows = q_pos - k.offset  # and their indices
    cols = torch.as_tensor(px.k_pos)  # the shown keys (key index = key position)

    def bias_fn(qp: torch.Tensor, kp: torch.Tensor) -> torch.Tensor:
        return t5_bias(column, qp, kp, bidirectional=k.bidirectional, max_distance=k.max_distance, scale=k.scale)[0]

    kw = dict(q_pos=q_pos, k_pos=all_positions(k.k_len), cols=cols, causal=not k.bidirectional)
    without = attention_weights_sampled(q[rows], kk, **kw)
    with_bias = attention_weights_sampled(q[rows], kk, bias_fn=bias_fn, **kw)
    return without.numpy(), with_bias.numpy()

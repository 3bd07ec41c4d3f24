"""The T5 page's settings and its cached backend calls (keyed by scalars)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import streamlit as st
import torch

from posviz.encodings.attention import attention_weights_sampled, toy_qk
from posviz.encodings.positions import display_positions, query_positions, relative_positions
from posviz.encodings.t5 import (
    T5BucketRange,
    T5BucketSteps,
    check_t5_config,
    t5_bias,
    t5_bias_seed_transpose,
    t5_bucket,
    t5_bucket_ranges,
    t5_bucket_steps,
    t5_half,
)
from posviz.ui.axes import Axes, axes
from posviz.ui.controls import control
from posviz.ui.snippets import T5Settings

MAIN_POINTS = 192  # per axis for single heatmaps: 192^2 cells stay under 1 MB of chart data
PAIR_POINTS = 128  # per axis for the attention pair
PITFALL_POINTS = 112  # per axis for the three pitfall panels
TOY_DIM = 32
TOY_MAX_LEN = 2048  # the toy attention runs a full softmax over at most this many keys
CACHE = 64  # max entries per cached call; entries are a few hundred KB (shared by all sessions)


def t5_controls() -> T5Settings:
    """The sidebar controls of the T5 page, in reading order."""
    st.sidebar.subheader("Sequence")
    q_len = control("q_len")
    k_len = control("k_len")
    align = control("align")
    st.sidebar.subheader("Buckets")
    bidirectional = control("bidirectional")
    num_buckets = control("num_buckets")
    max_distance = control("max_distance")
    st.sidebar.subheader("Bias table")
    heads = control("heads")
    head = control("head", max_value=heads - 1) if heads > 1 else 0
    scale = control("scale")
    seed = control("seed")
    return T5Settings(
        q_len=q_len,
        k_len=k_len,
        align=align,
        num_buckets=num_buckets,
        max_distance=max_distance,
        bidirectional=bidirectional,
        heads=heads,
        scale=scale,
        seed=seed,
        head=head,
    )


def toy_settings(s: T5Settings) -> T5Settings:
    """The settings of the toy attention: lengths capped at ``TOY_MAX_LEN``.

    Toy queries and keys are content: the softmax over them needs every key, so
    unlike the position terms its cost grows with the length. Capping both
    lengths keeps the alignment (``q_len <= k_len`` stays true).
    """
    return replace(s, q_len=min(s.q_len, TOY_MAX_LEN), k_len=min(s.k_len, TOY_MAX_LEN))


def t5_problem(s: T5Settings) -> str | None:
    """The first cross-field rule the settings break, as a message; None if fine."""
    try:
        check_t5_config(bidirectional=s.bidirectional, num_buckets=s.num_buckets, max_distance=s.max_distance)
        query_positions(s.q_len, s.k_len, align=s.align)
    except ValueError as err:
        return str(err)
    return None


@dataclass(frozen=True)
class BucketView:
    """Everything on the page that does not depend on the table."""

    steps: T5BucketSteps  # every intermediate on the shown cells
    max_exact: int
    profile_r: np.ndarray
    profile_bucket: np.ndarray
    ranges: list[T5BucketRange]
    r_min: int
    r_max: int


@st.cache_data(max_entries=CACHE // 4, show_spinner=False)  # about 2 MB an entry: every pipeline step
def bucket_view(
    q_len: int, k_len: int, align: str, num_buckets: int, max_distance: int, bidirectional: bool
) -> BucketView:
    ax = axes(q_len, k_len, align, MAIN_POINTS)
    rel = relative_positions(torch.from_numpy(ax.q_pos), torch.from_numpy(ax.k_pos))  # (q shown, k shown)
    steps = t5_bucket_steps(rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    r_min, r_max = -int(ax.q_pos[-1]), k_len - 1 - int(ax.q_pos[0])  # the whole view's range of r
    # The profile is a function of r, not of the view: show it a little past max_distance, where
    # every distance has joined the last bucket, on both sides (a decoder's future is all bucket 0).
    reach = max(int(1.5 * max_distance), 16)
    prof_r = torch.arange(-reach, reach + 1)
    prof_b = t5_bucket(prof_r, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    return BucketView(
        steps=steps,
        max_exact=steps.max_exact,
        profile_r=prof_r.numpy(),
        profile_bucket=prof_b.numpy(),
        ranges=t5_bucket_ranges(bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance),
        r_min=r_min,
        r_max=r_max,
    )


@st.cache_data(max_entries=CACHE, show_spinner=False)
def seeded_table(num_buckets: int, heads: int, seed: int) -> np.ndarray:
    """(num_buckets, heads) float32: N(0, 1), as ``nn.Embedding`` initialises it."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(num_buckets, heads, generator=g).numpy()


def table_from_bytes(table_bytes: bytes, num_buckets: int, heads: int) -> torch.Tensor:
    """The (num_buckets, heads) float32 table back from the bytes a cache key carries."""
    return torch.from_numpy(np.frombuffer(table_bytes, dtype=np.float32).reshape(num_buckets, heads).copy())


@dataclass(frozen=True)
class BiasView:
    """The bias drawn on the page: one head in full, every head coarsely."""

    bias: np.ndarray  # (q shown, k shown), the chosen head
    grid: np.ndarray  # (heads, g, g), a coarser sample for the small multiples
    grid_axes: Axes
    pitfall_axes: Axes  # coarser: the pitfall figure draws three panels
    pitfall: tuple[np.ndarray, np.ndarray] | None  # the chosen head by permute and by transpose(0, 2); square only


def grid_points(heads: int) -> int:
    """Points per axis of each small multiple: all heads together hold about one 192 x 192 heatmap."""
    return max(16, min(64, int((MAIN_POINTS**2 / heads) ** 0.5)))


@st.cache_data(max_entries=CACHE, show_spinner=False)
def bias_view(
    table_bytes: bytes,
    num_buckets: int,
    heads: int,
    head: int,
    q_len: int,
    k_len: int,
    align: str,
    max_distance: int,
    bidirectional: bool,
    scale: float,
) -> BiasView:
    """The bias for the figures; cached entries stay small (one head at full resolution)."""
    table = table_from_bytes(table_bytes, num_buckets, heads)
    ax = axes(q_len, k_len, align, MAIN_POINTS)
    gx = axes(q_len, k_len, align, grid_points(heads))
    kw = dict(bidirectional=bidirectional, max_distance=max_distance)
    q, k = torch.from_numpy(ax.q_pos), torch.from_numpy(ax.k_pos)
    bias = t5_bias(table[:, head : head + 1], q, k, scale=scale, **kw)[0]  # (q shown, k shown)
    grid = t5_bias(table, torch.from_numpy(gx.q_pos), torch.from_numpy(gx.k_pos), scale=scale, **kw)
    px = axes(q_len, k_len, align, PITFALL_POINTS)
    pitfall = None
    if q_len == k_len:
        pq, pk = torch.from_numpy(px.q_pos), torch.from_numpy(px.k_pos)
        column = table[:, head : head + 1]  # (num_buckets, 1)
        pitfall = (
            t5_bias(column, pq, pk, scale=scale, **kw)[0].numpy(),
            (t5_bias_seed_transpose(column, pq, pk, **kw)[0] * scale).numpy(),
        )
    return BiasView(bias=bias.numpy(), grid=grid.numpy(), grid_axes=gx, pitfall_axes=px, pitfall=pitfall)


@st.cache_data(max_entries=CACHE, show_spinner=False)
def attention_view(
    table_bytes: bytes,
    num_buckets: int,
    heads: int,
    head: int,
    q_len: int,
    k_len: int,
    align: str,
    max_distance: int,
    bidirectional: bool,
    scale: float,
    seed: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Toy attention of one head, without and with the bias: two (rows, cols) float32.

    The softmax runs over every key; only the shown rows and columns are kept.
    """
    table = table_from_bytes(table_bytes, num_buckets, heads)
    # Toy queries and keys have their own generator (seed + 1): they stay put when the table changes.
    q, k = toy_qk(q_len, k_len, TOY_DIM, generator=torch.Generator().manual_seed(seed + 1))
    rows = display_positions(q_len, PAIR_POINTS)  # indices of the shown queries
    q_pos = query_positions(q_len, k_len, align=align)[rows]
    cols = display_positions(k_len, PAIR_POINTS)  # the shown keys (key index = key position)
    column = table[:, head : head + 1]  # (num_buckets, 1): this head only

    def bias_fn(qp: torch.Tensor, kp: torch.Tensor) -> torch.Tensor:
        return t5_bias(column, qp, kp, bidirectional=bidirectional, max_distance=max_distance, scale=scale)[0]

    kw = dict(q_pos=q_pos, k_pos=torch.arange(k_len), cols=cols, causal=not bidirectional)
    without = attention_weights_sampled(q[rows], k, **kw)
    with_bias = attention_weights_sampled(q[rows], k, bias_fn=bias_fn, **kw)
    return without.numpy(), with_bias.numpy()


def ranges_frame(ranges: list[T5BucketRange], *, r_min: int, r_max: int, max_distance: int) -> pd.DataFrame:
    """The bucket table: what each bucket covers, how many distances, exact or log."""
    rows = []
    for rg in ranges:
        if rg.kind == "unused":
            covers, count, used = "nothing", 0, False
        elif rg.direction == "self and future":
            covers, count, used = "r ≥ 0 (self and every future key)", "all", r_max >= 0
        elif rg.last is None:
            covers = f"r ≤ {rg.first}" if rg.first < 0 else f"r ≥ {rg.first}"
            count = "all beyond"
            used = r_min <= rg.first if rg.first < 0 else r_max >= rg.first
        else:
            lo, hi = sorted((rg.first, rg.last))
            covers = f"r = {lo}" if lo == hi else f"{lo} ≤ r ≤ {hi}"
            count, used = rg.count, lo <= r_max and hi >= r_min
        note = ""
        if rg.kind == "unused":
            note = f"never used: {rg.why}"
        elif rg.last is None and rg.direction in ("past", "future"):
            start = abs(rg.first)
            note = f"the last {rg.direction} bucket starts at distance {start}" + (
                f", not at max_distance = {max_distance}" if start != max_distance else ""
            )
        rows.append(
            dict(
                bucket=rg.bucket,
                direction=rg.direction,
                covers=covers,
                distances=str(count),
                kind=rg.kind,
                **{"reached in this view": "yes" if used else "no"},
                note=note,
            )
        )
    return pd.DataFrame(rows).set_index("bucket")


def pitfall_shape_note(s: T5Settings) -> str:
    """What adding the transpose(0, 2) bias does when q_len != k_len."""
    scores, wrong = (1, s.heads, s.q_len, s.k_len), (1, s.heads, s.k_len, s.q_len)
    if min(s.q_len, s.k_len) == 1:
        side = max(s.q_len, s.k_len)
        return (
            f"With q_len = {s.q_len} and k_len = {s.k_len}, adding the transposed bias {wrong} to scores {scores} "
            f"silently broadcasts both to (1, {s.heads}, {side}, {side}): a wrong shape and no error."
        )
    return (
        f"With q_len = {s.q_len} ≠ k_len = {s.k_len}, adding the transposed bias {wrong} to scores {scores} "
        "fails with a shape error. Set q_len = k_len to see the version that fails silently."
    )


def step_note(template: str, s: T5Settings, max_exact: int) -> str:
    """A pipeline step's explanation with this page's numbers filled in."""
    return template.format(
        half=t5_half(s.num_buckets, bidirectional=s.bidirectional),
        max_exact=max_exact,
        max_exact_minus_1=max_exact - 1,
        garbage=np.iinfo(np.int64).min + max_exact,
    )


def last_bucket_start(ranges: list[T5BucketRange]) -> int | None:
    """Distance where the last past bucket begins (the same for the future side)."""
    return next((abs(rg.first) for rg in ranges if rg.direction == "past" and rg.last is None), None)


def int_ranges(values: list[int]) -> str:
    """[1, 2, 3, 7, 9, 10] -> '1–3, 7, 9–10'."""
    runs: list[list[int]] = []
    for v in sorted(values):
        if runs and v == runs[-1][1] + 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    return ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in runs)


def bucket_notes(frame: pd.DataFrame) -> list[str]:
    """The table's notes, one line per distinct note, naming its buckets."""
    noted = frame[frame["note"] != ""]
    return [
        f"bucket{'s' if len(group) > 1 else ''} {int_ranges(group.index.tolist())}: {note}"
        for note, group in noted.groupby("note", sort=False)
    ]

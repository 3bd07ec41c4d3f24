"""T5 relative position bias (Raffel et al. 2020, "Exploring the Limits of
Transfer Learning with a Unified Text-to-Text Transformer").

Each head adds a learned scalar to every attention logit, looked up by the
bucket of the relative position ``r = j - i``. Small distances get a bucket
each; larger ones share logarithmically wider buckets up to ``max_distance``;
everything beyond shares the last bucket.

Semantics follow Hugging Face ``T5Attention._relative_position_bucket`` and
``compute_bias`` (originally Mesh TensorFlow ``_relative_position_bucket``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from posviz.encodings.attention import self_attention, toy_normal
from posviz.encodings.positions import relative_positions
from posviz.i18n import N_, _


def t5_half(num_buckets: int, *, bidirectional: bool) -> int:
    """Buckets per direction: ``num_buckets // 2`` when bidirectional, else all of them."""
    return num_buckets // 2 if bidirectional else num_buckets


def t5_max_exact(num_buckets: int, *, bidirectional: bool) -> int:
    """Number of distances that get a bucket of their own (per direction)."""
    return t5_half(num_buckets, bidirectional=bidirectional) // 2


def check_t5_config(*, bidirectional: bool, num_buckets: int, max_distance: int) -> None:
    """Refuse configurations the reference code computes garbage for.

    Raises:
        ValueError: naming the rule that is broken and how to fix it.
    """
    if num_buckets < 1:
        raise ValueError(_("num_buckets must be at least 1, got {num_buckets}.").format(num_buckets=num_buckets))
    max_exact = t5_max_exact(num_buckets, bidirectional=bidirectional)
    if max_exact == 0:
        need = 4 if bidirectional else 2
        mode = _("bidirectional") if bidirectional else _("unidirectional")
        raise ValueError(
            _(
                "max_exact = {formula} is 0 with {num_buckets} {mode} buckets, and log(n / max_exact) divides "
                "by zero. Use num_buckets >= {need}."
            ).format(
                formula="(num_buckets // 2) // 2" if bidirectional else "num_buckets // 2",
                num_buckets=num_buckets,
                mode=mode,
                need=need,
            )
        )
    if max_distance <= max_exact:
        raise ValueError(
            _(
                "max_distance ({max_distance}) must be greater than max_exact ({max_exact}): "
                "at max_distance == max_exact, log(max_distance / max_exact) is 0 and the "
                "division gives inf (int64 min after .long()); below it the log buckets run "
                "backwards and go negative. Use max_distance >= {least}."
            ).format(max_distance=max_distance, max_exact=max_exact, least=max_exact + 1)
        )


@dataclass(frozen=True)
class T5BucketSteps:
    """The named intermediates of the bucket pipeline, all shaped like ``r``.

    Attributes:
        relative_position: int64, ``r = j - i``.
        direction_offset: int64, ``num_buckets // 2`` where ``r > 0`` when
            bidirectional (future keys use the upper half), else 0.
        n: int64 >= 0, the distance: ``|r|`` (bidirectional) or ``max(-r, 0)``.
        max_exact: distances below it are their own bucket.
        is_small: bool, ``n < max_exact``.
        log_ratio: float32, ``log(n / max_exact) / log(max_distance / max_exact)
            * (half - max_exact)``; ``-inf`` where ``n == 0``, negative where
            ``0 < n < max_exact``.
        val_if_large_raw: int64, ``max_exact + log_ratio.long()``; where
            ``log_ratio`` is ``-inf`` the cast gives int64 min, so these cells
            hold ``int64 min + max_exact``.
        val_if_large: int64, the above clamped to ``half - 1``.
        within: int64 in ``[0, half)``, ``torch.where(is_small, n, val_if_large)``:
            the bucket within its direction's half.
        bucket: int64 in ``[0, num_buckets)``, the final bucket index.
    """

    relative_position: torch.Tensor
    direction_offset: torch.Tensor
    n: torch.Tensor
    max_exact: int
    is_small: torch.Tensor
    log_ratio: torch.Tensor
    val_if_large_raw: torch.Tensor
    val_if_large: torch.Tensor
    within: torch.Tensor
    bucket: torch.Tensor


def t5_bucket_steps(
    relative_position: torch.Tensor,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> T5BucketSteps:
    """Run the T5 bucket pipeline and keep every intermediate.

    Args:
        relative_position: int64 tensor of any shape, ``r = j - i``.
        bidirectional: encoder (both directions) or decoder (past only).
        num_buckets: total buckets; halved per direction when bidirectional.
        max_distance: distances at or beyond it share the last bucket.

    Returns:
        :class:`T5BucketSteps`; ``.bucket`` has the shape of the input and int
        values in ``[0, num_buckets)``.
    """
    check_t5_config(bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    r = relative_position.long()
    half = num_buckets
    if bidirectional:
        half //= 2  # half of the buckets for keys in the past, half for the future
        direction_offset = (r > 0).long() * half
        n = r.abs()
    else:
        direction_offset = torch.zeros_like(r)
        n = -torch.min(r, torch.zeros_like(r))  # future keys (r > 0) -> distance 0
    max_exact = half // 2  # half of the buckets are exact increments
    is_small = n < max_exact
    # The other half grow logarithmically up to max_distance. float32, as in the
    # reference; log(0) = -inf for n == 0, whose .long() is garbage (int64 min)
    # that torch.where below throws away, since n == 0 is always small.
    log_ratio = torch.log(n.float() / max_exact) / math.log(max_distance / max_exact) * (half - max_exact)
    val_if_large_raw = max_exact + log_ratio.long()  # .long() truncates toward zero
    val_if_large = torch.min(val_if_large_raw, torch.full_like(val_if_large_raw, half - 1))
    within = torch.where(is_small, n, val_if_large)  # the garbage sits where n is small: discarded
    bucket = direction_offset + within
    return T5BucketSteps(
        relative_position=r,
        direction_offset=direction_offset,
        n=n,
        max_exact=max_exact,
        is_small=is_small,
        log_ratio=log_ratio,
        val_if_large_raw=val_if_large_raw,
        val_if_large=val_if_large,
        within=within,
        bucket=bucket,
    )


def t5_bucket(
    relative_position: torch.Tensor,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> torch.Tensor:
    """T5 bucket index of each relative position.

    Exactly Hugging Face ``T5Attention._relative_position_bucket``.

    Returns:
        int64 tensor shaped like ``relative_position``, values in ``[0, num_buckets)``.
    """
    return t5_bucket_steps(
        relative_position,
        bidirectional=bidirectional,
        num_buckets=num_buckets,
        max_distance=max_distance,
    ).bucket


def _bucket_lookup(
    q_pos: torch.Tensor, k_pos: torch.Tensor, *, bidirectional: bool, num_buckets: int, max_distance: int
) -> torch.Tensor:
    """Bucket matrix via one bucket per distinct ``r``: (q_len, k_len) int64.

    The bucket depends on ``r`` only (the matrix is Toeplitz), so bucketing the
    1-D range of ``r`` and gathering costs far less than bucketing every cell.
    """
    rel = relative_positions(q_pos, k_pos)  # (q_len, k_len)
    r_min = int(k_pos.min() - q_pos.max())
    r_max = int(k_pos.max() - q_pos.min())
    lut = t5_bucket(
        torch.arange(r_min, r_max + 1),
        bidirectional=bidirectional,
        num_buckets=num_buckets,
        max_distance=max_distance,
    )  # (r_max - r_min + 1,)
    return lut[rel - r_min]


def t5_bias(
    table: torch.Tensor,
    q_pos: torch.Tensor,
    k_pos: torch.Tensor,
    *,
    bidirectional: bool = True,
    max_distance: int = 128,
    scale: float = 1.0,
) -> torch.Tensor:
    """Per-head additive bias, as Hugging Face ``T5Attention.compute_bias``.

    Args:
        table: (num_buckets, heads) float, ``nn.Embedding(num_buckets, heads).weight``.
        q_pos: (q_len,) int64 query positions.
        k_pos: (k_len,) int64 key positions.
        scale: multiplies the bias (1.0 in T5; the seed notebooks expose it).

    Returns:
        (heads, q_len, k_len) float, ``scale * table[bucket(j - i), h]``. Add a
        leading batch axis (``.unsqueeze(0)``) for the model's ``(1, heads, q, k)``.
    """
    if table.dim() != 2:
        raise ValueError(_("table must be (num_buckets, heads), got shape {shape}.").format(shape=tuple(table.shape)))
    bucket = _bucket_lookup(
        q_pos, k_pos, bidirectional=bidirectional, num_buckets=table.shape[0], max_distance=max_distance
    )  # (q_len, k_len)
    values = table[bucket]  # (q_len, k_len, heads)
    return values.permute(2, 0, 1) * scale  # (heads, q_len, k_len)


def t5_bias_seed_transpose(
    table: torch.Tensor,
    q_pos: torch.Tensor,
    k_pos: torch.Tensor,
    *,
    bidirectional: bool = True,
    max_distance: int = 128,
    scale: float = 1.0,
) -> torch.Tensor:
    """The seed notebooks' bug, kept for display: ``transpose(0, 2)``.

    Returns:
        (heads, k_len, q_len), times ``scale``: the query and key axes swapped. When
        ``q_len == k_len`` the shape looks right and the values are silently
        those of ``bucket(i - j)``, the bias of the opposite direction.
    """
    bucket = _bucket_lookup(
        q_pos, k_pos, bidirectional=bidirectional, num_buckets=table.shape[0], max_distance=max_distance
    )
    return table[bucket].transpose(0, 2) * scale  # (q, k, h) -> (h, k, q)


@dataclass(frozen=True)
class T5BucketRange:
    """Which distances one bucket covers.

    ``first`` and ``last`` are signed relative positions ``r`` with
    ``|first| <= |last|``; ``last`` is None when the bucket is open-ended (the
    last bucket of a direction, or bucket 0 of a decoder, which takes every
    future key). ``kind`` is ``"exact"``, ``"log"`` or ``"unused"``; ``why``
    says why an unused bucket is never reached.
    """

    bucket: int
    direction: str
    first: int | None
    last: int | None
    count: int | None
    kind: str
    why: str = ""


def t5_bucket_ranges(
    *, bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128
) -> list[T5BucketRange]:
    """Bucket by bucket: the relative positions it covers, exact or logarithmic.

    Every distance ``n >= max_distance`` lands in the last bucket of its
    direction, so enumerating ``n`` in ``[0, max_distance]`` finds every range.

    Returns:
        One :class:`T5BucketRange` per bucket index ``0 .. num_buckets - 1``.
    """
    check_t5_config(bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    max_exact = t5_max_exact(num_buckets, bidirectional=bidirectional)
    n = torch.arange(max_distance + 1)
    sides = [("past", -n)]
    if bidirectional:
        sides.append(("future", n[1:]))  # a future key at distance 0 does not exist
    covered: dict[int, tuple[str, list[int]]] = {}
    for direction, r in sides:
        buckets = t5_bucket(r, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
        for b, rr in zip(buckets.tolist(), r.tolist(), strict=True):
            covered.setdefault(b, (direction, []))[1].append(rr)
    half = t5_half(num_buckets, bidirectional=bidirectional)
    ranges: list[T5BucketRange] = []
    for b in range(num_buckets):
        if b not in covered:
            if bidirectional and b == half:
                why = N_("it would hold a future key at distance 0, which does not exist")
            elif bidirectional and b >= 2 * half:
                why = N_("num_buckets is odd: each direction gets num_buckets // 2 and this one is left over")
            else:
                why = N_("no distance lands here: the logarithmic steps jump over it")
            ranges.append(T5BucketRange(b, "none", None, None, 0, "unused", why))
            continue
        direction, rs = covered[b]
        first, last = rs[0], rs[-1]
        if not bidirectional and b == 0:
            # The decoder sends r = 0 and every future key (r > 0) to bucket 0.
            ranges.append(T5BucketRange(b, "self and future", 0, None, None, "exact"))
            continue
        if first == 0:
            direction = "self"
        if b % half == half - 1:  # the last bucket of a direction never ends
            ranges.append(T5BucketRange(b, direction, first, None, None, "log"))
        else:
            kind = "exact" if abs(first) < max_exact and len(rs) == 1 else "log"
            ranges.append(T5BucketRange(b, direction, first, last, len(rs), kind))
    return ranges


def t5_saturation(*, bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128) -> int:
    """The smallest distance from which every farther key in the past shares one bucket (the last).

    Returns:
        int, at most ``max_distance``: 91 for ``(bidirectional, 32, 128)``, where the last bucket starts.
    """
    d = torch.arange(0, 4 * max_distance)  # (4 max_distance,) distances into the past
    bucket = t5_bucket(-d, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance)
    return int(d[bucket != bucket[-1]].max()) + 1


def t5_permutation_outputs(
    words: tuple[str, ...], vocabulary: tuple[str, ...], *, dim: int, seed: int, with_bias: bool
) -> torch.Tensor:
    """Each word's output of one toy self-attention head, without or with a T5 bias.

    Without a position term attention is permutation-equivariant: a shuffle of ``words`` shuffles
    the outputs and changes none of them. The generator of ``seed`` draws a vector per vocabulary
    word (in order), then ``w_q``, ``w_k``, ``w_v`` (dim, dim), then a T5 table (8 buckets, 1 head).

    Returns:
        (len(words), dim) float32.
    """
    g = torch.Generator().manual_seed(seed)
    vocab = {w: toy_normal(dim, generator=g) for w in vocabulary}
    w_q, w_k, w_v = (toy_normal(dim, dim, generator=g) for _unused in range(3))
    table = toy_normal(8, 1, generator=g)  # a T5 table: 8 buckets, 1 head
    x = torch.stack([vocab[w] for w in words])  # (seq, dim)
    pos = torch.arange(len(words))
    bias = t5_bias(table, pos, pos, bidirectional=True, max_distance=4)[0] if with_bias else None
    return self_attention(x, w_q, w_k, w_v, bias=bias)[1]  # (seq, dim)


def t5_garbage_value(max_exact: int) -> int:
    """What ``val_if_large`` holds where ``log_ratio`` is ``-inf`` (``n = 0``): ``.long()`` of ``-inf`` is the
    int64 minimum on CPU, plus ``max_exact``."""
    return int(torch.iinfo(torch.int64).min) + max_exact


def t5_last_exact(num_buckets: int, *, bidirectional: bool) -> int:
    """The largest distance that has a bucket of its own: ``max_exact - 1`` (distances ``0 .. max_exact - 1``)."""
    return t5_max_exact(num_buckets, bidirectional=bidirectional) - 1

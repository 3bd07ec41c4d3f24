"""The bias families of real models: T5's distance buckets and ALiBi's head slopes, as a page draws them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from posviz.encodings.alibi import alibi_slope_sources, alibi_slopes
from posviz.encodings.positions import curve_positions, mirrored
from posviz.encodings.t5 import t5_bucket, t5_max_exact

T5_SPAN = 2  # the bucket profile runs to T5_SPAN * max_distance (its marks stay apart in lecture mode)
T5_DENSE = 4096  # every distance up to this one, then log-spaced (a hostile max_distance of 2^30 stays small)


@dataclass(frozen=True)
class BucketProfile:
    """The encoder's bucket of each relative position drawn."""

    r: np.ndarray  # (n,) int64 relative positions j - i: every one up to T5_DENSE, then log-spaced
    bucket: np.ndarray  # (n,) int64, the encoder's (bidirectional) bucket of each
    max_exact: int  # distances 0 .. max_exact - 1 have a bucket each


def bucket_profile(num_buckets: int, max_distance: int) -> BucketProfile:
    """The bidirectional buckets of ``r`` in ``±T5_SPAN · max_distance``: every distance near 0, log-spaced after."""
    span = T5_SPAN * max_distance
    far = curve_positions(span, dense=min(span, T5_DENSE), points=T5_DENSE)  # (n,) 0 .. span
    r = mirrored(far)  # (2n - 1,) sorted
    bucket = t5_bucket(r, bidirectional=True, num_buckets=num_buckets, max_distance=max_distance)
    return BucketProfile(r.numpy(), bucket.numpy(), t5_max_exact(num_buckets, bidirectional=True))


def last_exact_distance(num_buckets: int) -> int:
    """The largest distance the encoder's buckets give a bucket of its own (``t5_max_exact - 1``)."""
    return t5_max_exact(num_buckets, bidirectional=True) - 1


@dataclass(frozen=True)
class Slopes:
    """ALiBi's head slopes."""

    slopes: np.ndarray  # (heads,) float64
    closest: int  # the power of two the first slopes come from


def head_slopes(heads: int) -> Slopes:
    """The slopes of ``heads`` ALiBi heads, and the power of two they start from."""
    return Slopes(alibi_slopes(heads).numpy(), alibi_slope_sources(heads).closest)

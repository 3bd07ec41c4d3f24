"""Prose for the compare page."""

from posviz.encodings import compare as r

INTRO = """\
One toy sequence, every scheme. The queries `q` and keys `k` are the same seeded random vectors
for all of them (identity projections: the absolute schemes add their vector to `q` and `k`
directly); each scheme then does what it does to the logits. The **position term** is the
difference it makes, `logit − q·k/√d`, so the panels are directly comparable. Every scheme is
computed by the same functions as its own page; the links at the bottom open that page with these
settings.
"""

PROFILE = """\
One query, the last one, against the distance to each key. ALiBi is a straight line, T5 a staircase
of buckets, the absolute schemes and the content-dependent ones (Shaw, RoPE, CoPE) wiggle: their
term depends on the vectors, not only on the distance.
"""

GRIDS = """\
The whole matrices. Relative schemes that ignore content (T5, ALiBi) are constant along diagonals;
the sinusoidal term has a diagonal structure plus cross terms with the content; the learned table at
initialisation has none.
"""

TABLE = """\
Computed from the settings above: the parameter count at this `seq_len` and `dim`, and the distance
at which each scheme stops telling distances apart. The bytes of the position tensors each scheme
built are measured on this sequence. There is no time column: on a toy of a few dozen tokens a run
takes tens of microseconds, mostly PyTorch's overhead per call rather than the scheme, and on a
shared server the same measurement varies far more than the schemes differ.
"""

FIXED = (
    f"Fixed per scheme: T5 {r.T5_BUCKETS} buckets, max_distance {r.T5_MAX_DISTANCE}, head 1 of {r.T5_HEADS}; "
    f"Shaw K = {r.SHAW_CLIP} (a^K only); ALiBi head {r.ALIBI_HEAD + 1} of {r.ALIBI_HEADS} "
    f"(m = 1/{2 ** (8 * (r.ALIBI_HEAD + 1) // r.ALIBI_HEADS)}); CoPE npos_max = {r.COPE_NPOS}, gates σ(q·k/√d); "
    "learned table N(0, 1/2) so its rows have the sinusoidal norm √(d/2)."
)

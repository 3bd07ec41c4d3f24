"""Prose for the compare page."""

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
at which each scheme stops telling distances apart. Time (median of several runs) and the bytes of
the position tensors each scheme built are measured on this sequence, on this server, when these
settings were first computed.
"""

FIXED = (
    "Fixed per scheme: T5 32 buckets, max_distance 128, head 1 of 8; Shaw K = 8 (a^K only); ALiBi head 3 "
    "of 8 (m = 1/8); CoPE npos_max = 16, gates σ(q·k/√d); learned table N(0, 1/2) so its rows have the "
    "sinusoidal norm √(d/2)."
)

"""Prose for the compare page (English, marked for the catalogue: the page shows ``_(INTRO)``; the captions of
fixed values fill their placeholders after the lookup, ``_(FIXED).format(**FIXED_VALUES)``)."""

from posviz.encodings import compare as r
from posviz.encodings import fire, kerple, xpos
from posviz.i18n import N_

INTRO = N_("""\
One toy sequence, every scheme. The queries `q` and keys `k` are the same seeded random vectors
for all of them (identity projections: the absolute schemes add their vector to `q` and `k`
directly); each scheme then does what it does to the logits. The **position term** is the
difference it makes, `logit − q·k/√d`, so the panels are directly comparable. Every scheme is
computed by the same functions as its own page; the links at the bottom open that page with these
settings.

**Schemes compared** in the sidebar chooses which: the first eight (none to CoPE), the newer ones
beyond RoPE (with none, RoPE and ALiBi to compare against), or all of them. Stick-breaking has no
softmax: its attention is its own weights `A`, and its logits are `log A`, so its position term is
what the breaks take away, `−softplus(z_ij) − Σ_{j<k<i} softplus(z_ik)`: it depends on the content of
every nearer key.
""")

PROFILE = N_("""\
One query, the last one, against the distance to each key. ALiBi is a straight line, T5 a staircase
of buckets, the absolute schemes and the content-dependent ones (Shaw, RoPE, CoPE) wiggle: their
term depends on the vectors, not only on the distance. Among the newer ones, KERPLE and FIRE are
smooth curves of the distance alone, xPos is RoPE's wiggle with a decay, stick-breaking falls
with every key it passes, and NoPE stays at 0: under the causal mask it is none.
""")

GRIDS = N_("""\
The whole matrices. Relative schemes that ignore content (T5, ALiBi) are constant along diagonals;
the sinusoidal term has a diagonal structure plus cross terms with the content; the learned table at
initialisation has none.
""")

TABLE = N_("""\
Computed from the settings above: the parameter count at this `seq_len` and `dim`, and the distance
at which each scheme stops telling distances apart. The bytes of the position tensors each scheme
built are measured on this sequence. There is no time column: on a toy of a few dozen tokens a run
takes tens of microseconds, mostly PyTorch's overhead per call rather than the scheme, and on a
shared server the same measurement varies far more than the schemes differ.
""")

FIXED = N_(
    "Fixed per scheme: T5 {t5_buckets} buckets, max_distance {t5_max_distance}, head 1 of {t5_heads}; "
    "Shaw K = {shaw_clip} (a^K only); ALiBi head {alibi_head} of {alibi_heads} "
    "(m = 1/{alibi_inverse_slope}); CoPE npos_max = {cope_npos}, gates σ(q·k/√d); "
    "learned table N(0, 1/2) so its rows have the sinusoidal norm √(d/2)."
)
FIXED_VALUES = dict(
    t5_buckets=r.T5_BUCKETS,
    t5_max_distance=r.T5_MAX_DISTANCE,
    t5_heads=r.T5_HEADS,
    shaw_clip=r.SHAW_CLIP,
    alibi_head=r.ALIBI_HEAD + 1,
    alibi_heads=r.ALIBI_HEADS,
    alibi_inverse_slope=2 ** (8 * (r.ALIBI_HEAD + 1) // r.ALIBI_HEADS),
    cope_npos=r.COPE_NPOS,
)

FIXED_LATER = N_(
    "Fixed for the newer ones: xPos base {xpos_base} and scale_base {xpos_scale_base} (torchscale's, whatever "
    "the base above); KERPLE the log kernel, head {kerple_head} of {kerple_heads}; "
    "FIRE head {fire_head} of {fire_heads}, c = {fire_c}, L = {fire_l}; "
    "Transformer-XL one head, no memory; KERPLE, FIRE and Transformer-XL draw their parameters from the seed "
    "as their own pages do. KERPLE, NoPE, stick-breaking and Transformer-XL are causal whatever the setting."
)
FIXED_LATER_VALUES = dict(
    xpos_base=f"{xpos.BASE:g}",
    xpos_scale_base=xpos.SCALE_BASE,
    kerple_head=kerple.COMPARE_HEAD + 1,
    kerple_heads=kerple.COMPARE_HEADS,
    fire_head=fire.COMPARE_HEAD + 1,
    fire_heads=fire.COMPARE_HEADS,
    fire_c=f"{fire.INIT_C:g}",
    fire_l=f"{fire.INIT_L:g}",
)

"""Prose for the xPos page (English, marked for the catalogue: the page shows ``_(INTRO)``)."""

from posviz.i18n import N_

INTRO = N_("""\
xPos keeps RoPE's rotations and adds a decay. Each pair `k` of a query at position `n` is scaled up
by `ζ_k^(n/B)` and of a key at `m` down by `ζ_k^(−m/B)`, so pair `k` of the score `q_n·k_m` is RoPE's
times `ζ_k^((n−m)/B)`: it shrinks with the distance, fastest for the fast pairs. `B` is the
`scale_base` (512) and `ζ_k = (2k + 0.4·d)/(1.4·d)`. It is meant for causal attention: for a key after
its query the factor would grow.
""")

DECAY = N_("""\
Every pair decays at its own rate. The fast pairs (small `k`) already turn many times between two
distant tokens, so their contribution averages out; xPos damps them most, which removes the
oscillation that lets RoPE put weight on far keys by chance.
""")

SCORES = N_("""\
The same query and key, scored at each distance. RoPE alone keeps oscillating; xPos's factors pull
the far scores towards 0.

Implementations centre the positions of the scale differently (torchscale counts from `−L/2`,
x-transformers from `t − L/2`): each rotated vector differs, the scores agree, because only `n − m`
is left in them. So compare scores, never rotated vectors.
""")

"""Prose for the stick-breaking page (English, marked for the catalogue: the page shows ``_(INTRO)``)."""

from posviz.i18n import N_

INTRO = N_("""\
Stick-breaking attention has no position encoding and no softmax. Query `i` holds a stick of
length 1. Its nearest earlier key breaks off a share `β = σ(q·k/√d)`, the next key a share of what
is left, and so on back: `A_ij = β_ij · Π_(j<k<i) (1 − β_ik)`. A far key gets only what every nearer
key passed on, so recency comes from the order of the breaks, and content decides how far is far.
""")

WEIGHTS = N_("""\
The same scores through a causal softmax and through the stick. The softmax shares all of its mass
among the keys whatever their order; the stick gives most to the first keys (from the query's
side) that score high, and little to anything behind them.
""")

ROW = N_("""\
One query's stick, share by share. The code computes it in log space, `log A_ij = log σ(z_ij) +
Σ_(j<k<i) log σ(−z_ik)`, so long products of small numbers do not underflow. The shares sum to less
than 1: the reference gives the leftover to the query's own value.
""")

RECENCY = N_("""\
Give every pair the same score and the weights fall geometrically with distance, `β (1 − β)^(r − 1)`:
a recency bias without any position term. Compare [CoPE](/cope), where content decides what
counts as a step; here content decides where the stick runs out.
""")

"""Prose for the KERPLE page (English, marked for the catalogue: the page shows ``_(INTRO)``)."""

from posviz.i18n import N_

INTRO = N_("""\
KERPLE adds a learned kernel of the distance to each head's logits, after the `1/√d` scaling:
`−p·log(1 + a·(i − j))` (the log kernel) or `−a·(i − j)^p` (the power kernel, `0 < p ≤ 2`). Both
are conditionally positive definite, the property that makes them usable as a relative bias, and
both are learned per head: ALiBi's fixed line is the power kernel with `p = 1`.
""")

FAMILY = N_("""\
ALiBi, KERPLE and T5 all add one number per head to the logit of query `i` and key `j`, a function
of `r = i − j` only. ALiBi fixes the function to a line; KERPLE learns two parameters of a
kernel; T5 learns a free value per bucket of distances, flat past `max_distance`. The log kernel
falls fast over the first tokens and then flattens: far keys are penalised nearly alike, which
is what let KERPLE extrapolate further than ALiBi in its paper.

The parameters here are **illustrative**: drawn as each reference initialises them (KERPLE's
`p ~ U(0, 2)`, `a ~ U(0, 1)`; T5's table from `N(0, 1)`), from the seed, not taken from a trained model.
Note the swap of names: in the log kernel `p` multiplies and `a` sits inside the log; in the power
kernel `a` multiplies and `p` is the exponent.
""")

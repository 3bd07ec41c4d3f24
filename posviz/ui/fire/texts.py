"""Prose for the FIRE page (English, marked for the catalogue: the page shows ``_(INTRO)``)."""

from posviz.i18n import N_

INTRO = N_("""\
FIRE learns the bias as a function, not a table: a small MLP per layer maps a *normalised*
distance to one bias per head. The normalisation is the point: `u = ψ(i − j) / ψ(max(i, L))` with
`ψ(x) = log(|c·x| + 1)` lies in `[0, 1]` for every key before its query, however long the sequence,
so a model trained on short inputs never sees an input it does not know.
""")

INTERPOLATION = N_("""\
Follow one distance as the query moves on. Below the threshold `L` the normaliser is fixed at
`ψ(L)`, so `u` depends on the distance only, as in a relative scheme. Past `L` it is `ψ(i)`: the same
distance is a smaller and smaller share of the context the query has seen. This is FIRE's
*progressive interpolation*.
""")

NORMALIZED = N_("""\
The whole matrix of `u`: each row is a query, divided by its own normaliser. Near the diagonal `u`
is small; the first key of a long context is at `u ≈ 1`.
""")

MLP = N_("""\
What the learned MLP sees is only `u`. Its weights here are **illustrative**, drawn from the seed as
`torch.nn.Linear` initialises them, not trained; training shapes these curves (recency heads fall
with `u`, others rise). Because `u` stays in `[0, 1]`, the curves are evaluated on the same interval
at any length.
""")

"""Prose for the Shaw page (English, marked for the catalogue: the page shows ``_(INTRO)``)."""

from contextlib import AbstractContextManager
from dataclasses import replace

from posviz.i18n import N_, _
from posviz.ui.sections import OnDemand, on_demand

INTRO = N_("""\
Shaw, Uszkoreit and Vaswani (2018) give attention a **learned vector per relative distance**.
For a query `i` and a key `j` the distance `r = j − i` (key minus query, as tensor2tensor) is
clipped to `[−K, K]` and shifted by `K` into a row of a table of `2K + 1` vectors. The key side
adds `a^K` to the key before the dot product; the value side adds `a^V` to the value:

`e_ij = q_i · (k_j + a^K[index_ij]) / √d`  and  `z_i = Σ_j w_ij (v_j + a^V[index_ij])`.

Distances beyond `K` all share the edge rows: the model can tell "7 to the left" from
"8 to the left" only while `K ≥ 8`. The paper found `K = 16` (and even 2 in some settings) enough.
""")

INDEX = N_("""\
Three matrices, one per line of the reference code (`_generate_relative_positions_matrix`):
the distance `r = range_vec_k[None, :] − range_vec_q[:, None]`, its clip to `[−K, K]`, and the
shift by `K` that makes it a row number. Outside the dashed diagonals every cell holds the same
row, `0` on the far left, `2K` on the far right. With the **queries at the end** of the keys
(a cache or memory) query `0` sits at position `k_len − q_len`.
The seed notebooks compute `q − k` instead, which transposes this matrix: the past gets the
future's rows.
""")

TABLE = N_("""\
The table holds one `dim`-vector per row. Here it is drawn Xavier-normal from the seed, as in the
seed notebook (`nn.init.xavier_normal_`); in a trained model these rows are learned.
""")

ROW = N_("""\
Looking up every pair materialises `R = table[index]` of shape `(q_len, k_len, dim)`. One query's
slice `R[i]` is drawn here, one column of `dim` components per key: the columns left of `j = i − K`
are all the same vector, and so are those right of `j = i + K`.
""")

SCORES = N_("""\
The relative score of a pair is `q_i · a^K[index_ij]`, the `Q Rᵀ` of the seed notebook. It needs
no `R`: `q a^Kᵀ` is `(q_len, 2K + 1)` (each query against each row) and a gather picks each pair's
entry; the page computes it that way, and the code below builds `R` to show the equality.
Both terms are added before the `1/√d` scaling and the softmax.
""")

MEMORY = N_("""\
`R` costs `q_len × k_len × dim` floats: **quadratic in the length, times the width**. With
`dim = 64` that is 1 GiB at `L = 2048` per head and layer, which is why the Music Transformer
replaced it by the skew (next page) and why the page never builds `R` for its toy attention.
""")

TOY_CAP = N_(
    "The toy attention uses content (random queries, keys, values), so its softmax needs every key: "
    "it runs on the first {q_len} queries and {k_len} keys (at most {cap})."
)

# Sections past the first screens draw their figures when opened (posviz.ui.sections).
SHOW_SCORES = OnDemand("show_scores", N_("Scores, attention weights and the value term on a toy sequence"))
SHOW_MEMORY = OnDemand("show_memory", N_("The bytes of R against the sequence length"))


def opened(part: OnDemand) -> AbstractContextManager[bool]:
    """``on_demand(part)`` with the expander's label in the run's language (its key, the link's, stays)."""
    return on_demand(replace(part, label=_(part.label)))

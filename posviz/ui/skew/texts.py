"""Prose for the skew page (English, marked for the catalogue: the page shows ``_(INTRO)``)."""

from posviz.i18n import N_

INTRO = N_("""\
Huang et al. (2018) keep Shaw's relative embeddings for the keys but never build the
`(L, L, d)` tensor `R`. They multiply the queries by the `L` relative embeddings once,
`rel = Q Erᵀ` (`L × L`), where column `c` holds the relative position `r = c − (L − 1)`
(`−(L−1) .. 0`: a decoder only looks back). What the attention needs is indexed by **key**:
`S[i, j] = q_i · Er[j − i + L − 1]`. The *skew* moves every value to that place with a pad, a
reshape and a slice, in `O(L d)` extra memory instead of `O(L² d)`.
""")

VARIANTS = N_("""\
- **masked** (Music Transformer, tensor2tensor `_relative_position_to_absolute_position_masked`):
  `L` relative columns; the upper triangle of the result is garbage the causal mask removes.
- **unmasked** (tensor2tensor `_relative_position_to_absolute_position_unmasked`): `2L − 1`
  columns for `r = −(L−1) .. L−1`, so every cell is valid (an encoder).
- **rel_shift** (Transformer-XL `_rel_shift`): the same pad-and-reshape on `(q_len, k_len)` with
  `k_len = mem_len + q_len` memory keys in front; its column `c` holds the distance
  `i − j = k_len − 1 − c` (its `pos_seq` counts down).
""")

STEP_NOTES = {
    1: N_(
        "Every query meets every relative embedding: row `i` holds `q_i · Er[c]` for every column `c`. "
        "Only the cells whose distance exists for that query (`c ≥ L − 1 − i` when masked) will be kept."
    ),
    2: N_(
        "One zero column is added. The matrix is stored row after row, so each row is now one cell "
        "longer: that extra cell is what shifts each following row by one more place."
    ),
    3: N_(
        "The same numbers in the same order, read in rows one cell shorter. Row `i` of the input now "
        "starts `i + 1` cells further along, so its values slide left by one more column per row: each "
        "diagonal of equal distance lines up."
    ),
    4: N_(
        "Dropping the first row leaves `L` rows indexed by key: in the lower triangle every cell holds "
        "`q_i · Er[j − i + L − 1]`. The colours now run along diagonals, as a relative position should."
    ),
    5: N_(
        "The direct computation looks up `Er[j − i + L − 1]` for every pair, the `O(L² d)` way. On the "
        "pairs it defines the two agree. Above the diagonal the masked skew holds the pad and values of the "
        "next row (`S[i, i+1] = 0`, `S[i, j] = rel[i+1, j − i − 2]`); Transformer-XL's holds them past "
        "`j = i + mem_len`; the unmasked variant has none."
    ),
    6: N_(
        "The causal mask (`−inf` before the softmax; Transformer-XL's `zero_triu`) removes the garbage; the "
        "largest difference on the kept entries is float32 rounding."
    ),
}

MEMORY = N_("""\
Measured bytes of what each method keeps per head: Shaw's `R` is `L × L × d`, the skew's `Er` is
`L × d` (both also hold the `L × L` logits). Filled markers were allocated and measured here; open
ones ran the same PyTorch operation on the meta device, which works out the result's storage
without allocating it (a terabyte would not fit).
""")

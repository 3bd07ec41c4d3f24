"""Prose for the Transformer-XL page (English, marked for the catalogue: the page shows ``_(INTRO)``)."""

from posviz.i18n import N_

INTRO = N_("""\
Transformer-XL reads a long text in segments and lets each segment attend to a cached copy of the
previous one, its *memory*. Absolute positions would clash across segments, so position enters
the score only through the distance `i − j`, in two of four terms. The code splits the score into
`AC = (q + u)·k` and `BD = (q + v)·W_R R_(i−j)`, with two learned vectors `u` and `v` shared by every
position.
""")

TERMS = N_("""\
(a) is plain content. (b) lets the query's content ask for a distance. (c) and (d) replace what an
absolute query position would have contributed: `u` scores keys by content alone, `v` scores
distances alone. Cells right of the diagonal are masked (a key after its query).
""")

R = N_("""\
`R` is a sinusoid of the distance, computed for the descending distances `k_len − 1 … 0` in one go.
Unlike the original sinusoidal table, its sines and cosines sit in two halves `[sin | cos]`, not
interleaved. A learned `W_R` projects each row into the head.
""")

SHIFT = N_("""\
The code does not look up a row of `R` per pair. It scores every query against every row, then
`_rel_shift` pads a zero column, reshapes and slices, which moves each score to its key. The same
trick as the Music Transformer's skew, taken apart step by step on [the skew page](/skew?variant=rel_shift).
**Pitfall:** the shift leaves *garbage*, values of other rows, above the diagonal. The causal mask is
required, not optional.
""")

MEMORY = N_("""\
With memory, query `i` of the segment sits at absolute position `mem_len + i` and sees the whole
memory plus the segment up to itself. The next segment's memory is the last `mem_len` hidden states
(kept without gradient), so information travels `mem_len` tokens further per layer.
""")

"""Prose for the sinusoidal page (English, marked for the catalogue: the page shows ``_(INTRO)``)."""

from posviz.i18n import N_
from posviz.ui.sections import OnDemand

INTRO = N_("""\
The original Transformer adds a fixed vector `PE(p)` to the embedding of the token at position `p`.
Each pair of components is a sine and a cosine of `p·θ_k`, with frequencies `θ_k = base^(−2k/d)`
falling geometrically from one radian per token to about `1/base`. Nothing is learned, any position
has a vector (the table never runs out), and the encoding is **absolute**: it says where a token is,
not how far it is from another one. Relative information appears only through dot products.
""")

TABLE = N_("""\
Row `p` is the vector added at position `p`. The first components oscillate every few tokens, the
last barely move across the whole sequence: like the hands of a clock, fast ones for fine position
and slow ones for coarse position.
""")

WAVES = N_("""\
The same columns as curves. A sine and a cosine of the same frequency together form a point on a
circle that turns at speed `θ_k`: that is why the paper pairs them, and why shifting a position by `r`
is a rotation of every pair by `r·θ_k`, a linear map that does not depend on `p`.
""")

SIMILARITY = N_("""\
Because `sin a sin b + cos a cos b = cos(a − b)`, the dot product of two position vectors is
`PE_i · PE_j = Σ_k cos((j − i)·θ_k)`: it depends on the distance only, never on where the pair sits.
Every diagonal of the matrix is constant, the diagonal itself is `|PE|² = d/2`, and the profile is
symmetric: the dot product alone cannot tell a key before the query from a key after it.
""")

LAYOUTS = N_("""\
The paper interleaves sine and cosine. tensor2tensor, fairseq, Marian and Transformer-XL write every
sine first and every cosine after (`[sin | cos]`); tensor2tensor and fairseq also space the
frequencies with `d/2 − 1` instead of `d/2`, so their last pair is exactly `1/base`. The two layouts
hold the same numbers in a different order: one permutation of the components, which keeps every
dot product.
""")

LEARNED = N_("""\
BERT and GPT learn their position table instead: an `nn.Embedding(max_positions, d)` initialised at
random, `N(0, 0.02²)`. Before training its vectors are unrelated, so their similarity is noise
around zero: any structure (nearby positions alike) must be learned from data, and positions past
the table's size simply do not exist. The sinusoidal table has that structure built in.
""")

# Sections past the first screens draw their figures when opened (posviz.ui.sections).
SHOW_LAYOUTS = OnDemand("show_layouts", N_("The table in both layouts, and the permutation between them"))
SHOW_LEARNED = OnDemand("show_learned", N_("Cosine similarity of position vectors: sinusoidal and learned"))

"""Prose for the RoPE page (English, marked for the catalogue: the page shows ``_(INTRO)``)."""

from posviz.i18n import N_
from posviz.ui.sections import OnDemand

FORMULA = r"\theta_k = \text{base}^{-2k/d},\qquad (R_m q)\cdot(R_n k) = q^\top R_m^\top R_n k = q^\top R_{n-m}\,k"

INTRO = N_("""\
RoPE adds nothing to the token embeddings. It **rotates** every query and key: the vector is cut
into `d/2` pairs of components, and pair `k` at position `m` is turned by the angle `m·θ_k`, with
`θ_k = base^(−2k/d)`. Rotations keep lengths, and two rotations compose: `R_mᵀ R_n = R_(n−m)`.
So the attention score `(R_m q) · (R_n k) = q · R_(n−m) k` sees the two positions only through
their difference, yet each token was rotated by its own absolute position: no table, nothing learned.
""")

FREQUENCIES = N_("""\
Pair 0 turns one radian per token (a full turn every 6.3 tokens); each next pair turns slower by a
constant factor, down to about `1/base` radians per token for the last one. A pair whose wavelength
is longer than the context **never completes a turn** inside it: its angle only tells *roughly*
how far apart two tokens are. These slow pairs are the ones context extension has to deal with.
""")

MATRIX = N_("""\
`R_m` is block-diagonal in 2 × 2 rotations in the **interleaved** layout of the paper and Meta's
LLaMA code (pairs `(x[2k], x[2k+1])`, multiplied as complex numbers). GPT-NeoX and Hugging Face use
the **half-split** layout, pairs `(x[k], x[k + d/2])`, computed with `rotate_half`. Both are the same
rotation in a different order of components: a checkpoint trained in one layout needs its `W_q`,
`W_k` rows permuted to run in the other (Hugging Face's LLaMA conversion script does exactly that).
""")

CIS = N_("""\
The seed notebook's `precompute_freqs_cis`: `e^(i·m·θ_k)` for the first positions `m` (rows) and a
few pairs `k` (columns), the complex numbers that the interleaved pairs are multiplied by.
""")

CIRCLES = N_("""\
The same random vector at three positions. Every pair stays on its circle (rotations keep the
length); pair `k` has turned by `m·θ_k`. The fast pairs have spun around many times by position `m`;
the slow ones have hardly moved, even at large positions.
""")

RELATIVE = N_("""\
Move both positions by the same shift `t` and the score does not change: only `n − m` matters.
The heatmap shows the score of one `q` and one `k` at every pair of positions: constant along each
diagonal. Measured in float32 the identity `R_mᵀ R_n = R_(n−m)` holds to about `1e−7`; the page
computes angles in float64, so it holds to about `1e−15` there.
""")

DECAY = N_("""\
RoFormer (section 3.4.3) bounds the score by `max|h_(k+1) − h_k| · Σ_j |S_j|` with
`S_j = Σ_(k<j) e^(i r θ_k)`, and plots `(1/(d/2)) Σ_j |S_j|`: it falls with the distance `r`, but it
**oscillates**: it is an envelope, not a monotone decay. What you measure depends on the vectors:
when `q` and `k` agree (`k = q`), `|q · R_r q|` falls with distance; for **independent** random
`q` and `k` there is nothing to decay, and the mean stays flat. "RoPE decays with distance" is a
statement about aligned vectors, not a guarantee.
""")

SCALING = N_("""\
A model trained on `original_max_position` tokens has seen every pair's angle only up to
`θ_k · original_max_position`. Run it longer and the slow pairs reach angles it never saw. The
methods (Hugging Face `rope_type`) differ in what they do to which pairs:
- **linear** (position interpolation): every pair turns `factor` times slower; positions are
  squeezed into the trained range, and the fast pairs lose resolution too.
- **dynamic** (NTK-aware): raises `base` as the sequence grows past the original context, so the
  slow pairs slow down most and the fastest pair not at all; nothing changes within the context.
- **yarn**: leaves pairs that turn more than `beta_fast` times in the original context alone,
  interpolates those that turn fewer than `beta_slow` times, ramps in between, and scales the
  logits by an attention factor `0.1 ln(factor) + 1` (applied to `cos` and `sin`).
- **llama3** (Llama 3.1): keeps wavelengths shorter than `original_max_position / high_freq_factor`,
  divides those longer than `original_max_position / low_freq_factor` by `factor`, smooth in between.
""")

ATTENTION = N_("""\
A toy sequence of {length} positions, causal. When every position holds the **same token**, plain
attention cannot tell the positions apart (left: uniform over the past). With RoPE on `q` and `k`
the weights depend on `j − i` (middle: the same pattern along each diagonal). With random queries
and keys (right) content and position mix. The chosen scaling method's frequencies and attention
factor are used.
""")

# Sections past the first screens draw their figures when opened (posviz.ui.sections).
SHOW_RELATIVE = OnDemand("show_relative", N_("The score against a common shift t, and at every pair of positions"))
SHOW_DECAY = OnDemand("show_decay", N_("The RoFormer bound and measured mean scores against distance"))
SHOW_SCALING = OnDemand("show_scaling", N_("Each method's frequencies, and the rotation angles they give"))
SHOW_ATTENTION = OnDemand("show_attention", N_("Attention weights of a toy sequence without and with RoPE"))

"""Prose for the T5 page (English, marked for the catalogue: the page shows ``_(INTRO)``). ``{name}`` fields
are filled from the current settings."""

from contextlib import AbstractContextManager
from dataclasses import replace

from posviz.i18n import N_, _
from posviz.ui.sections import OnDemand, on_demand

INTRO = N_("""\
T5 does not add anything to the token embeddings. Instead, every attention head adds
**one learned scalar** to each logit `q_i · k_j`, chosen by the *bucket* of the relative
position `r = j − i`. Nearby distances get a bucket each; farther ones share buckets that grow
logarithmically up to `max_distance`, and everything beyond shares the last bucket. The table
has shape `(num_buckets, heads)`, is computed once in the first layer and reused by every layer,
and the bias is added unscaled. T5 uses 32 buckets and `max_distance = 128`; the encoder is
bidirectional (half the buckets for the past, half for the future), the decoder unidirectional.
""")

RELATIVE = N_("""\
Every query `i` looks at every key `j`; T5 only ever sees their difference `r = j − i`
(negative: the key is in the past), `rel_pos = k_pos[None, :] - q_pos[:, None]`. The matrix is
constant along each diagonal. Flipping the sign (`q − k`) is a classic bug: it swaps the past and
future buckets.
With **queries at the end** of the keys (cached decoding, Transformer-XL memory), query `0` sits at
position `k_len − q_len`: the queries are the last `q_len` rows of the full square matrix (the very
last row alone when a decoder adds one token at a time), not the first ones.
""")

STEP_NOTES = (
    N_("""**Bidirectional:** `num_buckets //= 2` ({bidirectional_half} per direction); future keys (`r > 0`) will be
offset by {bidirectional_half} into the upper half; the distance is `n = |r|`.
**Unidirectional:** `n = max(−r, 0)`: every future key gets `n = 0` and lands in bucket 0 with the
query itself (the causal mask hides them anyway)."""),
    N_("""`max_exact = {max_exact}`: distances `0 .. {max_exact_minus_1}` are their own bucket, one
distance each. Everything else (`is_small = False`) goes to a logarithmic bucket."""),
    N_("""The formula is computed for **every** cell, small or not, in float32:
`max_exact + log(n / max_exact) / log(max_distance / max_exact) · (half − max_exact)`.
Where `n = 0`, `log(0) = −inf` (grey). Where `0 < n < max_exact` the value is below `max_exact`.
Both are wrong as buckets, and both are thrown away in step 6."""),
    N_("""`.long()` truncates toward zero. Cast to int64, `−inf` has no value: the conversion is
undefined in C and x86 returns the "integer indefinite" `−9223372036854775808` (int64 min), so those
cells now hold `max_exact + int64 min = {garbage}` (grey). Nothing crashes, and the garbage is
invisible unless you print it, as the seed notebooks did. The truncation applies to the log term
*before* `max_exact` is added (the Hugging Face order), so where that term is negative
(`0 < n < max_exact`) it rounds up toward zero: `max_exact − 1.74` becomes `max_exact − 1`, not the
floor of step 3's value. Those cells are discarded too."""),
    N_("""`torch.min(val_if_large, half − 1)` keeps the logarithmic buckets inside this direction's
half: without it, distances beyond `max_distance` would index past the table (or into the other
direction's buckets). The garbage survives: it is already far below `half − 1`."""),
    N_("""`torch.where(is_small, n, val_if_large)` picks `n` wherever `is_small` is true, which is exactly
where the garbage sits (`n = 0 < max_exact`): the `−inf` values never reach a bucket. What is left
is the bucket within one direction's half; adding the direction offset (bidirectional: `+{bidirectional_half}`
for future keys) gives the final bucket in `[0, num_buckets)`, drawn in the next section."""),
)

TABLE = N_("""\
Bucket by bucket, the distances each one covers. Note the buckets that are **never used** (with
bidirectional buckets, the first future bucket would hold a future key at distance 0, which does
not exist; an odd `num_buckets` also wastes the top one), and where the last bucket **really**
starts. The log term reaches `nb − max_exact` only at `max_distance`, which would be bucket `nb`, one
past the end; the clamp folds that whole last interval into bucket `nb − 1`, which therefore begins
where the term reaches `nb − 1 − max_exact`: distance 91 for 32 buckets and `max_distance = 128`.
""")

BIAS = N_("""\
`compute_bias` looks up `table[bucket]`, which is `(q_len, k_len, heads)`, then
`.permute(2, 0, 1).unsqueeze(0)` makes it `(1, heads, q_len, k_len)`: one `(q_len, k_len)`
matrix per head, added to that head's logits. The table here is `nn.Embedding(num_buckets, heads)`
at its default initialisation, standard normal (Hugging Face's T5 initialises it with standard
deviation `factor · d_model^−0.5`); training shapes each head's column: some heads learn to look
nearby, others far.
Open the table to edit its cells, or to upload a real checkpoint's table and see a trained head.
""")

ATTENTION = N_("""\
Toy standard-normal queries and keys (`d = {dim}`, from their own generator seeded with `seed + 1`,
so they stay put when the table changes). T5
itself has no `1/√d`; it folds it into the initialisation of `W_q`, so the logits start with unit
variance, as the scaled toy logits here do. The softmax runs over **every** key, also when only a
strided sample of rows and columns is drawn.
""")

PITFALL = N_("""\
The seed notebooks reshape `(q_len, k_len, heads)` with `transpose(0, 2)`, which gives
`(heads, k_len, q_len)`, not `(heads, q_len, k_len)`. With `q_len ≠ k_len` adding it to the scores
fails with a shape error (or, when one length is 1, silently broadcasts to a wrong square); with
`q_len = k_len` it **silently** adds `bias(i − j)` at `(i, j)`: past and future swap.
`permute(2, 0, 1)` is the correct reshape.
""")

BUCKET_FORMULA = (  # three short lines, to fit beside the open sidebar at 1024 px; the
    # closing \, holds the 2 px KaTeX draws past a multi-line block's box
    r"\begin{aligned}\text{bucket}(n)&=n\quad\text{if } n<\text{max\_exact},\ \text{else}\\"
    r"\text{bucket}(n)&=\min\!\big(\text{nb}-1,\ "
    r"\text{max\_exact}+\lfloor \ell(n)\,(\text{nb}-\text{max\_exact})\rfloor\big)\\"
    r"\ell(n)&=\frac{\log(n/\text{max\_exact})}{\log(\text{max\_distance}/\text{max\_exact})}\end{aligned}\,"
)

BUCKET_FORMULA_NOTE = N_(
    "n: the distance (step 1 below); nb: buckets per direction (num_buckets // 2 when bidirectional, "
    "else num_buckets); max_exact = nb // 2; future keys of a bidirectional bucket add nb."
)

TOY_CAP = N_(
    "The toy softmax runs over at most {cap} keys: this section uses q_len = {q_len}, "
    "k_len = {k_len} (queries at the {align} of the keys); the position bias is the same function of r."
)

PITFALL_CODE = N_(  # code: only its comments translate
    "values = table[bucket]                 # ({q}, {k}, {h}): (q_len, k_len, heads)\n"
    "values.permute(2, 0, 1).unsqueeze(0)   # (1, {h}, {q}, {k}): correct\n"
    "values.transpose(0, 2).unsqueeze(0)    # (1, {h}, {k}, {q}): the seeds"
)

BOX_ZOOM = N_(
    "Drag a box on this heatmap (box select) to zoom into it: the box becomes the window in the sidebar's Zoom "
    "and in the link, drawn cell by cell when it spans 192 positions or fewer."
)

# Sections past the first screens draw their figures when opened (posviz.ui.sections).
SHOW_TABLE = OnDemand("show_table", N_("The table: edit its cells, or upload a real checkpoint's"))
SHOW_BIAS = OnDemand("show_bias", N_("Heatmaps: the chosen head's bias, and every head's"))
SHOW_ATTENTION = OnDemand("show_attention", N_("Attention maps without and with the bias, and one query's row"))
SHOW_PITFALL = OnDemand("show_pitfall", N_("Heatmaps: the correct bias, the transposed one, and their difference"))


def opened(part: OnDemand) -> AbstractContextManager[bool]:
    """``on_demand(part)`` with the expander's label in the run's language (its key, the link's, stays)."""
    return on_demand(replace(part, label=_(part.label)))

"""Prose for the CoPE page. ``{name}`` fields are filled from the current settings."""

from dataclasses import replace

from posviz.i18n import N_, _
from posviz.ui.sections import OnDemand

INTRO = N_("""\
Token positions count **every** token. To attend to "the second sentence back" or "the last
noun", a model would rather count only what matters. CoPE lets each query decide: it gives every
earlier key a gate `g_ij = σ(q_i · k_j)` between 0 and 1, and the position of key `j` seen from
query `i` is the number of gates that fire from `j` up to `i`, a fractional number. Positions
index learned embeddings `e[0 .. npos_max − 1]`; between two integers CoPE interpolates.
""")

FORMULA = (  # short lines, to fit beside the open sidebar at 1024 px; the
    # closing \, holds the 2 px KaTeX draws past a multi-line block's box
    r"\begin{gathered}g_{ij}=\sigma(q_i^\top k_j),\quad p_{ij}=\sum_{t=j}^{i} g_{it}\\"
    r"z_i[p_{ij}]=w\,z_i[\lceil p_{ij}\rceil]+(1-w)\,z_i[\lfloor p_{ij}\rfloor]\\"
    r"a_{ij}=\mathrm{softmax}_j\big(q_i^\top k_j/\sqrt d+z_i[p_{ij}]\big)\end{gathered}\,"
)

FORMULA_NOTE = N_("z_i[p] = q_i · e[p] for integer p; w = p_ij − ⌊p_ij⌋; p_ij is clamped to npos_max − 1.")

CUSTOM_GATES = N_(
    "Custom gates: one value in [0, 1] per key token, the same for every query (it starts at 1 on words, "
    "0 on punctuation, so CoPE counts words). Click a gate to edit it; edits are not part of the link."
)

TOKENS = N_("""\
The text is split into words and punctuation marks (no subwords), and each token gets a
toy query and key (random, from `seed`). Type or paste your own text; very long texts are
fine, the page computes only the rows it draws.
""")

GATES = N_("""\
Row `i` holds query `i`'s gates over the keys. The causal mask is applied to the logits
**before** the sigmoid: masked logits are `−inf`, so their gates are exactly 0 (grey). A finite
mask such as `−30` would leave `σ(−30) ≈ 9·10⁻¹⁴` in every future cell.
""")

POSITIONS = N_("""\
`p_ij = Σ_{{t=j..i}} g_it`, computed for all `j` at once as a **reverse cumulative sum**
along the row: `gates.flip(-1).cumsum(-1).flip(-1)`. Positions rise as `j` moves left, never
fall: each key adds exactly its own gate. They are clamped to `npos_max − 1 = {top}`, the last
embedding: every pair beyond it shares `e[{top}]`.
""")

INTERPOLATION = N_("""\
A fractional position has no embedding of its own. CoPE computes `z_i[p] = q_i · e[p]` for every
integer `p` (one matrix product, `(n, dim) @ (dim, npos_max)`), then mixes the two integers around
`p_ij`: `z_i[p_ij] = w · z_i[⌈p_ij⌉] + (1 − w) · z_i[⌊p_ij⌋]` with `w = p_ij − ⌊p_ij⌋`. That
equals interpolating the embeddings first, `q_i · (w e[⌈p⌉] + (1 − w) e[⌊p⌋])`, without ever
building an `(n, n, dim)` tensor.
""")

INTEGER_NOTE = N_(
    "This position is a whole number: floor = ceil and `w = 0`, so `z_i[p_ij]` is exactly `z_i[{p}]`. "
    "Gates of 0 and 1 always sum to whole numbers; `random` gates (between 0 and 1) give fractional positions."
)

ATTENTION = N_("""\
The position term is added to the scaled content logits, as in the paper's `SelfAttn`:
`a_ij = softmax_j(q_i · k_j / √d + z_i[p_ij])`. For comparison, the same toy `q`, `k` and
embeddings with no position term, and with plain relative positions `q_i · e[i − j]` (clamped
to the same `npos_max − 1`). The embeddings are random here (`e ~ N(0, 1/dim)`); training would
shape them.
""")

COUNTING = N_("""\
The inspected query's positions against token distance `i − j`. A plain relative encoding climbs
one step per token (dotted line); CoPE climbs only where a gate fires, by the gate's value. Choose
`count-sentences` under Gates and the bars form a staircase with one step per sentence: query `i` can
address "the previous sentence" at a fixed position however long the sentences are.
""")

PITFALL = N_("""\
The reverse cumsum runs to the **end** of the row. Compute the gates from unmasked logits and
mask afterwards (or mask with a finite number), and every position `p_ij` also sums the gates of
the future keys `t > i`. All earlier keys of row `i` shift by the same amount, so positions no
longer start at the query, and the model sees its own future through the position term.
""")

PITFALL_OFF = N_("Turn on the toggle to compute the positions the wrong way and compare.")

RELATIVE_NOTE = N_("""\
Every gate is 1: `p_ij = i − j + 1` on every earlier key, CoPE is a relative position encoding
(offset by one: the query counts itself).
""")

# Sections past the first screens draw their figures when opened (posviz.ui.sections).
SHOW_ATTENTION = OnDemand(
    "show_attention", N_("Position logits, and attention with no position term, relative positions and CoPE")
)
SHOW_COUNTING = OnDemand("show_counting", N_("The inspected query's CoPE positions against token distance"))


def translated(part: OnDemand) -> OnDemand:
    """``part`` with its label in the run's language (``on_demand`` draws the label as given)."""
    return replace(part, label=_(part.label))

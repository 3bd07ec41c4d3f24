"""Prose for the home page (English, marked for the catalogue: the page shows ``_(WHY)``)."""

from posviz.i18n import N_

WHY = N_("""\
Self-attention compares every token with every other token through dot products `q_i · k_j`
and mixes their values by the resulting weights. Nothing in that computation knows *where* a token
is: shuffle the tokens and every token gets exactly the same output as before, only in the new
order. Attention is **permutation-equivariant**; without a position signal, "dog bites man" and
"man bites dog" are the same bag of words.
""")

AFTER = N_("""\
Add a position term, here a T5 relative bias, and the same shuffle changes what each token
computes: now order matters. Every scheme in posviz is a different way of making it matter.
""")

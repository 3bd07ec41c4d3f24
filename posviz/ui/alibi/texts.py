"""Prose for the ALiBi page (English, marked for the catalogue: the page shows ``_(INTRO)``)."""

from posviz.i18n import N_

INTRO = N_("""\
ALiBi adds no position vector at all. Every head subtracts a penalty proportional to the distance
from its attention logits, `q_i·k_j/√d − m_h·(i − j)`, with a fixed slope `m_h` per head. Steep heads
attend to the last few tokens, flat heads over long ranges; since the bias is linear, a model
trained on short sequences keeps working on longer ones (the paper's "train short, test long").
""")

SLOPES = N_("""\
For `n` heads (a power of two) the slopes are the geometric sequence `m_h = 2^(−8h/n)`,
`h = 1 … n`: for 8 heads `1/2, 1/4, …, 1/256`. They are not learned.
""")

INTERLEAVE = N_("""\
For a count that is not a power of two, `get_slopes` takes the `p = 2^⌊log₂ n⌋` slopes of `p` heads
and then every other slope of `2p` heads, as many as are missing. The borrowed slopes fall halfway
(on a log scale) between the first ones, so the heads still cover the range evenly.
""")

BIAS = N_("""\
The bias of each head as a matrix over query `i` and key `j`. In the paper (a causal language
model) it is `−m·(i − j)` for keys at or before the query; the official code adds `m·j` instead,
which differs in every row by the constant `m·i` that softmax ignores. Without the causal mask the
common choice is the symmetric `−m·|i − j|`, which cannot tell left from right. A long sequence is
drawn as a strided sample; the sidebar's Zoom draws any window (e.g. around position 100 000) cell by cell.
""")

RECEPTIVE = N_("""\
Take the last query and give every key the same content score: attention is then `softmax(−m·d)`
over the distances `d`, a geometric decay `e^(−m·d)`. About `ln 10 / m` tokens hold 90 % of the
weight: that is each head's receptive field. The table lists every head.
""")

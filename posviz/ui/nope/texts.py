"""Prose for the NoPE page (English, marked for the catalogue: the page shows ``_(INTRO)``)."""

from posviz.i18n import N_

INTRO = N_("""\
NoPE means no position encoding at all: no vector added, no bias, no rotation. Without a causal
mask, attention then sees a set. With one it does not: the softmax at position `t` runs over exactly
`t` keys, and a model can count them. Several 2025 models keep some layers this way, and DroPE
removes RoPE from a trained model altogether.
""")

COUNTING = N_("""\
Make every score equal (a zero query): each query spreads its attention evenly over the keys it may
see, `1/t` each. Let the value mark the first token only (`<bos>`). The output at position `t` is then
exactly `1/t`, a different number at every position, which a later layer can decode. The mask alone
carries position.
""")

PERMUTATION = N_("""\
The home page's demo, on six random tokens reversed. Without the mask each token's output is the
same wherever it stands (a set); with the mask it changes, because each token sees a different set
of predecessors. This is all a NoPE model knows of order, and it is enough to learn from.
""")

LAYERS = N_("""\
Llama 4 and SmolLM3 leave every fourth layer without RoPE, Cohere2 its global (full-attention)
layers; the others rotate. Mind the name: in their configs `no_rope_layers[i] == 1` means layer `i`
*uses* RoPE. Open each on the [Real models](/models?model=llama-4-scout) page:
[Llama 4 Scout](/models?model=llama-4-scout), [SmolLM3](/models?model=smollm3-3b),
[Command R7B](/models?model=command-cohere2).
""")

TEMPERATURE = N_("""\
Without position, a query over a long context spreads its attention over more and more keys. Llama
4 multiplies the queries of its NoPE layers by `1 + 0.1·log(⌊(t + 1)/8192⌋ + 1)` (0-based `t`),
which sharpens the softmax as the context grows. Below 8191 tokens it does nothing.
""")

DROPE = N_("""\
DroPE takes a model trained with RoPE and removes RoPE from every layer, by passing `cos = 1` and
`sin = 0` to the same code; then it trains briefly at the original context length to recalibrate.
The figure shows what the removal itself changes: the same queries and keys, attention against
distance with the rotation and without it. RoPE's rotations favour the near keys; once dropped,
only content and the mask remain, which is what the recalibration adapts the model to.
""")

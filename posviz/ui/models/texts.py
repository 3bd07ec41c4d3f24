"""Prose for the models page (English, marked for the catalogue: the page shows ``_(INTRO)``)."""

from posviz.i18n import N_

INTRO = N_("""\
Every page before this one takes one scheme apart. Real checkpoints mix them: a config.json
decides, layer by layer, which tokens each layer may attend to (all, a sliding window, a chunk) and
whether the layer sees position at all (RoPE or none), and it stretches RoPE past the context the
model was trained at. This page reads the config with Hugging Face `transformers` itself (its
configuration class for the model, version 5.23) and draws what it decides. Pick a model, open
any model on the Hugging Face Hub by its id (namespace/name), put a second one beside it, or upload
any config.json.
""")

LAYERS = N_("""\
One cell per layer, first layer on the left. The top row is the layer's kind: **full** (every
earlier token), **sliding** (only the last W tokens), **chunked** (only the tokens of the query's
own chunk), **indexed** / **compressed** (sparse attention that picks earlier keys by content:
DeepSeek V3.2 and V4), **hybrid** (attention beside a state space model). Some layers mix tokens
with no attention position at all: a **linear** layer (linear attention, Mamba, Gated DeltaNet) is
a recurrence, so order enters through the order of its updates; a **conv** layer mixes the last few
tokens through a short causal convolution; an **mlp** / **moe** layer mixes none. The bottom row
says whether the layer rotates queries and keys at all: a NoPE layer has no position signal and
relies on the causal mask and the layers around it.
""")

ROPE = N_("""\
Each pair k of a head's query and key turns by `θ_k` radians per token. A scaling method changes
`θ_k` so that a model trained on a short context reads a longer one: **linear** slows every pair,
**llama3** keeps the fast pairs and slows the slow ones, **YaRN** blends between the two and
rescales attention, **LongRoPE** learns a factor per pair. Some heads rotate only part of their
dimensions: **partial** rotary, the decoupled RoPE part of latent attention (**MLA**), and
**proportional** RoPE (Gemma 4's global layers), whose turning pairs keep the frequencies of a
full-width head while the rest never turn. A pair whose wavelength `2π/θ_k` is
longer than the context never completes a turn inside it: it acts as a slowly growing angle, not a
clock. The frequencies are the ones in effect for a sequence of L + 1 tokens.
""")

VISION = N_(
    "Images and video: how the language model places image and video tokens (M-RoPE gives each three ids, "
    "time, height and width) and how the vision encoder rotates its patches (2-D RoPE), read from the config's "
    "vision_config. The /vision link below draws them."
)

NO_ROPE = N_("""\
This model does not use RoPE: section 6 shows how it places position instead.
""")

MASKS = N_("""\
Which keys the token at position L attends to in each kind of layer, drawn on a strided sample of
the keys 0 … L; models with windows or chunks also get a close-up of the keys just before L, where
the window's edge or the chunk's start lies.
""")

REACH = N_("""\
A token sees other tokens through one mask per layer, so information travels further with each
layer: a sliding window of W moves it W − 1 tokens back per layer, a full layer brings everything,
a chunk never lets it past the chunk's start. The curve counts how many tokens back the token at L
can hold information from after the first n layers (the slider sets n).
""")

FAMILY = N_("""\
Models without RoPE place position their own way: a learned table of absolute positions (GPT-2,
BERT), the fixed sinusoidal table (the original Transformer, Marian), T5's learned bias per distance
bucket, or ALiBi's fixed penalty per head. Each has a limit of its own: the table's last row, the
last bucket, or none.
""")

UPLOAD_HELP = N_(
    "A Hugging Face config.json (JSON only, at most 256 KiB). It replaces the first model while it is here; "
    "nothing is stored and nothing runs from it: posviz reads the position fields and ignores the rest."
)

# What section 5 says for the families without a figure of their own there.
FAMILY_RULE = {
    "rope": N_("RoPE in every layer: its frequencies are in section 3."),
    "nope-hybrid": N_("RoPE in some layers and no position encoding in the others: see sections 2 and 3."),
    "learned": N_(
        "A learned table: one trained vector per position, added to the token; the table above says "
        "where it ends. The link opens the sinusoidal page, whose section 5 sets such a table beside the fixed one."
    ),
    "sinusoidal": N_("The fixed sin/cos table, added to the token: the link opens the sinusoidal page with its size."),
}

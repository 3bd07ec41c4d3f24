"""Prose for the /vision page."""

from dataclasses import replace

from posviz.i18n import N_, _
from posviz.ui.sections import OnDemand

FORMULA = r"(t, h, w) = \text{start} + (\text{frame},\ \text{row},\ \text{column})"
FORMULA_PAIRS = r"\text{angle of pair } k = \theta_k \cdot \text{id}_{\text{axis}(k)}\,"

INTRO = N_("""\
A vision-language model reads an image as a grid of **patches**; the vision encoder merges each
`m × m` block of patches into one **token** of the language model. 1-D RoPE would number those
tokens one after another and forget that the image is 2-D. **M-RoPE** (Qwen2-VL) gives every token
three ids instead, **time t, height h, width w**, and splits each head's frequency pairs between
them: a pair is turned by `t`, by `h` or by `w`. Text tokens get the same id on all three, so for
text M-RoPE is plain RoPE. Build a sequence in the sidebar; every id on this page is what
transformers 5.23's `get_rope_index` returns for it.
""")

SEQUENCE = N_("""\
An image starts all three ids at the running position `start`: its token in row `r`, column `c`
gets `(start, start + r, start + c)`. The text after it does **not** resume at `start` + the number
of image tokens: transformers 5.23 resumes at `start + max(h, w) / m`, just past the image's larger
side, so a 1000-token image costs the text only about 32 positions. The original Qwen code resumed
at the **largest id so far + 1**. For an image the two are the same; for a video whose frames
outnumber its larger side, the time ids run past `start + max(h, w)/m` and the two rules part
(dashed line): in 5.23 the text after a long video reuses ids its last frames already have.
""")

PAIRS = N_("""\
Which id turns which pair decides what each axis can resolve. Qwen2-VL cuts the `d/2` pairs into
**blocks** (`mrope_section`, 16 + 24 + 24 of 64): time takes the fastest pairs, height the middle
ones and width **only the slowest**, whose wavelengths are far longer than any image, so columns
are told apart by small angles, and time has no slow pair for long videos. Qwen3-VL
**interleaves** them (t h w t h w …, `[24, 20, 20]`), so every axis gets fast and slow pairs; the
table gives each axis's range of wavelengths.
""")

OFFSETS = N_("""\
Inside the vision encoder a patch at row `r`, column `c` turns half of each head's pairs by `r` and
half by `c`. Rotations compose, so a query at `(r, c)` and a key at `(r + dh, c + dw)` score
`q · R(dh, dw) k`: the score depends only on the **offset** `(dh, dw)`, in 2-D exactly as 1-D RoPE
depends only on `n − m`. The two panels put two different query patches at the centre.
""")

SPLIT = N_("""\
The encoders agree on the idea and differ in the details. **Pixtral** builds one table of
`head_dim/2` frequencies and gives the even entries to rows and the odd ones to columns, so each
column pair turns half a step slower than its row pair. **Qwen-VL** (2, 2.5, 3) computes
`head_dim/4` frequencies and uses the very same ones for rows, then for columns. **Gemma 4** does the
same with **columns first**, base 100 instead of 10000 (its slowest pair turns once in about 300
patches), and rotates each half of the head on its own (`apply_multidimensional_rope`), so its pairs
sit in other channels. Hover a dot for the two channels it turns.
""")

TIME = N_("""\
Qwen2-VL and Qwen3-VL number a video's temporal patches 0, 1, 2, …: two videos sampled at different
frame rates get the same ids. Qwen2.5-VL ties the time id to **seconds**: temporal patch `f` gets
`⌊f · second_per_grid_t · tokens_per_second⌋`, where `second_per_grid_t = 2 / fps`. Qwen3-VL
instead writes the time as text (`<1.0 seconds>`) before each frame and gives every frame its own
run, so its time ids are just the running position.
""")

SHOW_OFFSETS = OnDemand("show_offsets", N_("Score by offset (dh, dw): two query patches side by side"))
SHOW_SPLIT = OnDemand("show_split", N_("Pixtral, Qwen-VL and Gemma 4: each head's pairs by row and column"))

VIDEO_ROPE = N_("""\
Video **generators** (diffusion transformers) rotate in three axes too, but they do not share one
frequency ladder the way M-RoPE does. **Wan 2.1** cuts each 128-dim head into three slices,
44 components for time and 42 each for height and width (`h = w = 2 (d // 6)`), and gives every
slice its **own** ladder `θ^(−2k / d_axis)` with θ = 10000, starting again from the fastest pair:
every axis gets fast and slow pairs. **HunyuanVideo** splits 16 / 56 / 56 with θ = 256, so time
gets only 8 pairs while rows and columns get 28 each, and its **text tokens are not rotated** at
all (cos 1, sin 0). Pairs are adjacent components `(x[2k], x[2k+1])`. Below them, **Qwen3-VL**
splits the same 128-dim head by dealing **one** ladder (θ = 5,000,000) out to t, h, w in turn.
""")

V2PE = N_("""\
**V2PE** (variable visual position encoding, InternVL) lets an image's tokens share fewer
positions: each image token advances the position by **δ = stride / 256** instead of 1, and the text
after the image resumes at **⌈last⌉ + 1**. A 256-token tile then takes `stride` positions, so a long
document of many tiles fits a context the model was trained on. RoPE is evaluated at the fractional
positions as they are. `stride = 256` (δ = 1) gives the ordinary ids.
""")

SHOW_VIDEO_ROPE = OnDemand(
    "show_video_rope", N_("Wan 2.1 and HunyuanVideo: each head's pairs by frame, row and column")
)
SHOW_V2PE = OnDemand("show_v2pe", N_("V2PE: fractional position ids and what a long image costs"))


def translated(part: OnDemand) -> OnDemand:
    """``part`` with its label in the run's language (``on_demand`` draws the label as given)."""
    return replace(part, label=_(part.label))

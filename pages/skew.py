"""Music Transformer skew: relative logits to absolute, step by step, and what it saves."""

import streamlit as st

from posviz.figures import skew as fig
from posviz.figures.common import bytes_figure
from posviz.ui.chrome import page_header, prose, section
from posviz.ui.controls import lecture_mode, step_through
from posviz.ui.exports import cache_figures, columns_csv, matrix_csv, show_figure
from posviz.ui.shaw_snippets import skew_snippet
from posviz.ui.skew import memory_view, skew_controls, skew_view
from posviz.ui.texts import skew as text

s = skew_controls()
lecture = lecture_mode()
cache_figures("skew", s, lecture)  # every figure below depends on these only
page_header("Music Transformer skew", "Huang et al. 2018 · relative attention in O(L d) memory: pad, reshape, slice")
prose(text.INTRO, label="What the skew does")
prose(text.VARIANTS, label="The three variants")
st.latex(r"S_{ij} = q_i \cdot E^r_{\,j - i + L - 1} \qquad (j \le i)")

view = skew_view(s.seq_len, s.dim, s.seed, s.variant, s.mem_len)
code = skew_snippet(s)
L, K = view.gather.shape

section("1 · The skew, step by step")


# A fragment: Previous / Next and the step slider rerun only this section.
@st.fragment
def skew_walkthrough() -> None:
    titles = fig.step_titles(s.variant)
    step = step_through(titles)
    if step <= 4:
        key = fig.STEP_KEYS[step - 1]
        matrix = getattr(view.steps, key)
        show_figure(
            lambda: fig.skew_step_figure(
                view.steps,
                view.sources,
                step,
                variant=s.variant,
                seq_len=s.seq_len,
                colour_by=s.colour,
                lecture=lecture,
            ),
            name=f"skew_{s.variant}_step_{step}",
            alt=f"Heatmap of step {step} of the skew; each cell coloured by where its value came from.",
            csv=lambda: matrix_csv(matrix, range(matrix.shape[0]), range(matrix.shape[1])),
            code=code,
        )
    else:
        show_figure(
            lambda: fig.skew_check_figure(
                view.steps.sliced,
                view.gather,
                view.valid,
                step,
                variant=s.variant,
                max_diff=view.max_diff,
                lecture=lecture,
            ),
            name=f"skew_{s.variant}_step_{step}",
            alt="The skew's result beside the direct gather of every pair's relative embedding.",
            csv=lambda: matrix_csv(view.steps.sliced, range(L), range(K)),
            code=code,
        )
    st.info(text.STEP_NOTES[step], icon=":material/footprint:")
    st.caption(
        f"Largest |skew − gather| on the {int(view.valid.sum()):,} entries the gather defines: "
        f"{view.max_diff:.2e} (float32 rounding; the two compute the same dot products in another order)."
    )


skew_walkthrough()

section("2 · Autoplay")
if s.seq_len <= fig.MAX_ANIMATION:
    st.caption("The same four steps as an animation that runs in your browser: press Play, or drag the slider.")
    show_figure(
        lambda: fig.skew_animation_figure(
            view.steps, view.sources, variant=s.variant, seq_len=s.seq_len, colour_by=s.colour, lecture=lecture
        ),
        name=f"skew_{s.variant}_animation",
        alt="Animated heatmap of the skew's four steps.",
        code=code,
    )
else:
    st.info(
        f"The animation ships all four matrices to the browser, so it is drawn up to seq_len = "
        f"{fig.MAX_ANIMATION}; the steps above work at every length.",
        icon=":material/info:",
    )

section("3 · Memory: O(L² d) becomes O(L d)")
prose(text.MEMORY)
mv = memory_view(s.dim)
show_figure(
    lambda: bytes_figure(
        mv.lengths,
        {
            f"Shaw R (L, L, {s.dim})": (mv.shaw_r, mv.allocated),
            f"skew Er (L, {s.dim})": (mv.skew_er, mv.allocated),
            "logits (L, L), both": (mv.logits, mv.allocated),
        },
        title="Bytes per head: Shaw's R against the skew's Er",
        subtitle=f"float32, dim = {s.dim}; the gap is a factor of L",
        current=s.seq_len,
        lecture=lecture,
    ),
    name="skew_memory",
    alt="Log-log chart of the bytes of Shaw's R and of the skew's Er against the length.",
    csv=lambda: columns_csv(
        {"L": mv.lengths, "Shaw R bytes": mv.shaw_r, "skew Er bytes": mv.skew_er, "logits bytes": mv.logits}
    ),
)
at = {int(n): (int(r), int(e)) for n, r, e in zip(mv.lengths, mv.shaw_r, mv.skew_er, strict=True)}
if 4096 in at:
    r, e = at[4096]
    st.caption(f"At L = 4096: R takes {r / 2**30:.1f} GiB, Er {e / 2**20:.1f} MiB, {r // e:,} times less.")

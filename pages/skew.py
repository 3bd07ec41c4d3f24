"""Music Transformer skew: relative logits to absolute, step by step, and what it saves."""

import streamlit as st

from posviz.figures import skew, skew_check, skew_memory
from posviz.figures.layout import number
from posviz.figures.memory import human_bytes
from posviz.i18n import _
from posviz.ui.cache import chart, data
from posviz.ui.chrome import page_header, prose, section
from posviz.ui.controls import lecture_mode, step_through
from posviz.ui.exports import show_figure
from posviz.ui.language import fragment
from posviz.ui.settings import read_settings
from posviz.ui.skew import texts
from posviz.ui.skew.settings import SkewSettings
from posviz.ui.skew.snippets import skew_snippet

s = read_settings(SkewSettings)
lecture = lecture_mode()
page_header(
    _("Music Transformer skew"), _("Huang et al. 2018 · relative attention in O(L d) memory: pad, reshape, slice")
)
prose(_(texts.INTRO), label=_("What the skew does"))
prose(_(texts.VARIANTS), label=_("The three variants"))
st.latex(r"S_{ij} = q_i \cdot E^r_{\,j - i + L - 1} \qquad (j \le i)")

toy = dict(seq_len=s.seq_len, dim=s.dim, seed=s.seed, variant=s.variant, mem_len=s.memory)
code = skew_snippet(s)

section("1 · The skew, step by step")


@fragment  # Previous / Next and the step slider rerun only this section
def skew_walkthrough() -> None:
    step = step_through(skew.step_titles(s.variant))
    if step <= skew.STEPS:  # the matrices, coloured
        figure = chart(skew.step, **toy, colour=s.colour, number=step, lecture=lecture, max_entries=64)
    else:  # the check against the direct gather
        figure = chart(skew_check.check, **toy, number=step, lecture=lecture)
    show_figure(
        figure,
        name=f"skew_{s.variant}_step_{step}",
        slot="skew_step",
        alt=_("Heatmap of step {step} of the skew; each cell coloured by where its value came from.").format(step=step)
        if step <= skew.STEPS
        else _("The skew's result beside the direct gather of every pair's relative embedding."),
        code=code,
    )
    st.info(_(texts.STEP_NOTES[step]), icon=":material/footprint:")
    valid_pairs, max_diff = data(skew_check.check_summary, **toy)
    st.caption(
        _(
            "Largest |skew − gather| on the {pairs} entries the gather defines: "
            "{max_diff} (float32 rounding; the two compute the same dot products in another order)."
        ).format(pairs=f"{valid_pairs:,}", max_diff=number(max_diff, 3))
    )


skew_walkthrough()

section("2 · Autoplay")
if s.seq_len <= skew.MAX_ANIMATION:
    st.caption(_("The same four steps as an animation that runs in your browser: press Play, or drag the slider."))
    show_figure(
        chart(skew.animation, **toy, colour=s.colour, lecture=lecture),
        name=f"skew_{s.variant}_animation",
        alt=_("Animated heatmap of the skew's four steps."),
        code=code,
    )
else:
    st.info(
        _(
            "The animation ships all four matrices to the browser, so it is drawn up to seq_len = "
            "{most}; the steps above work at every length."
        ).format(most=skew.MAX_ANIMATION),
        icon=":material/info:",
    )

section("3 · Memory: O(L² d) becomes O(L d)")
prose(_(texts.MEMORY))
show_figure(
    chart(skew_memory.memory, dim=s.dim, current=s.seq_len, lecture=lecture),
    name="skew_memory",
    alt=_("Log-log chart of the bytes of Shaw's R and of the skew's Er against the length."),
)
saving = data(skew_memory.saving, dim=s.dim, length=4096)
if saving:
    r, e = saving
    st.caption(
        _("At L = 4096: R takes {r}, Er {er}, {times} times less.").format(
            r=human_bytes(r), er=human_bytes(e), times=f"{r // e:,}"
        )
    )

"""ALiBi: slopes per head, how non-powers of two borrow slopes, the bias grid, and each head's reach."""

import streamlit as st

from posviz.figures import alibi as fig
from posviz.ui.alibi import alibi_controls, bias_view, receptive_view, slopes_view
from posviz.ui.alibi_snippets import alibi_snippet
from posviz.ui.chrome import page_header, prose, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import cache_figures, columns_csv, show_figure
from posviz.ui.texts import alibi as text

s = alibi_controls()
lecture = lecture_mode()
cache_figures("alibi", s, lecture)  # every figure below depends on these only
page_header(
    "ALiBi: attention with linear biases", "Press et al. 2022 · a fixed penalty −m·(i − j) per head, no embedding"
)
prose(text.INTRO, label="What ALiBi does")
st.latex(r"\text{logit}_{h,ij} = \frac{q_i\cdot k_j}{\sqrt d} - m_h\,(i - j),\qquad m_h = 2^{-8h/n}")

sl = slopes_view(s.heads)
slopes_code = alibi_snippet(s, part="slopes")

section("1 · Slopes per head")
prose(text.SLOPES)
show_figure(
    lambda: fig.slopes_figure(sl.slopes, closest=sl.closest, lecture=lecture),
    name="alibi_slopes",
    alt="Each head's slope on a log axis.",
    csv=lambda: columns_csv({"head": range(1, s.heads + 1), "slope": sl.slopes}),
    code=slopes_code,
)

section("2 · Any number of heads")
prose(text.INTERLEAVE)
show_figure(
    lambda: fig.interleave_figure(sl.base, sl.doubled, sl.extra, heads=s.heads, lecture=lecture),
    name="alibi_interleave",
    alt="The slopes of the closest power of two, of twice as many heads, and the final slopes.",
    csv=lambda: columns_csv({"head": range(1, s.heads + 1), "slope": sl.slopes}),
    code=slopes_code,
)

section("3 · The bias, head by head")
prose(text.BIAS)
bv = bias_view(s.heads, s.seq_len, s.causal)
show_figure(
    lambda: fig.bias_grid_figure(
        bv.bias,
        heads_shown=bv.heads_shown,
        slopes=sl.slopes[bv.heads_shown],
        positions=bv.positions,
        seq_len=s.seq_len,
        causal=s.causal,
        heads=s.heads,
        lecture=lecture,
    ),
    name="alibi_bias",
    alt="Small heatmaps of each shown head's bias over query and key positions.",
    csv=lambda: columns_csv(
        {
            "head": [int(h) + 1 for h in bv.heads_shown for _ in range(bv.bias[0].size)],
            "query i": [int(i) for _ in bv.heads_shown for i in bv.positions for _ in bv.positions],
            "key j": [int(j) for _ in bv.heads_shown for _ in bv.positions for j in bv.positions],
            "bias": bv.bias.ravel(),
        }
    ),
    code=alibi_snippet(s, part="bias", stride=bv.stride, heads_shown=bv.heads_shown.tolist()),
)

section("4 · Receptive field")
prose(text.RECEPTIVE)
rv = receptive_view(s.heads, s.seq_len)
show_figure(
    lambda: fig.receptive_field_figure(
        rv.distances,
        rv.weights,
        rv.reach,
        heads_shown=rv.heads_shown,
        slopes=sl.slopes[rv.heads_shown],
        seq_len=s.seq_len,
        lecture=lecture,
    ),
    name="alibi_receptive_field",
    alt="Attention weight against distance for each shown head, log axes, with each head's 90% reach.",
    csv=lambda: columns_csv(
        {"distance": rv.distances, **{f"head {int(h) + 1}": rv.weights[i] for i, h in enumerate(rv.heads_shown)}}
    ),
    code=alibi_snippet(s, part="receptive", heads_shown=rv.heads_shown.tolist()),
)
st.dataframe(rv.table, hide_index=True)

"""RoPE: rotations, both layouts, the relative property, decay, and context-extension scaling."""

import streamlit as st

from posviz.figures import rope as fig
from posviz.ui.chrome import page_header, prose, rule_error, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import cache_figures, columns_csv, matrix_csv, panels_csv, show_figure
from posviz.ui.rope import (
    SCORE_LEN,
    attention_view,
    decay_view,
    rope_controls,
    rope_problem,
    rope_view,
    scaling_note,
    scaling_view,
    toy_len,
    wavelength_sentence,
)
from posviz.ui.rope_snippets import DECAY_SAMPLES, rope_snippet
from posviz.ui.texts import rope as text

s = rope_controls()
lecture = lecture_mode()
cache_figures("rope", s, lecture)  # every figure below depends on these only
page_header("RoPE: rotary position embedding", "Su et al. 2021 · rotate q and k by angles proportional to position")
prose(text.INTRO, label="What RoPE does")
st.latex(r"\theta_k = \text{base}^{-2k/d},\qquad (R_m q)\cdot(R_n k) = q^\top R_m^\top R_n k = q^\top R_{n-m}\,k")
problem = rope_problem(s)
if problem:
    rule_error(problem)
    st.stop()

view = rope_view(s)
snip = dict(pairs=[int(k) for k in view.pairs])

section("1 · Frequencies and wavelengths")
prose(text.FREQUENCIES)
st.markdown(wavelength_sentence(s, view.inv_freq))
show_figure(
    lambda: fig.frequency_figure(
        view.inv_freq,
        seq_len=s.seq_len,
        default_inv_freq=view.default_inv_freq,
        original_max_position=s.original_max_position,
        method=s.method,
        lecture=lecture,
    ),
    name="rope_frequencies",
    alt="Frequency and wavelength of every pair on log axes, with the context length marked.",
    csv=lambda: columns_csv(
        {"pair k": range(len(view.inv_freq)), "theta_k": view.inv_freq, "wavelength": 6.283185307179586 / view.inv_freq}
    ),
    code=rope_snippet(s, part="freq"),
)

section("2 · The rotation matrix R_m, in both layouts")
prose(text.MATRIX)
matrix_code = rope_snippet(s, part="matrix")
show_figure(
    lambda: fig.rotation_matrix_figure(view.rotation, position=s.m, layout=s.layout, lecture=lecture),
    name=f"rope_matrix_{s.layout}",
    alt=f"Heatmap of the {s.dim} by {s.dim} rotation matrix at position m.",
    csv=lambda: matrix_csv(view.rotation, range(s.dim), range(s.dim)),
    code=matrix_code,
)
show_figure(
    lambda: fig.permutation_figure(view.perm, lecture=lecture),
    name="rope_layout_permutation",
    alt="The permutation matrix between the interleaved and the half-split layout.",
    csv=lambda: columns_csv({"half-split component": range(s.dim), "interleaved component": view.perm}),
    code=matrix_code,
)
st.caption(f"Measured: max |R_half − P R_interleaved Pᵀ| = {view.layout_gap:.1e} at m = {s.m}.")

section("3 · The complex view: freqs_cis")
prose(text.CIS)
st.dataframe(view.cis)

section("4 · Each pair on its circle")
prose(text.CIRCLES)
show_figure(
    lambda: fig.pair_circles_figure(
        view.at_zero,
        view.at_m,
        view.at_n,
        pairs=view.pairs,
        inv_freq=view.inv_freq[view.pairs],
        m=s.m,
        n=s.n,
        lecture=lecture,
    ),
    name="rope_pair_circles",
    alt="Each shown pair of a random vector as arrows on its unit circle at positions 0, m and n.",
    csv=lambda: columns_csv(
        {
            "pair k": view.pairs,
            "x at 0": view.at_zero[:, 0],
            "y at 0": view.at_zero[:, 1],
            "x at m": view.at_m[:, 0],
            "y at m": view.at_m[:, 1],
            "x at n": view.at_n[:, 0],
            "y at n": view.at_n[:, 1],
        }
    ),
    code=rope_snippet(s, part="circles", **snip),
)

section("5 · The relative property, live")
prose(text.RELATIVE)
cols = st.columns(4)
cols[0].metric(f"(R_m q)·(R_n k), m = {s.m}, n = {s.n}", f"{view.score_mn:.6f}")
t_big = int(view.shifts[-1])
cols[1].metric(f"at (m + t, n + t), t = {t_big}", f"{float(view.shifted[-1]):.6f}")
cols[2].metric("max |R_mᵀR_n − R_(n−m)|, float32", f"{view.gap32:.1e}")
cols[3].metric("the same in float64", f"{view.gap64:.1e}")
relative_code = rope_snippet(s, part="relative", shifts=[int(t) for t in view.shifts], score_len=SCORE_LEN)
show_figure(
    lambda: fig.shift_figure(view.shifts, view.shifted, m=s.m, n=s.n, lecture=lecture),
    name="rope_shift",
    alt="The score of q at m + t and k at n + t against the shift t: a flat line.",
    csv=lambda: columns_csv({"t": view.shifts, "score": view.shifted}),
    code=relative_code,
)
show_figure(
    lambda: fig.score_matrix_figure(view.scores, positions=view.score_pos, lecture=lecture),
    name="rope_scores",
    alt="Heatmap of the rotated score of one q and one k at every pair of positions: constant diagonals.",
    csv=lambda: matrix_csv(view.scores, view.score_pos, view.score_pos),
    code=relative_code,
)

section("6 · Long-term decay")
prose(text.DECAY)
decay = decay_view(s)
show_figure(
    lambda: fig.decay_figure(
        decay.distances,
        decay.bound,
        decay.aligned,
        decay.independent,
        dim=s.dim,
        seq_len=s.seq_len,
        samples=DECAY_SAMPLES,
        lecture=lecture,
    ),
    name="rope_decay",
    alt="The RoFormer bound and measured mean scores against distance on a log axis.",
    csv=lambda: columns_csv(
        {
            "distance": decay.distances,
            "bound": decay.bound,
            "mean |q.R_r q|": decay.aligned,
            "mean |q.R_r k|": decay.independent,
        }
    ),
    code=rope_snippet(s, part="decay", distances=[int(r) for r in decay.distances]),
)

section("7 · Context-extension scaling")
prose(text.SCALING)
st.info(scaling_note(s, view), icon=":material/straighten:")
sv = scaling_view(s)
show_figure(
    lambda: fig.scaling_freq_figure(sv.ratios, sv.attention, chosen=s.method, factor=s.factor, lecture=lecture),
    name="rope_scaling_frequencies",
    alt="Each method's frequency divided by the default frequency, per pair.",
    csv=lambda: columns_csv({"pair k": range(len(view.inv_freq)), **sv.ratios}),
    code=rope_snippet(s, part="freq"),
)
show_figure(
    lambda: fig.angle_figure(
        sv.positions,
        sv.default_angles,
        sv.scaled_angles,
        pairs=sv.pairs,
        trained=sv.trained,
        original_max_position=s.original_max_position,
        method=s.method,
        lecture=lecture,
    ),
    name="rope_scaling_angles",
    alt="Rotation angle of a fast, a middle and a slow pair against position, default and scaled.",
    csv=lambda: columns_csv(
        {
            "position": sv.positions,
            **{f"pair {k} default": sv.default_angles[:, i] for i, k in enumerate(sv.pairs)},
            **{f"pair {k} {s.method}": sv.scaled_angles[:, i] for i, k in enumerate(sv.pairs)},
        }
    ),
    code=rope_snippet(s, part="angles", pairs=sv.pairs, positions=[int(p) for p in sv.positions]),
)

section("8 · Attention on a toy sequence")
length = toy_len(s)
prose(text.ATTENTION.format(length=length))
weights = attention_view(s)
titles = ["same token, no RoPE", "same token, RoPE", "random q and k, RoPE"]
positions = list(range(length))
show_figure(
    lambda: fig.attention_figure(weights, positions=positions, titles=titles, lecture=lecture),
    name="rope_attention",
    alt="Causal attention weights of a toy sequence without and with RoPE.",
    csv=lambda: panels_csv(dict(zip(titles, weights, strict=True)), positions, positions),
    code=rope_snippet(s, part="attention", toy_len=length),
)

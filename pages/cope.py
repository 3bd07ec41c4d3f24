"""CoPE: contextual positions that count only the tokens whose gates fire."""

import streamlit as st

from posviz.figures import cope as fig
from posviz.ui.chrome import page_header, prose, rule_error, section
from posviz.ui.controls import control, lecture_mode
from posviz.ui.cope import (
    allowance_note,
    cope_controls,
    cope_view,
    custom_gate_table,
    gates_subtitle,
    inspect_controls,
    leak_note,
    pitfall_view,
    row_view,
    text_control,
    token_frame,
)
from posviz.ui.cope_snippets import cope_snippet
from posviz.ui.exports import columns_csv, matrix_csv, panels_csv, show_figure
from posviz.ui.params import COPE_MAX_TOKENS
from posviz.ui.texts import cope as text

s = cope_controls()
lecture = lecture_mode()
page_header("CoPE: contextual position encoding", "Golovneva et al. 2024 · positions that count what matters")
prose(text.INTRO, label="What CoPE does")
st.latex(
    r"g_{ij}=\sigma(q_i^\top k_j),\quad p_{ij}=\sum_{t=j}^{i} g_{it},\quad "
    r"z_i[p_{ij}]=w\,z_i[\lceil p_{ij}\rceil]+(1-w)\,z_i[\lfloor p_{ij}\rfloor],\quad "
    r"a_{ij}=\mathrm{softmax}_j\big(q_i^\top k_j/\sqrt d+z_i[p_{ij}]\big)"
)
st.caption("z_i[p] = q_i · e[p] for integer p; w = p_ij − ⌊p_ij⌋; p_ij is clamped to npos_max − 1.")

section("1 · Tokens and gates")
prose(text.TOKENS)
s, tok = text_control(s, st.container())
n = len(tok.tokens)
if n == 0:
    rule_error("The text has no tokens: type or paste at least one word or punctuation mark.")
    st.stop()
if tok.total > n:
    st.warning(
        f"The text has {tok.total} tokens; the page reads the first {COPE_MAX_TOKENS}.", icon=":material/content_cut:"
    )
st.caption(allowance_note(tok))
s = inspect_controls(s, n)
custom = custom_gate_table(s, tok.tokens) if s.mode == "custom" else None
cb = b"" if custom is None else custom.tobytes()
args = (s.text, s.mode, s.npos_max, s.dim, s.seed, s.temperature, cb)
view = cope_view(*args)
row = row_view(*args, s.query, s.key)
if custom is None:
    st.dataframe(token_frame(tok.tokens, row.gates, s.query), height=min(38 + 35 * n, 300))
stride = int(view.q_pos[1] - view.q_pos[0]) if len(view.q_pos) > 1 else 1
cl = None if custom is None else custom.tolist()
matrices_code = cope_snippet(s, part="matrices", stride=stride, custom=cl)
ticks = tok.tokens
shown = dict(q_pos=view.q_pos, k_pos=view.k_pos, n=n, lecture=lecture)

prose(text.GATES)
show_figure(
    fig.gates_figure(view.gates, view.future, tokens=ticks, subtitle=gates_subtitle(s.mode, s.temperature), **shown),
    name="cope_gates",
    alt="Heatmap of the gates g_ij, future keys masked.",
    csv=lambda: matrix_csv(view.gates, view.q_pos, view.k_pos),
    code=matrices_code + "# the figure: gates[:, cols]\n",
)

section("2 · Positions: a reverse cumulative sum, clamped")
prose(text.POSITIONS.format(top=s.npos_max - 1))
if s.mode == "count-tokens":
    st.info(text.RELATIVE_NOTE, icon=":material/straighten:")
show_figure(
    fig.positions_figure(view.positions, view.future, view.clamped, npos_max=s.npos_max, tokens=ticks, **shown),
    name="cope_positions",
    alt="Heatmap of the contextual positions p_ij, clamped cells marked.",
    csv=lambda: matrix_csv(view.positions, view.q_pos, view.k_pos),
    code=matrices_code + "# the figure: pos[:, cols]; raw[:, cols] > npos_max - 1 where clamped\n",
)

section("3 · Interpolating a fractional position")
prose(text.INTERPOLATION)
st.caption(f"Inspecting query i = {s.query} and key j = {s.key} (sidebar: Inspect).")
st.dataframe(
    {
        "query i": [s.query],
        "key j": [s.key],
        "p_ij": [round(row.p, 6)],
        "floor": [row.floor],
        "ceil": [row.ceil],
        "w": [round(row.w, 6)],
        "z_i[floor]": [round(float(row.z_row[row.floor]), 6)],
        "z_i[ceil]": [round(float(row.z_row[row.ceil]), 6)],
        "z_i[p_ij]": [round(row.value, 6)],
    },
    hide_index=True,
)
if row.floor == row.ceil:
    st.caption(text.INTEGER_NOTE.format(p=row.floor))
row_code = cope_snippet(s, part="row", custom=cl)
show_figure(
    fig.interpolation_figure(
        row.z_row,
        query=s.query,
        key=s.key,
        p=row.p,
        floor=row.floor,
        ceil=row.ceil,
        w=row.w,
        value=row.value,
        lecture=lecture,
    ),
    name="cope_interpolation",
    alt="Line of z_i at integer positions with the interpolated value marked.",
    csv=lambda: columns_csv({"p": range(len(row.z_row)), "z_i[p]": row.z_row}),
    code=row_code,
)

section("4 · Position logits and attention")
prose(text.ATTENTION)
show_figure(
    fig.position_logits_figure(view.pos_logits, view.future, tokens=ticks, **shown),
    name="cope_position_logits",
    alt="Heatmap of the position logits z_i[p_ij].",
    csv=lambda: matrix_csv(view.pos_logits, view.q_pos, view.k_pos),
    code=matrices_code + "# the figure: pos_logits[:, cols]\n",
)
astride = int(view.attn_q[1] - view.attn_q[0]) if len(view.attn_q) > 1 else 1
show_figure(
    fig.attention_figure(*view.attention, q_pos=view.attn_q, k_pos=view.attn_k, n=n, lecture=lecture),
    name="cope_attention",
    alt="Attention weights with no position term, relative positions and CoPE.",
    csv=lambda: panels_csv(dict(zip(fig.ATTENTION_TITLES, view.attention, strict=True)), view.attn_q, view.attn_k),
    code=cope_snippet(s, part="attention", stride=astride, custom=cl),
)

section("5 · What CoPE counts")
prose(text.COUNTING)
bj = row.bar_j
show_figure(
    fig.counting_figure(
        row.bar_distance,
        row.bar_positions,
        bj,
        [tok.tokens[j] for j in bj],
        query=s.query,
        npos_max=s.npos_max,
        sampled=len(bj) < s.query + 1,
        lecture=lecture,
    ),
    name="cope_counting",
    alt="Bar chart of the inspected query's CoPE positions against token distance.",
    csv=lambda: columns_csv({"key j": bj, "i - j": row.bar_distance, "p_ij": row.bar_positions}),
    code=row_code + "# the figure: pos[0, j] against query - j for j <= query\n",
)

section("6 · The masking pitfall: mask after the gates")
prose(text.PITFALL)


# A fragment: the pitfall toggle reruns only this section.
@st.fragment
def masking_pitfall() -> None:
    if control("mask_after", where=st.container()):
        pv = pitfall_view(*args)
        pit = dict(q_pos=pv.pos, k_pos=pv.pos, n=n, lecture=lecture)
        pstride = int(pv.pos[1] - pv.pos[0]) if len(pv.pos) > 1 else 1
        pit_code = cope_snippet(s, part="pitfall", stride=pstride, custom=cl)
        st.warning(leak_note(s, row), icon=":material/warning:")
        show_figure(
            fig.pitfall_figure(pv.right, pv.wrong, **pit),
            name="cope_pitfall",
            alt="Positions with the mask before and after the gates.",
            csv=lambda: panels_csv({"mask before": pv.right, "mask after": pv.wrong}, pv.pos, pv.pos),
            code=pit_code + "# the figure: pos[:, cols] and pos_wrong[:, cols]\n",
        )
        show_figure(
            fig.pitfall_difference_figure(pv.diff, **pit),
            name="cope_pitfall_difference",
            alt="Heatmap of wrong minus right positions.",
            csv=lambda: matrix_csv(pv.diff, pv.pos, pv.pos),
            code=pit_code + "# the figure: leak[:, cols]\n",
        )
    else:
        st.caption(text.PITFALL_OFF)


masking_pitfall()

"""CoPE: contextual positions that count only the tokens whose gates fire."""

import streamlit as st

from posviz.figures import cope, cope_pitfall, cope_query
from posviz.i18n import N_, _
from posviz.ui.cache import chart, data
from posviz.ui.chrome import page_header, prose, rule_error, section
from posviz.ui.controls import lecture_mode
from posviz.ui.cope import texts
from posviz.ui.cope.inputs import custom_gate_table, inspect_controls, mask_after_control, text_control
from posviz.ui.cope.notes import allowance_note, cut_note, leak_note
from posviz.ui.cope.settings import SidebarSettings, gate_temperature, problem
from posviz.ui.cope.snippets import cope_snippet
from posviz.ui.exports import show_figure
from posviz.ui.language import fragment
from posviz.ui.sections import on_demand
from posviz.ui.settings import read_settings
from posviz.ui.tables import static_table

side = read_settings(SidebarSettings)
lecture = lecture_mode()
page_header(_("CoPE: contextual position encoding"), _("Golovneva et al. 2024 · positions that count what matters"))
prose(_(texts.INTRO), label=_("What CoPE does"))
st.latex(texts.FORMULA)
st.caption(_(texts.FORMULA_NOTE))

section("1 · Tokens and gates")
prose(_(texts.TOKENS))
s, tok = text_control(side, st.container())
if problem(s):
    rule_error(problem(s))
    st.stop()
n = len(tok.tokens)
if cut_note(tok.total):
    st.warning(cut_note(tok.total), icon=":material/content_cut:")
st.caption(allowance_note(n))
s = inspect_controls(s, n)
table = custom_gate_table(s, tok.tokens) if s.mode == "custom" else None
cl = None if table is None else table.tolist()
# What every figure is built from; the gate table's bytes are part of every figure's arguments.
toy = dict(text=s.text, mode=s.mode, temperature=gate_temperature(s), npos_max=s.npos_max, dim=s.dim, seed=s.seed,
           custom=b"" if table is None else table.tobytes())  # fmt: skip
if table is None:
    static_table(data(cope_query.token_table, **toy, query=s.query), label=_("Tokens and their gates"), max_rows=8)
matrices_code = cope_snippet(s, part="matrices", n=n, custom=cl)

prose(_(texts.GATES))
show_figure(
    chart(cope.gates, **toy, lecture=lecture),
    name="cope_gates",
    alt=_("Heatmap of the gates g_ij, future keys masked."),
    code=matrices_code + "# " + N_("the figure: gates[:, cols]") + "\n",
)

section("2 · Positions: a reverse cumulative sum, clamped")
prose(_(texts.POSITIONS).format(top=s.npos_max - 1))
if s.mode == "count-tokens":
    st.info(_(texts.RELATIVE_NOTE), icon=":material/straighten:")
show_figure(
    chart(cope.positions, **toy, lecture=lecture),
    name="cope_positions",
    alt=_("Heatmap of the contextual positions p_ij, clamped cells marked."),
    code=matrices_code + "# " + N_("the figure: pos[:, cols]; raw[:, cols] > npos_max - 1 where clamped") + "\n",
)

section("3 · Interpolating a fractional position")
prose(_(texts.INTERPOLATION))
st.caption(_("Inspecting query i = {query} and key j = {key} (sidebar: Inspect).").format(query=s.query, key=s.key))
pair = data(cope_query.pair_table, **toy, query=s.query, key=s.key)
static_table(pair, label=_("The inspected pair"), hide_index=True)
if pair["floor"][0] == pair["ceil"][0]:
    st.caption(_(texts.INTEGER_NOTE).format(p=pair["floor"][0]))
row_code = cope_snippet(s, part="row", custom=cl)
show_figure(
    chart(cope_query.interpolation, **toy, query=s.query, key=s.key, lecture=lecture),
    name="cope_interpolation",
    alt=_("Line of z_i at integer positions with the interpolated value marked."),
    code=row_code,
)

section("4 · Position logits and attention")
prose(_(texts.ATTENTION))
with on_demand(texts.translated(texts.SHOW_ATTENTION)) as shown:
    if shown:
        show_figure(
            chart(cope.position_logits, **toy, lecture=lecture),
            name="cope_position_logits",
            alt=_("Heatmap of the position logits z_i[p_ij]."),
            code=matrices_code + "# " + N_("the figure: pos_logits[:, cols]") + "\n",
        )
        show_figure(
            chart(cope.attention, **toy, lecture=lecture),
            name="cope_attention",
            alt=_("Attention weights with no position term, relative positions and CoPE."),
            code=cope_snippet(s, part="attention", n=n, custom=cl),
        )

section("5 · What CoPE counts")
prose(_(texts.COUNTING))
with on_demand(texts.translated(texts.SHOW_COUNTING)) as shown:
    if shown:
        show_figure(
            chart(cope_query.counting, **toy, query=s.query, lecture=lecture),
            name="cope_counting",
            alt=_("Bar chart of the inspected query's CoPE positions against token distance."),
            code=row_code + "# " + N_("the figure: pos[0, j] against query - j for j <= query") + "\n",
        )

section("6 · The masking pitfall: mask after the gates")
prose(_(texts.PITFALL))


# A fragment: the pitfall toggle reruns only this section.
@fragment
def masking_pitfall() -> None:
    if not mask_after_control(st.container()):
        st.caption(_(texts.PITFALL_OFF))
        return
    pit_code = cope_snippet(s, part="pitfall", n=n, custom=cl)
    leak = data(cope_query.future_gate_sum, **toy, query=s.query)
    st.warning(leak_note(s.query, leak, s.npos_max), icon=":material/warning:")
    show_figure(
        chart(cope_pitfall.pitfall, **toy, lecture=lecture),
        name="cope_pitfall",
        alt=_("Positions with the mask before and after the gates."),
        code=pit_code + "# " + N_("the figure: pos[:, cols] and pos_wrong[:, cols]") + "\n",
    )
    show_figure(
        chart(cope_pitfall.pitfall_difference, **toy, lecture=lecture),
        name="cope_pitfall_difference",
        alt=_("Heatmap of wrong minus right positions."),
        code=pit_code + "# " + N_("the figure: leak[:, cols]") + "\n",
    )


masking_pitfall()

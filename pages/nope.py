"""NoPE: position from the causal mask alone, the NoPE layers of shipped models, and dropping RoPE (DroPE)."""

from posviz.figures import nope
from posviz.i18n import _
from posviz.ui.cache import chart
from posviz.ui.chrome import page_header, prose, section
from posviz.ui.controls import lecture_mode
from posviz.ui.exports import show_figure
from posviz.ui.nope import texts
from posviz.ui.nope.settings import DROPE_LEN, NopeSettings
from posviz.ui.nope.snippets import page_snippets
from posviz.ui.settings import read_settings

s = read_settings(NopeSettings)
lecture = lecture_mode()
page_header(
    _("NoPE: no position encoding, and dropping RoPE"), _("Kazemnejad et al. 2023 · Gelberg et al. 2025 (DroPE)")
)
prose(_(texts.INTRO), label=_("What NoPE is"))

codes = page_snippets(s, drope_len=DROPE_LEN)
section("1 · The causal mask counts")
prose(_(texts.COUNTING))
show_figure(
    chart(nope.marker, length=s.seq_len, lecture=lecture),
    name="nope_marker",
    code=codes["nope_marker"],
    alt=_("Causal attention with equal scores: row t holds 1/t on each of its t keys."),
)

section("2 · What a model without position cannot tell apart")
prose(_(texts.PERMUTATION))
show_figure(
    chart(nope.permutation, dim=s.dim, seed=s.seed, lecture=lecture),
    name="nope_permutation",
    code=codes["nope_permutation"],
    alt=_("Bars of each token's output change after reversing the sentence: zero without the mask, not with it."),
)

section("3 · NoPE layers in shipped models")
prose(_(texts.LAYERS))
show_figure(
    chart(nope.layers, lecture=lecture),
    name="nope_layers",
    code=codes["nope_layers"],
    alt=_("Layer strips of Llama 4, SmolLM3 and Cohere2: which layers rotate and which have no position term."),
)
prose(_(texts.TEMPERATURE))
show_figure(
    chart(nope.temperature, lecture=lecture),
    name="nope_temperature",
    code=codes["nope_temperature"],
    alt=_("Llama 4's query scale against position on a log axis: 1 up to 8191, then rising in steps."),
)

section("4 · DroPE: dropping RoPE after training")
prose(_(texts.DROPE))
show_figure(
    chart(nope.drope, dim=s.dim, base=s.base, length=DROPE_LEN, seed=s.seed, lecture=lecture),
    name="nope_drope",
    code=codes["nope_drope"],
    alt=_("Mean attention against distance on log axes, with RoPE and with RoPE dropped."),
)

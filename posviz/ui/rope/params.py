"""The RoPE page's own URL parameters; the scaling controls are derived from the registry.

Each scaling method's own options, their order, Hugging Face defaults, ranges and words come from
``posviz.encodings.rope_scaling.ROPE_SCALING``; this module turns them into controls, with 0
shown for an option Hugging Face leaves unset (None).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from posviz.encodings.rope_scaling import METHODS, ROPE_SCALING, Option
from posviz.i18n import N_
from posviz.ui.params import MAX_CURVE_LEN, Param

UNSET = 0.0  # a number field's value for an option Hugging Face leaves unset (None)
PAGE_OPTIONS = ("seq_len",)  # options the page reads from its own controls, not the method's

M = Param("m", N_("Position m"), "int", 2, "number", min=0, max=MAX_CURVE_LEN - 1, step=1, help=N_("Query position."))
N = Param("n", N_("Position n"), "int", 5, "number", min=0, max=MAX_CURVE_LEN - 1, step=1, help=N_("Key position."))
METHOD = Param(
    "method",
    N_("Scaling method"),
    "choice",
    METHODS[0],
    "radio",
    options=METHODS,
    option_labels={t: ROPE_SCALING[t].label for t in METHODS},
    help=N_("Context-extension method, as Hugging Face rope_type."),
)
FACTOR = Param(
    "factor",
    N_("Scaling factor"),
    "float",
    4.0,
    "number",
    min=1.0,
    max=256.0,
    step=0.25,
    help=N_("How many times longer the new context is than the original one."),
)
ORIGINAL_MAX_POSITION = Param(
    "original_max_position",
    N_("Original context original_max_position"),
    "int",
    4096,
    "number",
    min=16,
    max=MAX_CURVE_LEN,
    step=1,
    help=N_("The context length the model was trained on (max_position_embeddings for dynamic)."),
)


def _param(o: Option) -> Param:
    """A method's option as a control: a toggle, or a number box where 0 means unset (label and help as the
    registry writes them, marked there for the catalogue; the help names the method first)."""
    label, help = o.label or o.name, o.help
    if isinstance(o.default, bool):
        return Param(o.name, label, "bool", o.default, "toggle", help=help)
    lo, hi = o.bounds or (UNSET, UNSET)
    default = UNSET if o.default is None else float(o.default)
    return Param(o.name, label, "float", default, "number", min=lo, max=hi, step=o.step, help=help)


# Every method's own options on the page, by URL key, in the registry's order.
OPTION_PARAMS: dict[str, Param] = {
    o.name: _param(o) for t in METHODS for o in ROPE_SCALING[t].options if o.name not in PAGE_OPTIONS
}
METHOD_CONTROLS: dict[str, tuple[str, ...]] = {
    t: ROPE_SCALING[t].reads + tuple(o.name for o in ROPE_SCALING[t].options if o.name not in PAGE_OPTIONS)
    for t in METHODS
}


def method_options(method: str, values: Mapping[str, Any], seq_len: int | None) -> dict[str, Any]:
    """``method``'s own options for ``rope_scaling`` from the page's values (a 0 for an unset option is None)."""
    out = {}
    for o in ROPE_SCALING[method].options:
        if o.name == "seq_len":
            out[o.name] = seq_len
        else:
            value = values[o.name]
            out[o.name] = None if o.default is None and not value else value
    return out

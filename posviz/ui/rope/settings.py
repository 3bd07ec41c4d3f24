"""The RoPE page's settings (defaults written once, in the parameters), the chosen method's options, and rules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import make_dataclass
from typing import Any

from posviz.encodings.rope import LAYOUTS
from posviz.encodings.rope_scaling import ScalingOptions, rope_scaling
from posviz.i18n import N_, _
from posviz.ui.params import PARAMS
from posviz.ui.rope.params import (
    FACTOR,
    METHOD,
    METHOD_CONTROLS,
    OPTION_PARAMS,
    ORIGINAL_MAX_POSITION,
    M,
    N,
    method_options,
)
from posviz.ui.settings import Values, setting


def _shown(key: str) -> Callable[[Values], bool]:
    """``when`` of a scaling option: drawn only for the methods that use it (otherwise it keeps its default)."""

    def when(v: Values) -> bool:
        return key in METHOD_CONTROLS[v["method"]]

    return when


_TYPES = {"int": int, "float": float, "bool": bool}

# Everything that determines the RoPE page's tensors, in sidebar order; hidden options keep their defaults.
# The scaling methods' own options are fields too, one per option in the registry (ROPE_SCALING).
RopeSettings = make_dataclass(
    "RopeSettings",
    [
        ("dim", int, setting(PARAMS["dim"], section=N_("Vectors and positions"))),
        ("base", float, setting(PARAMS["base"])),
        ("layout", str, setting(PARAMS["layout"], options=LAYOUTS)),
        ("m", int, setting(M)),
        ("n", int, setting(N)),
        ("seq_len", int, setting(PARAMS["seq_len"], default=16384)),
        ("seed", int, setting(PARAMS["seed"])),
        ("method", str, setting(METHOD, section=N_("Context extension"))),
        ("factor", float, setting(FACTOR, when=_shown("factor"))),
        ("original_max_position", int, setting(ORIGINAL_MAX_POSITION, when=_shown("original_max_position"))),
        *((key, _TYPES[p.kind], setting(p, when=_shown(key))) for key, p in OPTION_PARAMS.items()),
    ],
    frozen=True,
    namespace={"__module__": __name__, "__doc__": "The RoPE page's settings, in sidebar order."},
)


def scaling_options(s: Any) -> ScalingOptions:
    """The chosen method's own options (a ``RopeSettings``'s), under their Hugging Face names, sorted: the page's
    0 for an unset option is None, and dynamic NTK's ``seq_len`` is the page's."""
    values = {key: getattr(s, key) for key in OPTION_PARAMS}
    return tuple(sorted(method_options(s.method, values, s.seq_len).items()))


def problem(s: Any) -> str | None:
    """The first rule the settings (a ``RopeSettings``) break, as a message naming the fix; None if fine."""
    try:
        rope_scaling(
            s.method,
            s.dim,
            base=s.base,
            factor=s.factor,
            original_max_position=s.original_max_position,
            **dict(scaling_options(s)),
        )
    except ValueError as err:
        return _("{problem} Change the {method} settings in the sidebar.").format(problem=err, method=s.method)
    return None

"""The RoPE page's own URL parameters, and which scaling method shows which.

Each method's own options, their order and their Hugging Face defaults come
from ``posviz.encodings.rope`` (the reference's); this module adds how the page
shows them: labels, ranges, and 0 for an option Hugging Face leaves unset.
"""

from __future__ import annotations

from typing import Any

from posviz.encodings.rope import LLAMA3_DEFAULTS, METHOD_OPTIONS, METHODS, YARN_DEFAULTS
from posviz.ui.params import MAX_CURVE_LEN, Param

UNSET = 0.0  # a number field's value for an option Hugging Face leaves unset (None)


def _hf(name: str) -> Any:
    """The page's default of a scaling option: Hugging Face's, with ``None`` (unset) shown as 0."""
    value = {**YARN_DEFAULTS, **LLAMA3_DEFAULTS}[name]
    return UNSET if value is None else value


M = Param("m", "Position m", "int", 2, "number", min=0, max=MAX_CURVE_LEN - 1, step=1, help="Query position.")
N = Param("n", "Position n", "int", 5, "number", min=0, max=MAX_CURVE_LEN - 1, step=1, help="Key position.")
METHOD = Param(
    "method",
    "Scaling method",
    "choice",
    METHODS[0],
    "radio",
    options=METHODS,
    option_labels={
        "default": "no scaling",
        "linear": "position interpolation",
        "dynamic": "dynamic NTK",
        "yarn": "YaRN",
        "llama3": "Llama 3.1",
    },
    help="Context-extension method, as Hugging Face rope_type.",
)
FACTOR = Param(
    "factor",
    "Scaling factor",
    "float",
    4.0,
    "number",
    min=1.0,
    max=256.0,
    step=0.25,
    help="How many times longer the new context is than the original one.",
)
ORIGINAL_MAX_POSITION = Param(
    "original_max_position",
    "Original context original_max_position",
    "int",
    4096,
    "number",
    min=16,
    max=MAX_CURVE_LEN,
    step=1,
    help="The context length the model was trained on (max_position_embeddings for dynamic).",
)
BETA_FAST = Param(
    "beta_fast",
    "beta_fast (turns)",
    "float",
    _hf("beta_fast"),
    "number",
    min=0.25,
    max=4096.0,
    step=0.25,
    help="YaRN: pairs that turn more often than this inside the original context are kept.",
)
BETA_SLOW = Param(
    "beta_slow",
    "beta_slow (turns)",
    "float",
    _hf("beta_slow"),
    "number",
    min=0.25,
    max=4096.0,
    step=0.25,
    help="YaRN: pairs that turn fewer times than this inside the original context are interpolated.",
)
MSCALE = Param(
    "mscale",
    "mscale",
    "float",
    _hf("mscale"),
    "number",
    min=0.0,
    max=10.0,
    step=0.001,
    help="YaRN (DeepSeek): with mscale_all_dim, the attention factor is a ratio; 0 means unset.",
)
MSCALE_ALL_DIM = Param(
    "mscale_all_dim",
    "mscale_all_dim",
    "float",
    _hf("mscale_all_dim"),
    "number",
    min=0.0,
    max=10.0,
    step=0.001,
    help="YaRN (DeepSeek): see mscale; 0 means unset.",
)
ATTENTION_FACTOR = Param(
    "attention_factor",
    "attention_factor",
    "float",
    _hf("attention_factor"),
    "number",
    min=0.0,
    max=10.0,
    step=0.001,
    help="YaRN: multiplies cos and sin; 0 means unset (computed from factor).",
)
TRUNCATE = Param(
    "truncate",
    "truncate",
    "bool",
    _hf("truncate"),
    "toggle",
    help="YaRN: round the ramp's ends to whole pairs (floor and ceil), as the reference does.",
)
LOW_FREQ_FACTOR = Param(
    "low_freq_factor",
    "low_freq_factor",
    "float",
    _hf("low_freq_factor"),
    "number",
    min=0.25,
    max=1024.0,
    step=0.25,
    help="llama3: wavelengths above original_max_position / low_freq_factor are divided by factor.",
)
HIGH_FREQ_FACTOR = Param(
    "high_freq_factor",
    "high_freq_factor",
    "float",
    _hf("high_freq_factor"),
    "number",
    min=0.25,
    max=1024.0,
    step=0.25,
    help="llama3: wavelengths below original_max_position / high_freq_factor are kept.",
)


def _controls(method: str) -> tuple[str, ...]:
    """The options a method shows, in the Hugging Face order: ``factor`` and the context it extends, then its own
    (``seq_len``, dynamic's, is the page's own control)."""
    shared = {"default": (), "linear": ("factor",)}.get(method, ("factor", "original_max_position"))
    return shared + tuple(key for key in METHOD_OPTIONS[method] if key != "seq_len")


METHOD_CONTROLS: dict[str, tuple[str, ...]] = {method: _controls(method) for method in METHODS}

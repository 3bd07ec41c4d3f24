"""Reading a Hugging Face config.json safely: typed fields, their defaults per ``model_type``, hard caps.

A config.json is untrusted input. Every field posviz reads goes through :class:`Fields`, which
checks its type and range and raises ``ValueError`` naming the field (``rope_scaling.factor``)
before anything is allocated; fields posviz does not read are never looked at.

A config.json writes only the values that differ from its config class's defaults, so a missing
field takes the default of that ``model_type``'s class in ``transformers`` (:data:`DEFAULTS`).
"""

from __future__ import annotations

import math
from typing import Any

from posviz.i18n import _

MAX_LAYERS = 1024  # the deepest public checkpoints have a few hundred layers
MAX_CONTEXT = 2**30  # tokens; Llama 4 Scout's 10,485,760 fits with room to spare
MAX_HEADS = 4096
MAX_WIDTH = 2**20  # hidden_size, head_dim
MAX_BASE = 1e15
MAX_FACTOR = 2.0**20
MAX_LIST = 4096  # longest list read (layer_types, long_factor, ...)

_MISSING = object()

_SEQ2SEQ = dict(
    d_model=1024, encoder_layers=12, decoder_layers=12, encoder_attention_heads=16, max_position_embeddings=1024
)

# Position-relevant defaults of the config classes posviz still reads field by field: the models
# without RoPE (learned tables, sinusoidal, T5 buckets, ALiBi). Every RoPE model is read by
# transformers' own configuration class instead (model_hf).
DEFAULTS: dict[str, dict[str, Any]] = {
    "falcon": dict(hidden_size=4544, num_attention_heads=71, num_hidden_layers=32, max_position_embeddings=2048),
    "gpt2": dict(n_positions=1024, n_embd=768, n_layer=12, n_head=12),
    "bert": dict(hidden_size=768, num_attention_heads=12, num_hidden_layers=12, max_position_embeddings=512),
    "roberta": dict(hidden_size=768, num_attention_heads=12, num_hidden_layers=12, max_position_embeddings=512),
    "opt": dict(hidden_size=768, num_attention_heads=12, num_hidden_layers=12, max_position_embeddings=2048),
    "t5": dict(d_model=512, num_layers=6, num_heads=8, relative_attention_num_buckets=32),
    "mt5": dict(d_model=512, num_layers=8, num_heads=6, relative_attention_num_buckets=32),
    "umt5": dict(d_model=512, num_layers=8, num_heads=6, relative_attention_num_buckets=32),
    "bloom": dict(hidden_size=64, n_layer=2, n_head=8),
    "mpt": dict(d_model=2048, n_heads=16, n_layers=24, max_seq_len=2048),
    "marian": _SEQ2SEQ,
    "fsmt": _SEQ2SEQ,
}  # fmt: skip


def _is_number(x: object) -> bool:
    """A finite JSON number (bools, text, NaN, infinities and ints past float range are not)."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:  # an int of hundreds of digits
        return False


def show(value: object) -> str:
    """A short, safe rendering of an untrusted value for an error message."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return _("a number of about {digits} digits").format(digits=int(value.bit_length() * 0.30103))
    if isinstance(value, dict | list):
        return _("a JSON object") if isinstance(value, dict) else _("a JSON list")
    return f"{value!r:.60}"


class Fields:
    """Typed, range-checked access to one JSON object of a config (``where`` prefixes its field names)."""

    def __init__(self, data: object, where: str = "", defaults: dict[str, Any] | None = None):
        if not isinstance(data, dict):
            raise ValueError(
                _("{field} must be a JSON object, got {type}.").format(
                    field=where.rstrip(".") or _("the config"), type=type(data).__name__
                )
            )
        self.data, self.where, self.defaults = data, where, defaults or {}

    def name(self, key: str) -> str:
        return f"{self.where}{key}"

    def raw(self, key: str, default: object = None) -> object:
        """The value as written, else the class default, else ``default``; JSON null counts as unset."""
        value = self.data.get(key, _MISSING)
        if value is _MISSING or value is None:
            value = self.defaults.get(key, default)
        return value

    def given(self, key: str) -> bool:
        """True when the config itself writes a non-null value (class defaults do not count)."""
        return self.data.get(key) is not None

    def number(
        self, key: str, default: float | None = None, *, lo: float, hi: float, above: bool = False
    ) -> float | None:
        value = self.raw(key, default)
        if value is None:
            return None
        if not _is_number(value):
            raise ValueError(
                _("{field} must be a number, got {value}.").format(field=self.name(key), value=show(value))
            )
        if value < lo or (above and value == lo) or value > hi:
            said = (
                _("{field} must be greater than {lo:g} and at most {hi:g}, got {value:g}.")
                if above
                else _("{field} must be at least {lo:g} and at most {hi:g}, got {value:g}.")
            )
            raise ValueError(said.format(field=self.name(key), lo=lo, hi=hi, value=value))
        return float(value)

    def integer(self, key: str, default: int | None = None, *, lo: int = 1, hi: int, cap: str = "") -> int | None:
        value = self.raw(key, default)
        if value is None:
            return None
        if not _is_number(value) or value != int(value):
            raise ValueError(
                _("{field} must be a whole number, got {value}.").format(field=self.name(key), value=show(value))
            )
        if not lo <= value <= hi:
            why = f" ({_(cap).format(hi=hi)})" if cap else ""  # cap: a marked text, {hi} the upper bound
            raise ValueError(
                _("{field} must lie between {lo} and {hi}{why}, got {value:g}.").format(
                    field=self.name(key), lo=lo, hi=hi, why=why, value=value
                )
            )
        return int(value)

    def flag(self, key: str, default: bool) -> bool:
        value = self.raw(key, default)
        if not isinstance(value, bool):
            raise ValueError(
                _("{field} must be true or false, got {value}.").format(field=self.name(key), value=show(value))
            )
        return value

    def text(self, key: str, default: str | None = None) -> str | None:
        value = self.raw(key, default)
        if value is not None and not isinstance(value, str):
            raise ValueError(
                _("{field} must be a string, got {value}.").format(field=self.name(key), value=show(value))
            )
        return value

    def items(self, key: str, length: int | None = None) -> list | None:
        """A JSON list, length-checked before any element is read (``length`` None: any up to MAX_LIST)."""
        value = self.raw(key)
        if value is None:
            return None
        if not isinstance(value, list):
            raise ValueError(_("{field} must be a list, got {value}.").format(field=self.name(key), value=show(value)))
        if len(value) > MAX_LIST or (length is not None and len(value) != length):
            want = (
                _("{n} entries").format(n=length) if length is not None else _("at most {n} entries").format(n=MAX_LIST)
            )
            raise ValueError(
                _("{field} must have {want}, got {n}.").format(field=self.name(key), want=want, n=len(value))
            )
        return value

    def numbers(self, key: str, length: int | None = None) -> list[float] | None:
        value = self.items(key, length)
        if value is None:
            return None
        for i, x in enumerate(value):
            if not _is_number(x) or x <= 0 or x > MAX_FACTOR:
                raise ValueError(
                    _("{field}[{i}] must be a positive number, got {value}.").format(
                        field=self.name(key), i=i, value=show(x)
                    )
                )
        return [float(x) for x in value]

    def sub(self, key: str) -> Fields | None:
        """A nested object (``rope_scaling``, ``attn_config``) as Fields, or None when absent or null."""
        value = self.raw(key)
        if value is None:
            return None
        return Fields(value, where=f"{self.name(key)}.")

"""A real model's RoPE settings per attention kind, read from its config.json as ``transformers`` reads them.

Hugging Face ``RotaryEmbeddingConfigMixin.standardize_rope_params``: the parameters sit in
``rope_scaling`` (older files) or ``rope_parameters`` (newer), possibly keyed by layer type
(``full_attention``, ``sliding_attention``); ``rope_type`` was once spelled ``type``; ``rope_theta``
and ``partial_rotary_factor`` may sit beside them at the top level. Gemma 3 keeps two: its full
layers use ``rope_theta`` with ``rope_scaling``, its sliding layers ``rope_local_base_freq`` unscaled.
Two spellings of one fact that disagree are refused rather than silently resolved.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from posviz.encodings.model_fields import MAX_BASE, MAX_CONTEXT, MAX_FACTOR, Fields, show
from posviz.encodings.rope import rope_inv_freq
from posviz.encodings.rope_scaling import ALL_METHODS, mla_head_dims, mla_softmax_scale, rope_scaling, rotary_dim

MAX_HEAD_DIM = 8192
KIND_KEYS = {"full": "full_attention", "sliding": "sliding_attention", "chunked": "chunked_attention"}
SCALED = ("llama3", "yarn", "longrope")  # the types that scale from original_max_position_embeddings
MLA = ("deepseek_v2", "deepseek_v3")


@dataclass(frozen=True)
class RopeSpec:
    """Everything that fixes one attention kind's rotary frequencies."""

    rope_type: str  # a method of rope_scaling: default, linear, dynamic, yarn, llama3, longrope
    base: float  # rope_theta
    head_dim: int  # query/key components per head (DeepSeek: qk_nope_head_dim + qk_rope_head_dim)
    rotary_dim: int  # the components that rotate (rotary_dim // 2 pairs)
    factor: float  # 1.0 for default
    original_max_position: int  # L, the context the method scales from
    max_position: int  # max_position_embeddings
    options: tuple[tuple[str, object], ...] = ()  # the method's own options; lists as tuples
    layout: str = "half"  # "half" (rotate_half) or "interleaved" (DeepSeek's rope_interleave)
    softmax_scale_factor: float = 1.0  # DeepSeek's mscale**2 on the softmax scale

    @property
    def not_rotated(self) -> int:
        return self.head_dim - self.rotary_dim

    @property
    def trained_context(self) -> int | None:
        """The context the frequencies were trained at; None for linear (only the extended one is known)."""
        return None if self.rope_type == "linear" else self.original_max_position

    @property
    def extended_context(self) -> int:
        """How far the config says the model reads: max_position_embeddings, or factor * L for YaRN past it."""
        if self.rope_type == "yarn":
            return max(self.max_position, round(self.factor * self.original_max_position))
        return self.max_position

    def inv_freq(self, seq_len: int | None = None) -> tuple[torch.Tensor, float]:
        """``(inv_freq (rotary_dim/2,) float64, attention_factor)`` at ``seq_len`` (dynamic and longrope use it)."""
        opts = {k: list(v) if isinstance(v, tuple) else v for k, v in self.options}
        if self.rope_type in ("dynamic", "longrope"):
            opts["seq_len"] = seq_len
        return rope_scaling(
            self.rope_type,
            self.rotary_dim,
            base=self.base,
            factor=self.factor,
            original_max_position=self.original_max_position,
            lenient=True,
            **opts,
        )

    def default_inv_freq(self) -> torch.Tensor:
        """The unscaled frequencies of the same pairs: (rotary_dim/2,) float64."""
        return rope_inv_freq(self.rotary_dim, base=self.base)


def _one(top: Fields, d: Fields, key: str, top_key: str, number_args: dict) -> float | None:
    """A value that may sit inside the RoPE dict or at the top level; both given and different is refused."""
    inner = d.number(key, **number_args) if d.given(key) else None
    outer = top.number(top_key, **number_args)
    if inner is not None and top.given(top_key) and not math.isclose(inner, outer, rel_tol=1e-9):
        raise ValueError(f"{d.name(key)} ({inner:g}) and {top_key} ({outer:g}) disagree: give one of them.")
    return inner if inner is not None else outer


def _rope_type(d: Fields, model_type: str) -> tuple[str, str | None]:
    new, old = d.text("rope_type"), d.text("type")
    if new is not None and old is not None and new != old:
        raise ValueError(f"{d.name('rope_type')} ({new!r}) and {d.name('type')} ({old!r}) disagree.")
    t = new or old or "default"
    note = None
    if t == "su" or (model_type == "phi3" and t == "yarn"):  # Phi-3's older names for longrope
        note, t = f"{d.name('type')} {t!r} is Phi-3's older name for longrope.", "longrope"
    elif t == "mrope":  # text tokens carry one position on all three M-RoPE axes: plain RoPE
        note, t = "mrope (Qwen2-VL) turns text tokens exactly as default RoPE does.", "default"
    if t not in ALL_METHODS:
        raise ValueError(f"{d.name('rope_type')} {t!r:.40} is not a RoPE type posviz knows: {', '.join(ALL_METHODS)}.")
    return t, note


def _options(d: Fields, t: str, pairs: int) -> dict:
    pos = dict(lo=0.0, hi=MAX_FACTOR, above=True)
    if t == "yarn":
        return dict(
            beta_fast=d.number("beta_fast", **pos),
            beta_slow=d.number("beta_slow", **pos),
            mscale=d.number("mscale", lo=0.0, hi=MAX_FACTOR),
            mscale_all_dim=d.number("mscale_all_dim", lo=0.0, hi=MAX_FACTOR),
            attention_factor=d.number("attention_factor", **pos),
            truncate=d.flag("truncate", True),
        )
    if t == "llama3":
        for key in ("low_freq_factor", "high_freq_factor"):
            if not d.given(key):
                raise ValueError(f"llama3 scaling needs {d.name(key)}.")
        low, high = d.number("low_freq_factor", **pos), d.number("high_freq_factor", **pos)
        if low > high:
            raise ValueError(f"{d.name('low_freq_factor')} ({low:g}) must not exceed high_freq_factor ({high:g}).")
        return dict(low_freq_factor=low, high_freq_factor=high)
    if t == "longrope":
        lists = {key: d.numbers(key, length=pairs) for key in ("short_factor", "long_factor")}
        for key, value in lists.items():
            if value is None:
                raise ValueError(f"longrope needs {d.name(key)}: one number per pair ({pairs}).")
        return dict(**{k: tuple(v) for k, v in lists.items()}, attention_factor=d.number("attention_factor", **pos))
    return {}


def _head(top: Fields, d: Fields, model_type: str) -> tuple[int, int]:
    """``(head_dim, rotary_dim)``: partial rotary factor, GPT-NeoX's rotary_pct, or MLA's decoupled part."""
    if model_type in MLA:
        rope = top.integer("qk_rope_head_dim", lo=2, hi=MAX_HEAD_DIM)
        nope = top.integer("qk_nope_head_dim", lo=0, hi=MAX_HEAD_DIM)
        rotary, _, qk = mla_head_dims(nope, rope)
        return qk, rotary
    heads = top.integer("num_attention_heads", lo=1, hi=4096)
    head_dim = top.integer("head_dim", None, lo=2, hi=MAX_HEAD_DIM)
    if head_dim is None:
        head_dim = top.integer("hidden_size", lo=heads, hi=2**20) // heads
        if not 2 <= head_dim <= MAX_HEAD_DIM:
            raise ValueError(f"hidden_size / num_attention_heads gives head_dim {head_dim}: it must lie in [2, 8192].")
    frac = dict(lo=0.0, hi=1.0, above=True)
    if model_type == "gpt_neox":
        partial = _one(top, d, "partial_rotary_factor", "rotary_pct", frac)
    else:
        partial = _one(top, d, "partial_rotary_factor", "partial_rotary_factor", frac)
    try:
        return head_dim, rotary_dim(head_dim, 1.0 if partial is None else partial)
    except ValueError as e:
        raise ValueError(f"partial_rotary_factor: {e}") from e


def rope_spec(top: Fields, d: Fields, model_type: str, *, max_position: int, theta_key: str = "rope_theta") -> RopeSpec:
    """One attention kind's :class:`RopeSpec` from its RoPE dict ``d`` and the config's top level ``top``."""
    t, _ = _rope_type(d, model_type)
    base_key = "rotary_emb_base" if model_type == "gpt_neox" else theta_key
    base = _one(top, d, "rope_theta", base_key, dict(lo=1.0, hi=MAX_BASE, above=True))
    base = 10000.0 if base is None else base
    head_dim, rdim = _head(top, d, model_type)
    ctx = dict(lo=1, hi=MAX_CONTEXT, cap="2^30 tokens at most")
    big_l = max_position
    if t in SCALED:
        inner = d.integer("original_max_position_embeddings", None, **ctx)
        outer = top.integer("original_max_position_embeddings", None, **ctx)
        if inner is not None and top.given("original_max_position_embeddings") and inner != outer:
            raise ValueError(
                f"{d.name('original_max_position_embeddings')} ({inner}) and original_max_position_embeddings "
                f"({outer}) disagree: give one of them."
            )
        big_l = outer if model_type == "phi3" and outer is not None else (inner or max_position)
    factor = d.number("factor", None, lo=1.0, hi=MAX_FACTOR)
    if factor is None and t not in ("default", "longrope"):
        raise ValueError(f"{t} scaling needs {d.name('factor')} (how many times longer the new context is).")
    if factor is None:
        factor = max(1.0, max_position / big_l) if t == "longrope" else 1.0
    opts = _options(d, t, rdim // 2)
    interleaved = model_type == "deepseek_v2" or (model_type == "deepseek_v3" and top.flag("rope_interleave", True))
    softmax = 1.0
    if model_type in MLA and t == "yarn":
        softmax = mla_softmax_scale(1, factor=factor, mscale_all_dim=opts["mscale_all_dim"])
    spec = RopeSpec(
        rope_type=t,
        base=base,
        head_dim=head_dim,
        rotary_dim=rdim,
        factor=factor,
        original_max_position=big_l,
        max_position=max_position,
        options=tuple(sorted(opts.items())),
        layout="interleaved" if interleaved else "half",
        softmax_scale_factor=softmax,
    )
    try:
        spec.inv_freq()  # every rule rope_scaling checks, now, with the field named
    except ValueError as e:
        raise ValueError(f"{d.where.rstrip('.') or 'RoPE'}: {e}") from e
    return spec


def rope_dicts(top: Fields, model_type: str, kinds: set[str]) -> tuple[dict[str, Fields | None], list[str]]:
    """The RoPE dict of each attention kind (None: that kind has no RoPE), and notes.

    Returns:
        ``({kind: Fields or None}, notes)`` for every kind in ``kinds``.
    """
    scaling, params = top.raw("rope_scaling"), top.raw("rope_parameters")
    for key, value in (("rope_scaling", scaling), ("rope_parameters", params)):
        if value is not None and not isinstance(value, dict):
            raise ValueError(f"{key} must be a JSON object or null, got {show(value)}.")
    notes = []
    if model_type == "gemma3_text":  # Gemma3TextConfig.convert_rope_params_to_dict
        params = params or {}
        full = dict(params.get("full_attention") or {"rope_type": "default"}, **(scaling or {}))
        sliding = dict(params.get("sliding_attention") or {"rope_type": "default"})
        where = "rope_scaling." if scaling else "rope_parameters.full_attention."
        return {
            "full": Fields(full, where),
            "sliding": Fields(sliding, "rope_parameters.sliding_attention."),
            "chunked": Fields({}, ""),
        }, notes
    if scaling and params and scaling != params:
        raise ValueError("rope_scaling and rope_parameters are both given and disagree: give one of them.")
    chosen, where = (scaling, "rope_scaling") if scaling else (params or {}, "rope_parameters")
    nested = [key for key in chosen if key in KIND_KEYS.values()]
    if not nested:
        return {kind: Fields(chosen, f"{where}.") for kind in kinds}, notes
    out = {}
    for kind in kinds:
        key = KIND_KEYS[kind]
        if key not in chosen:
            raise ValueError(f"{where} is keyed by layer type but has no entry for {key}.")
        out[kind] = None if chosen[key] is None else Fields(chosen[key], f"{where}.{key}.")
        if chosen[key] is None:
            notes.append(f"{where}.{key} is null: those layers use no position encoding (NoPE).")
    return out, notes

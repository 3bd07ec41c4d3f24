"""A real model's RoPE settings per layer kind, from the ``rope_parameters`` transformers standardised.

transformers' configuration class (see model_hf) has already resolved the spellings
(``rope_scaling`` / ``rope_parameters``, ``type`` / ``rope_type``, top-level ``rope_theta``) into one
dict per layer kind; this module reads that dict with ``modeling_rope_utils``' semantics
(``dim = int(head_dim * partial_rotary_factor)``) and computes the frequencies with posviz's own
readable implementations (rope_scaling, and :func:`proportional_inv_freq` here), tested equal to
transformers' rotary modules over the whole zoo (tools/zoo.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from posviz.encodings.model_fields import MAX_BASE, MAX_CONTEXT, MAX_FACTOR, Fields
from posviz.encodings.rope import rope_inv_freq
from posviz.encodings.rope_scaling import ALL_METHODS, mla_softmax_scale, rope_scaling
from posviz.i18n import N_, _

MAX_HEAD_DIM = 8192
SCALED = ("llama3", "yarn", "longrope")  # the types that scale from original_max_position_embeddings


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
    mla: bool = False  # multi-head latent attention: the rotary part is decoupled from the rest of the head

    @property
    def turning_pairs(self) -> int:
        """Pairs that rotate: proportional RoPE keeps ``head_dim / 2`` pairs but turns only the first ones."""
        if self.rope_type == "proportional":
            return int(dict(self.options)["partial_rotary_factor"] * self.head_dim // 2)
        return (self.rotary_dim + 1) // 2

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
        if self.rope_type == "proportional":
            inv = proportional_inv_freq(
                self.head_dim, opts["partial_rotary_factor"], base=self.base, factor=self.factor
            )
            return inv, 1.0
        if self.rotary_dim % 2:  # an odd rotary size: only default and linear get here
            return _inv_freq_odd(self.rotary_dim, self.base) / self.factor, 1.0
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
        if self.rotary_dim % 2:
            return _inv_freq_odd(self.rotary_dim, self.base)
        return rope_inv_freq(self.rotary_dim, base=self.base)


def _inv_freq_odd(dim: int, base: float) -> torch.Tensor:
    """``base ** (-arange(0, dim, 2) / dim)``, also for an odd ``dim`` (a partial factor's int()), as transformers."""
    return base ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)


def proportional_inv_freq(head_dim: int, partial_rotary_factor: float, *, base: float, factor: float = 1.0):
    """Proportional RoPE (Gemma 4's global layers), ``modeling_rope_utils._compute_proportional_rope_parameters``.

    Only the first ``int(partial_rotary_factor * head_dim // 2)`` pairs rotate, with the exponent
    running over the whole ``head_dim`` (so they turn exactly as in a full-width head); the other
    pairs get frequency 0: they never turn, yet keep their place in the head.

    Returns:
        (head_dim // 2,) float64, zeros after the rotating pairs, divided by ``factor``.
    """
    angles = int(partial_rotary_factor * head_dim // 2)
    rotated = base ** (-torch.arange(0, 2 * angles, 2, dtype=torch.float64) / head_dim)  # (angles,)
    return torch.cat([rotated, torch.zeros(head_dim // 2 - angles, dtype=torch.float64)]) / factor


def _options(d: Fields, t: str, pairs: int, truncate: bool) -> dict:
    pos = dict(lo=0.0, hi=MAX_FACTOR, above=True)
    if t == "yarn":
        return dict(
            beta_fast=d.number("beta_fast", lo=0.0, hi=MAX_FACTOR) or 32.0,
            beta_slow=d.number("beta_slow", lo=0.0, hi=MAX_FACTOR) or 1.0,
            mscale=d.number("mscale", lo=0.0, hi=MAX_FACTOR),
            mscale_all_dim=d.number("mscale_all_dim", lo=0.0, hi=MAX_FACTOR),
            attention_factor=d.number("attention_factor", **pos),
            truncate=truncate,
        )
    if t == "llama3":
        for key in ("low_freq_factor", "high_freq_factor"):
            if not d.given(key):
                raise ValueError(_("llama3 scaling needs {field}.").format(field=d.name(key)))
        low, high = d.number("low_freq_factor", **pos), d.number("high_freq_factor", **pos)
        if low > high:
            raise ValueError(
                _("{field} ({low:g}) must not exceed high_freq_factor ({high:g}).").format(
                    field=d.name("low_freq_factor"), low=low, high=high
                )
            )
        return dict(low_freq_factor=low, high_freq_factor=high)
    if t == "longrope":
        lists = {key: d.numbers(key, length=pairs) for key in ("short_factor", "long_factor")}
        for key, value in lists.items():
            if value is None:
                raise ValueError(
                    _("longrope needs {field}: one number per pair ({pairs}).").format(field=d.name(key), pairs=pairs)
                )
        return dict(**{k: tuple(v) for k, v in lists.items()}, attention_factor=d.number("attention_factor", **pos))
    return {}


@dataclass(frozen=True)
class Head:
    """The width of one layer kind's query/key heads, as the transformers config gives it."""

    head_dim: int  # what the RoPE functions read: ``head_dim``, else hidden_size // num_attention_heads
    qk_head_dim: int  # a query's width: head_dim, or MLA's qk_nope_head_dim + qk_rope_head_dim
    interleaved: bool = False  # pairs (0, 1), (2, 3), ...: DeepSeek's rope_interleave, Cohere's repeat_interleave
    mla: bool = False  # latent attention (kv_lora_rank): the rotary part is a decoupled slice of the head


def rope_spec(d: Fields, head: Head, model_type: str, *, max_position: int, truncate: bool = True) -> RopeSpec:
    """One layer kind's :class:`RopeSpec` from its standardised ``rope_parameters`` dict ``d`` (transformers').

    The semantics of ``modeling_rope_utils``: ``rope_theta`` and ``partial_rotary_factor`` inside the
    dict, ``dim = int(head_dim * partial_rotary_factor)``; dynamic scales from
    ``max_position_embeddings``, yarn / llama3 / longrope from ``original_max_position_embeddings``.
    """
    t = d.text("rope_type", "default")
    if t not in (*ALL_METHODS, "proportional"):
        raise ValueError(
            _("{field} {value} is not a RoPE type transformers 5.23 has.").format(
                field=d.name("rope_type"), value=f"{t!r:.40}"
            )
        )
    base = d.number("rope_theta", 10000.0, lo=1.0, hi=MAX_BASE, above=True)
    partial = d.number("partial_rotary_factor", 1.0, lo=0.0, hi=1.0, above=True)
    if head.head_dim < 2 or head.head_dim > MAX_HEAD_DIM:
        raise ValueError(
            _("head_dim must lie in [2, {most}], got {value}.").format(most=MAX_HEAD_DIM, value=head.head_dim)
        )
    rdim = head.head_dim if t == "proportional" else int(head.head_dim * partial)
    if rdim < 2:
        raise ValueError(
            _("{field}: gives {n} rotary components.").format(field=d.name("partial_rotary_factor"), n=rdim)
        )
    ctx = dict(lo=1, hi=MAX_CONTEXT, cap=N_("2^30 tokens at most"))
    big_l = max_position
    if t in SCALED:
        big_l = d.integer("original_max_position_embeddings", max_position, **ctx)
    factor = d.number("factor", None, lo=1.0 if t != "proportional" else 0.0, hi=MAX_FACTOR, above=t == "proportional")
    if factor is None and t not in ("default", "longrope", "yarn", "proportional"):
        raise ValueError(
            _("{method} scaling needs {field} (how many times longer the new context is).").format(
                method=t, field=d.name("factor")
            )
        )
    if factor is None:
        factor = max(1.0, max_position / big_l) if t in ("longrope", "yarn") else 1.0
    if rdim % 2 and t not in ("default", "linear"):
        raise ValueError(
            _("{field}: {method} RoPE needs an even rotary size, got {n}.").format(
                field=d.name("partial_rotary_factor"), method=t, n=rdim
            )
        )
    opts = _options(d, t, (rdim + 1) // 2, truncate)
    if t == "proportional":
        opts = {"partial_rotary_factor": partial}
    softmax = 1.0
    if head.qk_head_dim != head.head_dim and t == "yarn":  # MLA: the length correction on the softmax scale
        softmax = mla_softmax_scale(1, factor=factor, mscale_all_dim=opts["mscale_all_dim"])
    spec = RopeSpec(
        rope_type=t,
        base=base,
        head_dim=head.qk_head_dim,
        rotary_dim=rdim,
        factor=factor,
        original_max_position=big_l,
        max_position=max_position,
        options=tuple(sorted(opts.items())),
        layout="interleaved" if head.interleaved else "half",
        softmax_scale_factor=softmax,
        mla=head.mla,
    )
    try:
        spec.inv_freq()  # every rule rope_scaling checks, now, with the field named
    except ValueError as e:
        raise ValueError(f"{d.where.rstrip('.') or 'rope_parameters'}: {e}") from e
    return spec

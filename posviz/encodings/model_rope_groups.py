"""A real model's RoPE per attention kind: the kinds that share one RoPE, and its frequencies at a length.

A model's full, sliding and chunked layers may rotate with different bases or scalings (Gemma 3) or
with one shared RoPE (gpt-oss). :func:`rope_groups` gives one :class:`RopeGroup` per distinct RoPE.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from posviz.encodings.model_rope import RopeSpec
from posviz.encodings.models import ModelPositions
from posviz.i18n import _

TWO_PI = 2 * math.pi


def wavelengths(inv_freq: np.ndarray) -> np.ndarray:
    """Tokens per turn of each pair, ``2π / inv_freq``: (pairs,) float64, ``inf`` where a pair never turns."""
    with np.errstate(divide="ignore"):  # proportional RoPE's still pairs (θ = 0): infinite
        return TWO_PI / np.asarray(inv_freq, dtype=np.float64)


def never_turning(inv_freq: np.ndarray | torch.Tensor, context: int) -> np.ndarray:
    """The pairs whose wavelength exceeds ``context`` tokens: (m,) int64 indices into ``inv_freq`` (pairs,)."""
    return np.flatnonzero(wavelengths(np.asarray(inv_freq)) > context)


@dataclass(frozen=True)
class RopeGroup:
    """The attention kinds that share one RoPE, and its frequencies at a sequence length."""

    kinds: tuple[str, ...]
    layers: int  # layers with this RoPE
    spec: RopeSpec
    inv_freq: np.ndarray  # (pairs,) float64, radians per token, in effect at seq_len
    default: np.ndarray  # (pairs,) float64, unscaled RoPE of the same base
    attention_factor: float
    never: np.ndarray  # (m,) int64: pairs whose wavelength exceeds the extended context
    other: np.ndarray | None = None  # (pairs,) LongRoPE's other set of factors
    other_name: str = ""

    @property
    def label(self) -> str:
        """The group's name in the run's language: ``"full and sliding layers (24)"``."""
        return _("{kinds} layers ({count})").format(kinds=_(" and ").join(self.kinds), count=self.layers)


def reads_seq_len(mp: ModelPositions) -> bool:
    """Whether any of the model's RoPE methods depends on the sequence length (dynamic NTK, LongRoPE)."""
    return any(spec.rope_type in ("dynamic", "longrope") for _, spec in mp.ropes)


def rope_groups(mp: ModelPositions, seq_len: int | None) -> tuple[RopeGroup, ...]:
    """One :class:`RopeGroup` per distinct RoPE among the attention kinds, in the order full, sliding, chunked.

    ``seq_len`` is read only by the methods that read it (dynamic NTK, LongRoPE); None for the others.
    """
    groups: list[tuple[list[str], RopeSpec]] = []
    for kind, spec in mp.ropes:
        same = next((g for g in groups if g[1] == spec), None)
        if same:
            same[0].append(kind)
        else:
            groups.append(([kind], spec))
    out = []
    for kinds, spec in groups:
        inv, factor = mp.rope(kinds[0], seq_len)
        inv = inv.numpy()
        other, other_name = None, ""
        if spec.rope_type == "longrope":
            big_l = spec.original_max_position
            long = seq_len is not None and seq_len > big_l
            other = mp.rope(kinds[0], big_l if long else big_l + 1)[0].numpy()
            other_name = (
                _("short factors (≤ {tokens:,} tokens)") if long else _("long factors (> {tokens:,} tokens)")
            ).format(tokens=big_l)
        never = never_turning(inv, spec.extended_context)
        count = sum(1 for x in mp.layers if x.rope and x.attention in kinds)
        out.append(
            RopeGroup(
                tuple(kinds), count, spec, inv, spec.default_inv_freq().numpy(), float(factor), never, other, other_name
            )  # fmt: skip
        )
    return tuple(out)


def never_turning_count(spec: RopeSpec) -> int:
    """Pairs of ``spec``'s RoPE at its extended context whose wavelength exceeds that context."""
    inv = spec.inv_freq(spec.extended_context)[0]
    return len(never_turning(inv.numpy(), spec.extended_context))

"""Every compared scheme on one toy sequence, side by side (the compare page).

Every scheme gets the same seeded ``q``, ``k`` (identity projections, so the
absolute schemes add their vectors to ``q`` and ``k`` directly) and the same
mask. A runner (``run_<key>`` here for the first schemes posviz shipped with;
the later ones' as ``compare_run`` in their own modules) takes the :class:`Toy`
and returns the logits ``(L, L)`` and the position tensors it built, and, when
its attention is not the softmax of its logits, its weights ``(L, L)``
(stick-breaking: its logits are then ``log`` of its weights). Parameters are
made inside, as a model would hold them, so the bytes count them. The registry
(:mod:`posviz.schemes`, each scheme's ``compared``) names each runner. A
scheme's *position term* is what it changes in the logits:
``logits - q k^T / sqrt(d)``; a key whose logit is ``-inf`` (the scheme itself
attends nothing there) is masked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from posviz.encodings.alibi import alibi_bias
from posviz.encodings.attention import causal_mask, masked_softmax, toy_normal, toy_qk
from posviz.encodings.cope import (
    causal_logits,
    cope_gates,
    cope_position_logits,
    cope_positions,
    toy_position_embeddings,
)
from posviz.encodings.positions import all_positions
from posviz.encodings.rope import apply_rope
from posviz.encodings.shaw import shaw_index, shaw_scores, shaw_table
from posviz.encodings.sinusoidal import learned_table, sinusoidal_table
from posviz.encodings.t5 import t5_bias
from posviz.i18n import _
from posviz.schemes import BY_KEY, load

# Fixed per-scheme settings, each the scheme's usual default.
T5_BUCKETS, T5_MAX_DISTANCE, T5_HEADS = 32, 128, 8
SHAW_CLIP = 8
ALIBI_HEADS, ALIBI_HEAD = 8, 2  # head 3 of 8: m = 1/8
COPE_NPOS = 16


@dataclass(frozen=True)
class ToySettings:
    """What the toy sequence depends on."""

    seq_len: int
    dim: int
    base: float
    causal: bool
    seed: int


@dataclass(frozen=True)
class Toy:
    q: torch.Tensor  # (L, d)
    k: torch.Tensor  # (L, d)
    pos: torch.Tensor  # (L,)
    content: torch.Tensor  # (L, L) q k^T / sqrt(d)
    s: ToySettings


def toy(s: ToySettings) -> Toy:
    q, k = toy_qk(s.seq_len, s.seq_len, s.dim, generator=torch.Generator().manual_seed(s.seed))
    return Toy(q=q, k=k, pos=all_positions(s.seq_len), content=q @ k.T / math.sqrt(s.dim), s=s)


def _gen(s: ToySettings, offset: int) -> torch.Generator:
    return torch.Generator().manual_seed(s.seed + offset)


Run = tuple[torch.Tensor, list[torch.Tensor]]  # logits (L, L), the position tensors built (+ weights: see above)


def run_none(t: Toy) -> Run:
    return t.q @ t.k.T / math.sqrt(t.s.dim), []


def _added(t: Toy, pe: torch.Tensor) -> Run:
    q, k = t.q + pe, t.k + pe  # (L, d): the vector added to each token
    return q @ k.T / math.sqrt(t.s.dim), [pe]


def run_sinusoidal(t: Toy) -> Run:
    return _added(t, sinusoidal_table(t.pos, t.s.dim, base=t.s.base))


def run_learned(t: Toy) -> Run:
    # std sqrt(1/2): the same expected norm sqrt(d/2) as a sinusoidal row, so the two compare fairly
    return _added(t, learned_table(t.s.seq_len, t.s.dim, generator=_gen(t.s, 1), std=math.sqrt(0.5)))


def run_shaw(t: Toy) -> Run:
    table = shaw_table(SHAW_CLIP, t.s.dim, generator=_gen(t.s, 3))  # a^K
    index = shaw_index(t.pos, t.pos, clip=SHAW_CLIP)
    rel = shaw_scores(t.q, table, index)  # (L, L) q_i . a^K[index_ij]
    return (t.q @ t.k.T + rel) / math.sqrt(t.s.dim), [table, index, rel]


def run_t5(t: Toy) -> Run:
    table = toy_normal(T5_BUCKETS, T5_HEADS, generator=_gen(t.s, 2))  # nn.Embedding at init: N(0, 1)
    bias = t5_bias(table, t.pos, t.pos, bidirectional=not t.s.causal, max_distance=T5_MAX_DISTANCE)[0]  # head 0
    return t.q @ t.k.T / math.sqrt(t.s.dim) + bias, [table, bias]


def run_rope(t: Toy) -> Run:
    q, k = apply_rope(t.q, t.pos, base=t.s.base), apply_rope(t.k, t.pos, base=t.s.base)
    return q @ k.T / math.sqrt(t.s.dim), [q, k]


def run_alibi(t: Toy) -> Run:
    bias = alibi_bias(t.pos, t.pos, ALIBI_HEADS, causal=t.s.causal)[ALIBI_HEAD]
    return t.q @ t.k.T / math.sqrt(t.s.dim) + bias, [bias]


def run_cope(t: Toy) -> Run:
    emb = toy_position_embeddings(t.s.dim, COPE_NPOS, generator=_gen(t.s, 4))  # e[p] as columns
    content = t.q @ t.k.T / math.sqrt(t.s.dim)
    gates = cope_gates(causal_logits(content, t.pos, t.pos))  # always causal: counts keys up to the query
    positions = cope_positions(gates, npos_max=COPE_NPOS)
    z = cope_position_logits(t.q, emb, positions)  # (L, L) interpolated q_i . e[p_ij]
    return content + z, [emb, gates, positions, z]


@dataclass(frozen=True)
class Comparison:
    """Every scheme's position term and attention on the toy sequence, in the order asked for."""

    positions: torch.Tensor  # (L,)
    terms: torch.Tensor  # (schemes, L, L) float32, logits - content; NaN where masked
    weights: torch.Tensor  # (schemes, L, L) float32
    mask: torch.Tensor  # (L, L) bool, True where masked (the causal setting)
    nbytes: list[int]  # bytes of the position tensors each scheme built
    term_scale: float  # max |term| over every scheme, 1.0 when none is finite


def compare_schemes(
    keys: tuple[str, ...], *, seq_len: int, dim: int, base: float, causal: bool, seed: int
) -> Comparison:
    """Run each scheme of ``keys`` (registry keys of compared schemes) on the toy sequence of these settings."""
    s = ToySettings(seq_len=seq_len, dim=dim, base=base, causal=causal, seed=seed)
    t = toy(s)
    causal_only = ~causal_mask(t.pos, t.pos)  # (L, L) True on future keys
    masked = causal_only if s.causal else torch.zeros(s.seq_len, s.seq_len, dtype=torch.bool)
    terms, weights, nbytes = [], [], []
    for key in keys:
        compared = BY_KEY[key].compared
        if compared is None:
            raise ValueError(_("{key} is not a compared scheme of the registry").format(key=repr(key)))
        mask = causal_only if compared.always_causal else masked
        logits, built, *own = load(compared.run)(t)  # (L, L), the position tensors built, [its weights (L, L)]
        if bool(own) == compared.softmax:
            raise ValueError(
                _("{key}'s runner returns weights exactly when its entry says softmax=False").format(key=repr(key))
            )
        nbytes.append(sum(x.untyped_storage().nbytes() for x in built))
        unseen = mask | torch.isneginf(logits)  # (L, L) masked, or a key the scheme itself gives nothing
        terms.append((logits - t.content).masked_fill(unseen, float("nan")))
        weights.append(own[0].masked_fill(unseen, 0.0) if own else masked_softmax(logits, mask))
    terms_t = torch.stack(terms).float()  # (schemes, L, L)
    finite = terms_t[torch.isfinite(terms_t)]
    return Comparison(
        positions=t.pos,
        terms=terms_t,
        weights=torch.stack(weights).float(),
        mask=masked,
        nbytes=nbytes,
        term_scale=float(finite.abs().max()) if finite.numel() else 1.0,
    )

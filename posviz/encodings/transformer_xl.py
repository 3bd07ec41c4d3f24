"""Transformer-XL relative attention (Dai et al. 2019, "Transformer-XL: Attentive Language Models beyond a
Fixed-Length Context").

Semantics follow ``kimiyoung/transformer-xl``, ``pytorch/mem_transformer.py``,
``RelPartialLearnableMultiHeadAttn``. The keys are ``mem_len`` remembered positions followed by the
segment's own ``q_len``; query ``i`` sits at absolute position ``mem_len + i`` and key ``j`` at ``j``. The
score splits into four terms:

    (a) q_i . k_j          content                    AC = (q + u) . k
    (b) q_i . W_R R_D      content-dependent position BD = (q + v) . W_R R_D,   D = (mem_len + i) - j
    (c) u . k_j            global content bias
    (d) v . W_R R_D        global position bias

summed and scaled by ``1 / sqrt(d_head)``, masked where ``j > mem_len + i``. ``R`` is a sinusoid over
descending distances ``k_len - 1 .. 0`` with the sines and cosines in two halves (``[sin | cos]``, not
interleaved). The code computes BD against every row of ``R`` at once and puts each score in place with
``_rel_shift`` (:func:`posviz.encodings.skew.rel_shift`), which leaves garbage above the diagonal
``j > mem_len + i``: the causal mask is what makes it right.

Notation: ``i`` query in the segment, ``j`` key in ``[memory | segment]``; matrices ``(q_len, k_len)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from posviz.encodings.attention import toy_normal
from posviz.encodings.skew import rel_shift
from posviz.i18n import _

if TYPE_CHECKING:
    from posviz.encodings.compare import Toy


def txl_positional_embedding(pos_seq: torch.Tensor, d_model: int) -> torch.Tensor:
    """``PositionalEmbedding``: ``cat(sin(p inv_freq), cos(p inv_freq))``, ``inv_freq = 10000 ** (-2k / d)``.

    Args:
        pos_seq: (n,) distances (the code passes ``k_len - 1 .. 0``, descending).

    Returns:
        (n, d_model) float64, sines in the first half, cosines in the second.
    """
    if d_model < 2 or d_model % 2:
        raise ValueError(
            _("d_model must be even and at least 2 (a sine and a cosine per frequency), got {d_model}.").format(
                d_model=d_model
            )
        )
    inv_freq = 1 / (10000 ** (torch.arange(0.0, d_model, 2.0, dtype=torch.float64) / d_model))
    angles = pos_seq.to(torch.float64)[:, None] * inv_freq[None, :]  # (n, d/2)
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=-1)


def txl_distances(q_len: int, mem_len: int) -> torch.Tensor:
    """``D[i, j] = (mem_len + i) - j``: query minus key position, (q_len, mem_len + q_len) int64."""
    return torch.arange(q_len)[:, None] + mem_len - torch.arange(mem_len + q_len)[None, :]


def txl_mask(q_len: int, mem_len: int) -> torch.Tensor:
    """The decoder mask, True where masked: keys after the query, ``j > mem_len + i``. (q_len, k_len) bool."""
    return txl_distances(q_len, mem_len) < 0


@dataclass(frozen=True)
class TxlTerms:
    """The four terms of the score and what the shift does, one head, float64."""

    content: torch.Tensor  # (a) (q_len, k_len) q_i . k_j
    position: torch.Tensor  # (b) (q_len, k_len) q_i . W_R R_D, after the shift
    content_bias: torch.Tensor  # (c) (q_len, k_len) u . k_j
    position_bias: torch.Tensor  # (d) (q_len, k_len) v . W_R R_D, after the shift
    bd_raw: torch.Tensor  # (q_len, k_len) (q + v) . W_R R_r against every row r of R, before the shift
    bd: torch.Tensor  # (q_len, k_len) the same after _rel_shift: garbage where j > mem_len + i
    score: torch.Tensor  # (q_len, k_len) (AC + BD) / sqrt(d_head), -inf where masked
    weights: torch.Tensor  # (q_len, k_len) softmax over keys


def txl_terms(
    q: torch.Tensor, k: torch.Tensor, r_k: torch.Tensor, *, u: torch.Tensor, v: torch.Tensor, mem_len: int
) -> TxlTerms:
    """One head's score of a segment against ``[memory | segment]``, term by term, as the code computes it.

    Args:
        q: (q_len, d_head) the segment's queries.
        k: (k_len, d_head) keys of ``mem_len`` memory positions, then the segment's, ``k_len = mem_len + q_len``.
        r_k: (k_len, d_head) ``W_R R`` over the descending distances ``k_len - 1 .. 0`` (row ``r``: distance
            ``k_len - 1 - r``).
        u, v: (d_head,) the global content and position biases (``r_w_bias``, ``r_r_bias``).
        mem_len: the memory's length.

    Returns:
        The terms, each (q_len, k_len).
    """
    q_len, d_head = q.shape
    k_len = k.shape[0]
    if k_len != mem_len + q_len or r_k.shape != (k_len, d_head):
        raise ValueError(
            _("keys and r_k need mem_len + q_len = {rows} rows of {d_head}, got {k_shape} and {r_shape}.").format(
                rows=mem_len + q_len, d_head=d_head, k_shape=tuple(k.shape), r_shape=tuple(r_k.shape)
            )
        )
    q, k, r_k, u, v = (t.to(torch.float64) for t in (q, k, r_k, u, v))
    content, content_bias = q @ k.T, (u @ k.T).expand(q_len, k_len)
    bd_raw = (q + v) @ r_k.T
    bd = rel_shift(bd_raw)
    position = rel_shift(q @ r_k.T)
    position_bias = rel_shift((v @ r_k.T).expand(q_len, k_len).contiguous())
    score = ((content + content_bias + bd) / math.sqrt(d_head)).masked_fill(txl_mask(q_len, mem_len), -math.inf)
    return TxlTerms(content, position, content_bias, position_bias, bd_raw, bd, score, torch.softmax(score, -1))


def txl_update_memory(mems: torch.Tensor, hidden: torch.Tensor, *, mem_len: int) -> torch.Tensor:
    """``_update_mems``: the last ``mem_len`` rows of ``cat([mems, hidden])`` (``ext_len = 0``).

    Args:
        mems: (m, d) the memory so far; hidden: (q_len, d) the segment's hidden states.

    Returns:
        (min(m + q_len, mem_len), d): what the next segment's keys reach back into.
    """
    joined = torch.cat([mems, hidden], dim=0)
    return joined[max(0, joined.shape[0] - mem_len) :]


def txl_toy_terms(q_len: int, mem_len: int, dim: int, seed: int) -> TxlTerms:
    """One head with seeded toy weights (illustrative), the Transformer-XL page's: queries ``(q_len, dim)`` and keys
    ``(mem_len + q_len, dim)`` standard normal, then ``W_R`` ``(dim, 2 dim)`` (``R`` has ``d_model = 2 dim``),
    ``u`` and ``v`` ``(dim,)``, all drawn in that order from ``seed``.

    Returns:
        The terms, each (q_len, mem_len + q_len) float64.
    """
    g = torch.Generator().manual_seed(seed)
    k_len = q_len + mem_len
    q, k = toy_normal(q_len, dim, generator=g).double(), toy_normal(k_len, dim, generator=g).double()
    w_r = toy_normal(dim, 2 * dim, generator=g).double() / math.sqrt(2 * dim)  # r_net: d_model -> d_head
    r_k = txl_positional_embedding(torch.arange(k_len - 1, -1, -1), 2 * dim) @ w_r.T
    u, v = toy_normal(dim, generator=g).double(), toy_normal(dim, generator=g).double()
    return txl_terms(q, k, r_k, u=u, v=v, mem_len=mem_len)


def txl_parameter_count(dim: int) -> int:
    """The position's learned numbers in one head: ``W_R`` (dim, 2 dim), ``u`` and ``v`` (dim,)."""
    return dim * 2 * dim + 2 * dim


def compare_run(t: Toy) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """The compare page's run: :func:`txl_toy_terms` with no memory, at the toy's length, dim and seed (its ``q``
    and ``k`` are the compare toy's: the same draws), so it is the Transformer-XL page at ``mem_len = 0``.

    Returns:
        logits (L, L) float64 ``(AC + BD) / sqrt(d)``, ``-inf`` after the diagonal, and what it built: the position
        scores before and after the shift, (L, L) each.
    """
    terms = txl_toy_terms(t.s.seq_len, 0, t.s.dim, t.s.seed)
    return terms.score, [terms.bd_raw, terms.bd]


def txl_slowest_period(d_model: int) -> float:
    """The longest wavelength of ``R``, ``2 pi / inv_freq[-1] = 2 pi 10000 ** ((d_model - 2) / d_model)`` tokens."""
    if d_model < 2 or d_model % 2:
        raise ValueError(f"d_model must be even and at least 2 (a sine and a cosine per frequency), got {d_model}.")
    return 2 * math.pi * 10000 ** ((d_model - 2) / d_model)

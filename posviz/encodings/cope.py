"""Contextual position encoding, CoPE (Golovneva et al. 2024, "Contextual
Position Encoding: Learning to Count What's Important").

A query decides which earlier tokens count: each key gets a gate
``g_ij = sigmoid(q_i . k_j)`` in ``[0, 1]``, and the position of key ``j``
seen from query ``i`` is how many gates fire between them,
``p_ij = sum_{t=j..i} g_it`` (a reverse cumulative sum along the keys),
clamped to ``npos_max - 1``. Positions are fractional, so the position
term interpolates between the two integer positions around ``p_ij``:
``z_i[p] = q_i . e[p]`` and ``z_i[p_ij] = w z_i[ceil p] + (1 - w) z_i[floor p]``
with ``w = p_ij - floor(p_ij)``.

Semantics follow the paper's code (its appendix ``CoPE`` module) and
``facebookresearch/RAM``, ``projects/cope/src/cope/context_position.py``:
the causal mask is applied before the gates (masked logits are ``-inf``, so
masked gates are exactly 0); otherwise the reverse cumsum, which runs to the
end of the row, would add the future keys' gates to every position.

Notation: ``i`` query, ``j`` key, ``t`` a key between them; ``(q, k)`` is
``(q_len, k_len)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from posviz.i18n import _


def _check_npos_max(npos_max: int) -> None:
    if isinstance(npos_max, bool) or not isinstance(npos_max, int) or npos_max < 1:
        raise ValueError(
            _("npos_max must be a whole number of at least 1 (positions 0 .. npos_max - 1), got {npos_max!r}.").format(
                npos_max=npos_max
            )
        )


def causal_logits(logits: torch.Tensor, q_pos: torch.Tensor, k_pos: torch.Tensor) -> torch.Tensor:
    """``logits`` with every future key (``j > i``) set to ``-inf``, as ``mask.log()`` does in the paper.

    Args:
        logits: (..., q, k) float gate logits.
        q_pos, k_pos: (q,) and (k,) int64 positions.

    Returns:
        (..., q, k) float, ``-inf`` where ``k_pos > q_pos``.
    """
    future = k_pos[None, :] > q_pos[:, None]  # (q, k)
    return logits.masked_fill(future, float("-inf"))


def cope_gates(attn_logits: torch.Tensor) -> torch.Tensor:
    """Gates ``sigmoid(logits)``; masked (``-inf``) logits give exactly 0.

    Apply the causal mask to the logits first (:func:`causal_logits`): a
    finite mask such as ``-30`` gives ``sigmoid(-30) = 9.4e-14``, not 0, and
    gates computed before the mask leak into every position.

    Args:
        attn_logits: (..., q, k) float, ``q_i . k_j`` (scaled), ``-inf`` where masked.

    Returns:
        (..., q, k) float in ``[0, 1]``; exactly 0 where the logit is ``-inf``,
        exactly 1 where it is ``+inf``.
    """
    if not attn_logits.is_floating_point():
        raise ValueError(_("attn_logits must be a float tensor, got {dtype}.").format(dtype=attn_logits.dtype))
    if bool(torch.isnan(attn_logits).any()):
        raise ValueError(_("attn_logits contains NaN: mask with -inf, never with NaN."))
    return torch.sigmoid(attn_logits)


def cope_raw_positions(gates: torch.Tensor) -> torch.Tensor:
    """Unclamped positions: the reverse cumulative sum of the gates along the keys.

    ``p_ij = sum_{t >= j} g_it``; with masked gates (0 for ``t > i``) that is
    ``sum_{t=j..i} g_it``.

    Returns:
        (..., q, k) float, non-increasing along the last axis.
    """
    return gates.flip(-1).cumsum(dim=-1).flip(-1)  # (..., q, k)


def cope_positions(gates: torch.Tensor, *, npos_max: int) -> torch.Tensor:
    """Contextual positions: reverse cumulative sum of the gates, clamped to ``npos_max - 1``.

    Args:
        gates: (..., q, k) float in ``[0, 1]``, already masked (0 for future keys).
        npos_max: number of position embeddings ``e[0] .. e[npos_max - 1]``.

    Returns:
        (..., q, k) float in ``[0, npos_max - 1]``. With every gate 1 and a
        causal mask, ``p_ij = i - j + 1`` for ``j <= i`` (before the clamp) and
        0 for ``j > i``.
    """
    _check_npos_max(npos_max)
    if gates.dim() < 1:
        raise ValueError(_("gates must have a key axis (shape (..., q, k))."))
    return cope_raw_positions(gates).clamp(max=npos_max - 1)


@dataclass(frozen=True)
class CopeInterpolation:
    """The integer positions around ``p`` and the weight of the upper one, all shaped like ``p``."""

    floor: torch.Tensor  # int64
    ceil: torch.Tensor  # int64
    w: torch.Tensor  # float, p - floor(p), in [0, 1)


def cope_interpolation(positions: torch.Tensor) -> CopeInterpolation:
    """``floor(p)``, ``ceil(p)`` and ``w = p - floor(p)``, as the paper's code computes them."""
    floor = positions.floor().long()
    return CopeInterpolation(floor=floor, ceil=positions.ceil().long(), w=positions - floor)


def cope_position_logits(query: torch.Tensor, pos_emb: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """The position term ``z_i[p_ij]``, interpolated between integer positions.

    ``z_i[p] = q_i . e[p]`` for every integer ``p`` (one matmul), then
    ``z_i[p_ij] = w z_i[ceil p_ij] + (1 - w) z_i[floor p_ij]`` with
    ``w = p_ij - floor(p_ij)``: the paper's efficient form, equal to
    ``q_i . (w e[ceil] + (1 - w) e[floor])``.

    Args:
        query: (..., q, dim) queries.
        pos_emb: (dim, npos_max) embeddings; column ``p`` is ``e[p]`` (the
            layout of the paper's ``nn.Parameter(torch.zeros(1, head_dim, npos_max))``).
        positions: (..., q, k) float in ``[0, npos_max - 1]`` (from :func:`cope_positions`).

    Returns:
        (..., q, k) float, the term added to the attention logits.
    """
    if pos_emb.dim() != 2 or pos_emb.shape[0] != query.shape[-1]:
        raise ValueError(
            _("pos_emb must be (dim, npos_max) with dim = {dim} (the query size), got shape {shape}.").format(
                dim=query.shape[-1], shape=tuple(pos_emb.shape)
            )
        )
    if positions.shape[:-1] != query.shape[:-1]:
        raise ValueError(
            _("positions {shape} must have one row per query {queries}.").format(
                shape=tuple(positions.shape), queries=tuple(query.shape[:-1])
            )
        )
    npos_max = pos_emb.shape[1]
    if positions.numel() and (float(positions.min()) < 0 or float(positions.max()) > npos_max - 1):
        raise ValueError(
            _(
                "positions must lie in [0, {top}] for {npos_max} embeddings: "
                "clamp them with cope_positions(gates, npos_max=...)."
            ).format(top=npos_max - 1, npos_max=npos_max)
        )
    logits_int = cope_integer_logits(query, pos_emb)  # (..., q, npos_max): z_i[p] for every integer p
    at = cope_interpolation(positions)
    logits_ceil = logits_int.gather(-1, at.ceil)  # (..., q, k)
    logits_floor = logits_int.gather(-1, at.floor)  # (..., q, k)
    return logits_ceil * at.w + logits_floor * (1 - at.w)


def cope_integer_logits(query: torch.Tensor, pos_emb: torch.Tensor) -> torch.Tensor:
    """``z_i[p] = q_i . e[p]`` for every integer position: (..., q, dim) @ (dim, npos_max) -> (..., q, npos_max)."""
    return query @ pos_emb


def toy_position_embeddings(dim: int, npos_max: int, *, generator: torch.Generator) -> torch.Tensor:
    """Toy position embeddings ``e[p]`` as columns, ``N(0, 1/dim)``: ``z_i[p] = q_i . e[p]`` then has unit
    variance for standard-normal queries, comparable to ``q . k / sqrt(d)``.

    Returns:
        (dim, npos_max) float32.
    """
    return torch.randn(dim, npos_max, generator=generator) / math.sqrt(dim)


def query_gates(
    q: torch.Tensor,
    k: torch.Tensor,
    rows: torch.Tensor,
    *,
    temperature: float,
    values: torch.Tensor | None = None,
    masked: bool = True,
) -> torch.Tensor:
    """The gates of the query rows ``rows`` against every key, masked before the sigmoid.

    Args:
        q, k: (n, dim) queries and keys of the whole sequence (positions ``0 .. n-1``).
        rows: (r,) int64 the query positions.
        values: (n,) gates that depend on the key only (:func:`key_gates`); None: ``sigmoid(q . k / temperature)``.
        masked: False computes the pitfall: the mask applied after the gates (or not at all).

    Returns:
        (r, n) float in ``[0, 1]``.
    """
    n = k.shape[0]
    k_pos = torch.arange(n)
    if values is None:
        logits = gate_logits(q[rows], k, temperature=temperature)  # (r, n)
        return cope_gates(causal_logits(logits, rows, k_pos) if masked else logits)
    if masked:
        return key_gates(values, rows, k_pos)
    return key_gates(values, torch.full_like(rows, n - 1), k_pos)  # nothing is in the future of the last


def gate_logits(q_rows: torch.Tensor, k: torch.Tensor, *, temperature: float) -> torch.Tensor:
    """``q_i . k_j / temperature``: (q, dim), (k, dim) -> (q, k). The paper uses ``temperature = sqrt(dim)``."""
    if not temperature > 0:
        raise ValueError(_("temperature must be positive, got {temperature}.").format(temperature=temperature))
    return q_rows @ k.T / temperature


def key_gates(values: torch.Tensor, q_pos: torch.Tensor, k_pos: torch.Tensor) -> torch.Tensor:
    """Gates that depend on the key only (count tokens, sentences, a hand-made table), masked.

    Args:
        values: (k,) float in ``[0, 1]``, the gate of each key token.
        q_pos, k_pos: (q,) and (k,) int64 positions.

    Returns:
        (q, k) float: ``values[j]`` where ``j <= i``, exactly 0 for future keys.
    """
    if values.dim() != 1 or values.shape[0] != k_pos.shape[0]:
        raise ValueError(
            _("values must be (k,) = ({k},), one gate per key, got {shape}.").format(
                k=k_pos.shape[0], shape=tuple(values.shape)
            )
        )
    if values.numel() and (float(values.min()) < 0 or float(values.max()) > 1):
        raise ValueError(_("gate values must lie in [0, 1]."))
    future = k_pos[None, :] > q_pos[:, None]  # (q, k)
    return torch.where(future, torch.zeros(()), values[None, :].float())


def relative_position_logits(
    query: torch.Tensor, pos_emb: torch.Tensor, q_pos: torch.Tensor, k_pos: torch.Tensor
) -> torch.Tensor:
    """Plain relative positions for comparison: ``q_i . e[min(i - j, npos_max - 1)]`` (0 for future keys).

    The paper's relative baseline ``q_i^T e[i - j]`` with the same embeddings.

    Returns:
        (q, k) float.
    """
    npos_max = pos_emb.shape[1]
    dist = (q_pos[:, None] - k_pos[None, :]).clamp(min=0, max=npos_max - 1)  # (q, k)
    return cope_integer_logits(query, pos_emb).gather(-1, dist)  # (q, npos_max) -> (q, k)


def cope_attention(
    content: torch.Tensor, position: torch.Tensor | None, q_pos: torch.Tensor, k_pos: torch.Tensor
) -> torch.Tensor:
    """``softmax(content + position)`` over keys with the causal mask.

    As the paper's ``SelfAttn``: ``content`` is ``q k^T / sqrt(d)``; the
    position term is added unscaled.

    Returns:
        (q, k) float, rows summing to 1, exactly 0 on future keys.
    """
    logits = content if position is None else content + position
    return torch.softmax(causal_logits(logits, q_pos, k_pos), dim=-1)


def scaled_content(q_rows: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """``q k^T / sqrt(d)``: (q, dim), (k, dim) -> (q, k)."""
    return q_rows @ k.T / math.sqrt(q_rows.shape[-1])


def cope_gate_values(values) -> torch.Tensor:
    """A table of gates a reader typed: each read as a number, a blank or non-number as 0, clamped to [0, 1].

    Args:
        values: (n,) anything ``float`` may take (the editor's cells).

    Returns:
        (n,) float32.
    """
    out = []
    for v in values:
        try:
            x = float(v)
        except (TypeError, ValueError):
            x = 0.0
        out.append(0.0 if x != x else x)  # NaN (an emptied cell): no gate
    return torch.tensor(out, dtype=torch.float32).clamp(0.0, 1.0)

"""Scaled dot-product attention weights with an optional additive bias.

Two ways to the same numbers: :func:`attention_weights` materialises the full
``(q_len, k_len)`` matrix; :func:`attention_weights_sampled` returns chosen
rows and columns of it while streaming over keys in chunks, so a view of a
131072-token sequence costs memory in the rows shown, not in ``L^2``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from posviz.i18n import _

BiasFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def toy_normal(*shape: int, generator: torch.Generator, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A toy tensor of independent standard-normal values (token vectors, a table as ``nn.Embedding`` starts).

    Returns:
        ``shape`` in ``dtype``, drawn from ``generator`` only (in that dtype: float64 draws differ from float32's).
    """
    return torch.randn(*shape, generator=generator, dtype=dtype)


def toy_qk(q_len: int, k_len: int, dim: int, *, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Standard-normal toy queries ``(q_len, dim)`` and keys ``(k_len, dim)``."""
    q = toy_normal(q_len, dim, generator=generator)
    k = toy_normal(k_len, dim, generator=generator)
    return q, k


def content_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """``q_i . k_j`` for every pair, unscaled: (q, d), (k, d) -> (q, k)."""
    return q @ k.T


def cosine_similarities(rows: torch.Tensor) -> torch.Tensor:
    """The cosine of the angle between every two rows: (n, d) -> (n, n), 1 on the diagonal."""
    unit = rows / rows.norm(dim=-1, keepdim=True)  # (n, d)
    return unit @ unit.T


def causal_mask(q_pos: torch.Tensor, k_pos: torch.Tensor) -> torch.Tensor:
    """True where a query may attend: the key is not in its future, ``j <= i``.

    Returns:
        (q_len, k_len) bool.
    """
    return k_pos[None, :] <= q_pos[:, None]


def attention_weights(
    q: torch.Tensor,
    k: torch.Tensor,
    *,
    bias: torch.Tensor | None = None,
    causal: bool = False,
    q_pos: torch.Tensor | None = None,
    k_pos: torch.Tensor | None = None,
) -> torch.Tensor:
    """``softmax(q k^T / sqrt(d) + bias)`` over keys, with the causal mask.

    Args:
        q: (..., q_len, d) queries.
        k: (..., k_len, d) keys.
        bias: broadcastable to (..., q_len, k_len), added to the logits.
        causal: mask keys in each query's future (``j > i``).
        q_pos, k_pos: positions for the mask; default ``arange``. With fewer
            queries than keys pass ``q_pos`` aligned at the end for decoding.

    Returns:
        (..., q_len, k_len) float, rows summing to 1 (masked entries exactly 0).
    """
    logits = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])  # (..., q_len, k_len)
    if bias is not None:
        logits = logits + bias
    if causal:
        q_pos = torch.arange(q.shape[-2]) if q_pos is None else q_pos
        k_pos = torch.arange(k.shape[-2]) if k_pos is None else k_pos
        allowed = causal_mask(q_pos, k_pos)
        if not bool(allowed.any(dim=-1).all()):
            raise ValueError(_("Every query needs at least one key at or before its position."))
        logits = logits.masked_fill(~allowed, float("-inf"))
    return torch.softmax(logits, dim=-1)


def attention_weights_sampled(
    q_rows: torch.Tensor,
    k: torch.Tensor,
    *,
    q_pos: torch.Tensor,
    k_pos: torch.Tensor,
    cols: torch.Tensor,
    bias_fn: BiasFn | None = None,
    causal: bool = False,
    chunk: int = 8192,
) -> torch.Tensor:
    """Chosen columns of chosen attention rows, exact over all keys.

    Equals ``attention_weights(q, k, bias=bias, ...)[rows][:, cols]``, but the
    softmax denominator is accumulated over key chunks, so peak memory is
    ``rows * chunk`` instead of ``rows * k_len``.

    Args:
        q_rows: (rows, d) the query rows to show.
        k: (k_len, d) every key.
        q_pos: (rows,) int64 positions of those queries.
        k_pos: (k_len,) int64 positions of the keys.
        cols: (cols,) int64 key indices (into ``k``) to return.
        bias_fn: ``(q_pos, k_pos_chunk) -> (rows, chunk)`` additive bias.
        causal: mask keys in each query's future.

    Returns:
        (rows, cols) float32 attention weights.
    """
    scale = 1.0 / math.sqrt(q_rows.shape[-1])

    def logits(k_idx: torch.Tensor) -> torch.Tensor:
        out = q_rows @ k[k_idx].T * scale  # (rows, n)
        if bias_fn is not None:
            out = out + bias_fn(q_pos, k_pos[k_idx])
        if causal:
            out = out.masked_fill(~causal_mask(q_pos, k_pos[k_idx]), float("-inf"))
        return out

    lse = torch.full((q_rows.shape[0],), float("-inf"))  # (rows,) running log-sum-exp
    for start in range(0, k.shape[0], chunk):
        idx = torch.arange(start, min(start + chunk, k.shape[0]))
        lse = torch.logaddexp(lse, torch.logsumexp(logits(idx), dim=-1))
    if causal and bool(torch.isinf(lse).any()):
        raise ValueError(_("Every query needs at least one key at or before its position."))
    return torch.exp(logits(cols) - lse[:, None])  # (rows, cols)


def masked_softmax(logits: torch.Tensor, masked: torch.Tensor | None = None) -> torch.Tensor:
    """``softmax`` over the last axis with ``masked`` entries (True) at exactly 0.

    Args:
        logits: (..., q, k).
        masked: broadcastable bool, True where a key may not be attended; None: no mask.
    """
    return torch.softmax(logits if masked is None else logits.masked_fill(masked, float("-inf")), dim=-1)


def logits_bytes(q_len: int, k_len: int, *, device: str = "meta") -> int:
    """Bytes of a (q_len, k_len) float32 logits matrix, measured on a tensor of that shape.

    ``device="meta"`` allocates nothing (any length); ``"cpu"`` really allocates it.
    """
    return torch.empty(q_len, k_len, device=device).untyped_storage().nbytes()


def self_attention(
    x: torch.Tensor,
    w_q: torch.Tensor,
    w_k: torch.Tensor,
    w_v: torch.Tensor,
    *,
    bias: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One head of self-attention over token vectors ``x``.

    Args:
        x: (seq, d_model) token vectors.
        w_q, w_k, w_v: (d_model, d) projections.
        bias: optional (seq, seq) additive position bias.

    Returns:
        ``(weights, out)``: (seq, seq) attention weights and (seq, d) outputs.
    """
    q, k, v = x @ w_q, x @ w_k, x @ w_v  # (seq, d) each
    weights = attention_weights(q, k, bias=bias)  # (seq, seq)
    return weights, weights @ v

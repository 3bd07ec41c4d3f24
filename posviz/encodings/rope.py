"""Rotary position embedding, RoPE (Su et al. 2021, "RoFormer: Enhanced
Transformer with Rotary Position Embedding").

Each 2-D pair of a query or key is rotated by the angle ``m theta_k`` at position
``m``, with ``theta_k = base ** (-2k / dim)``. Then ``(R_m q) . (R_n k) =
q . R_{n-m} k``: the score depends on ``n - m`` only.

Two layouts pair the components differently:
    interleaved   pairs ``(x[2k], x[2k+1])`` (Meta LLaMA ``apply_rotary_emb``)
    half          pairs ``(x[k], x[k + dim/2])`` (GPT-NeoX, Hugging Face ``rotate_half``)
They are a fixed permutation of each other (:func:`layout_permutation`).

Context-extension scaling lives in :mod:`posviz.encodings.rope_scaling` (its
registry ``ROPE_SCALING``, after Hugging Face ``modeling_rope_utils.py``).
Frequencies and angles are computed in float64, so phases stay exact far past
2^24 positions where float32 ``m * theta`` drifts.

Notation: ``m, n`` positions; ``k`` pair index ``0 .. dim/2 - 1``; ``r = n - m``.
"""

from __future__ import annotations

import math

import torch

from posviz.encodings import checks
from posviz.encodings.attention import attention_weights, toy_normal, toy_qk
from posviz.i18n import _

LAYOUTS = ("interleaved", "half")


def check_rope_dim(dim: int) -> None:
    checks.check_even_dim(dim, why=_("RoPE rotates pairs of components"))


def check_base(base: float) -> None:
    checks.check_base(base)


def check_layout(layout: str) -> None:
    checks.check_layout(layout, LAYOUTS)


def rope_inv_freq(dim: int, *, base: float = 10000.0, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """The rotation speed of each pair, ``theta_k = base ** (-2k / dim)``.

    Returns:
        (dim/2,) ``dtype``, from 1 (pair 0, one radian per token) down to ``base ** (-(dim-2)/dim)``.
    """
    check_rope_dim(dim)
    check_base(base)
    exponent = torch.arange(0, dim, 2, dtype=torch.float64) / dim  # (dim/2,)
    return (1.0 / base**exponent).to(dtype)


def rope_angles(positions: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    """Rotation angle of every pair at every position, ``m theta_k``, in float64.

    Args:
        positions: (seq,) positions (integers or floats).
        inv_freq: (dim/2,) frequencies.

    Returns:
        (seq, dim/2) float64 radians, not reduced modulo 2 pi.
    """
    return positions.to(torch.float64)[:, None] * inv_freq.to(torch.float64)[None, :]  # (seq, dim/2)


def rope_wavelengths(inv_freq: torch.Tensor) -> torch.Tensor:
    """Tokens per full turn of each pair, ``2 pi / theta_k``: (dim/2,) -> (dim/2,) float64."""
    inv = inv_freq.to(torch.float64)
    return torch.full_like(inv, 2 * math.pi) / inv  # tensor / tensor: rounded once, as numpy divides


def rope_never_turning(inv_freq: torch.Tensor, length: int) -> int:
    """How many of the (dim/2,) pairs never complete a turn within ``length`` tokens (wavelength > length)."""
    return int((rope_wavelengths(inv_freq) > length).sum())


def rope_speed_ratio(inv_freq: torch.Tensor, reference: torch.Tensor) -> torch.Tensor:
    """How fast each pair turns against a reference (a scaled method against the default): (dim/2,) float64."""
    return inv_freq.to(torch.float64) / reference.to(torch.float64)


def freqs_cis(positions: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    """Meta LLaMA ``precompute_freqs_cis``: ``e^{i m theta_k}`` for each position and pair.

    Returns:
        (seq, dim/2) complex128 of modulus 1.
    """
    angles = rope_angles(positions, inv_freq)  # (seq, dim/2)
    return torch.polar(torch.ones_like(angles), angles)


def layout_permutation(dim: int) -> torch.Tensor:
    """``perm`` with ``apply_rope(x[..., perm], layout="half") == apply_rope(x, layout="interleaved")[..., perm]``.

    Returns:
        (dim,) int64, ``[0, 2, ..., dim-2, 1, 3, ..., dim-1]``: the even (first) components of
        every pair, then the odd (second) ones.
    """
    check_rope_dim(dim)
    return torch.cat([torch.arange(0, dim, 2), torch.arange(1, dim, 2)])


def _resolve_inv_freq(dim: int, base: float, inv_freq: torch.Tensor | None) -> torch.Tensor:
    if inv_freq is None:
        return rope_inv_freq(dim, base=base)
    if inv_freq.shape != (dim // 2,):
        raise ValueError(f"inv_freq must have dim / 2 = {dim // 2} entries, got shape {tuple(inv_freq.shape)}.")
    return inv_freq.to(torch.float64)


def rope_rotation_matrix(
    position: float,
    dim: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    inv_freq: torch.Tensor | None = None,
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """The rotation ``R_m`` at position ``m``: ``apply_rope(x) == x @ R_m.T``.

    Args:
        position: the position ``m``.
        inv_freq: (dim/2,) frequencies; default ``rope_inv_freq(dim, base=base)``.

    Returns:
        (dim, dim) ``dtype`` orthogonal matrix: 2 x 2 blocks ``[[cos, -sin], [sin, cos]]`` of
        angle ``m theta_k`` on the diagonal (interleaved), or the same blocks spread over
        rows and columns ``k`` and ``k + dim/2`` (half).
    """
    check_rope_dim(dim)
    check_layout(layout)
    theta = _resolve_inv_freq(dim, base, inv_freq)
    angle = float(position) * theta  # (dim/2,) float64
    cos, sin = torch.cos(angle), torch.sin(angle)
    first, second = (torch.arange(0, dim, 2), torch.arange(1, dim, 2))  # interleaved: components 2k, 2k+1
    if layout == "half":
        first, second = torch.arange(dim // 2), torch.arange(dim // 2, dim)  # components k, k + dim/2
    rot = torch.zeros(dim, dim, dtype=torch.float64)
    rot[first, first] = cos
    rot[first, second] = -sin
    rot[second, first] = sin
    rot[second, second] = cos
    return rot.to(dtype)


def apply_rope(
    x: torch.Tensor,
    positions: torch.Tensor,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    inv_freq: torch.Tensor | None = None,
) -> torch.Tensor:
    """Rotate every vector by its position's angles.

    Args:
        x: (..., seq, dim) queries or keys.
        positions: (seq,) positions of the rows of ``x``.
        inv_freq: (dim/2,) frequencies; default ``rope_inv_freq(dim, base=base)``.

    Returns:
        (..., seq, dim) in ``x``'s dtype (angles, cos and sin in float64), the same norms.
    """
    dim = x.shape[-1]
    check_rope_dim(dim)
    check_layout(layout)
    if positions.shape != (x.shape[-2],):
        raise ValueError(f"positions must have one entry per row of x ({x.shape[-2]}), got {tuple(positions.shape)}.")
    angles = rope_angles(positions, _resolve_inv_freq(dim, base, inv_freq))  # (seq, dim/2)
    cos, sin = torch.cos(angles), torch.sin(angles)
    xd = x.to(torch.float64)
    if layout == "interleaved":
        a, b = xd[..., 0::2], xd[..., 1::2]  # (..., seq, dim/2): the pairs (x[2k], x[2k+1])
        out = torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)  # (..., seq, dim)
    else:
        half = dim // 2
        a, b = xd[..., :half], xd[..., half:]  # (..., seq, dim/2): the pairs (x[k], x[k + dim/2])
        out = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)  # rotate_half form
    return out.to(x.dtype)


# ---------------------------------------------------------------- the relative property and decay


def rope_scores(q: torch.Tensor, k: torch.Tensor, distances: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    """``q . R_r k`` for every pair of rows and every distance ``r = n - m``, interleaved layout.

    Per pair ``k``: ``q^T R(phi) k = cos(phi) (q1 k1 + q2 k2) + sin(phi) (q2 k1 - q1 k2)``.

    Args:
        q, k: (batch, dim) vectors.
        distances: (r,) distances.
        inv_freq: (dim/2,) frequencies.

    Returns:
        (batch, r) float64.
    """
    qd, kd = q.to(torch.float64), k.to(torch.float64)
    q1, q2, k1, k2 = qd[:, 0::2], qd[:, 1::2], kd[:, 0::2], kd[:, 1::2]  # (batch, dim/2) each
    angles = rope_angles(distances, inv_freq)  # (r, dim/2)
    return (q1 * k1 + q2 * k2) @ torch.cos(angles).T + (q2 * k1 - q1 * k2) @ torch.sin(angles).T  # (batch, r)


def rope_decay_bound(distances: torch.Tensor, inv_freq: torch.Tensor) -> torch.Tensor:
    """RoFormer's relative upper bound (section 3.4.3): ``(1 / (d/2)) sum_j |S_j|``.

    ``S_j = sum_{k < j} e^{i r theta_k}`` for ``j = 1 .. d/2``; the score is bounded by
    ``max_k |h_{k+1} - h_k|`` times ``sum_j |S_j|``. It falls with distance on average,
    but not monotonically.

    Returns:
        (r,) float64; ``(d/2 + 1) / 2`` at ``r = 0``.
    """
    partial = torch.cumsum(freqs_cis(distances, inv_freq), dim=-1)  # (r, d/2): S_1 .. S_{d/2}
    return partial.abs().mean(dim=-1)


# ---------------------------------------------------------------- what the page measures


def rope_at(x: torch.Tensor, positions: torch.Tensor, *, inv_freq: torch.Tensor, layout: str) -> torch.Tensor:
    """One vector rotated to each of ``positions``.

    Args:
        x: (dim,) a query or key.
        positions: (p,) positions.

    Returns:
        (p, dim) in ``x``'s dtype: row ``t`` is ``R_{positions[t]} x``.
    """
    return apply_rope(x.expand(len(positions), -1), positions, layout=layout, inv_freq=inv_freq)


def seeded_qk(dim: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """One standard-normal query and key from ``seed``: (dim,) float64 each (drawn in float32, as
    ``torch.randn`` gives them)."""
    q, k = toy_qk(1, 1, dim, generator=torch.Generator().manual_seed(seed))
    return q[0].double(), k[0].double()


def rope_pair_points(
    x: torch.Tensor, positions: torch.Tensor, pairs: torch.Tensor, *, inv_freq: torch.Tensor, layout: str
) -> torch.Tensor:
    """Some pairs of one vector at each of ``positions``, each pair scaled to unit length (a point on its circle).

    Args:
        x: (dim,) a query or key.
        positions: (p,) positions.
        pairs: (k,) pair indices: components ``(2k, 2k+1)`` (interleaved) or ``(k, k + dim/2)`` (half).

    Returns:
        (p, k, 2) float64.
    """
    dim = x.shape[-1]
    rotated = rope_at(x.to(torch.float64), positions, inv_freq=inv_freq, layout=layout)  # (p, dim)
    first, second = (2 * pairs, 2 * pairs + 1) if layout == "interleaved" else (pairs, pairs + dim // 2)
    xy = torch.stack([rotated[:, first], rotated[:, second]], dim=-1)  # (p, k, 2)
    return xy / torch.linalg.vector_norm(xy, dim=-1, keepdim=True)


def rope_score(q: torch.Tensor, k: torch.Tensor, m: int, n: int, *, inv_freq: torch.Tensor, layout: str) -> float:
    """``(R_m q) . (R_n k)``: ``q`` at position ``m`` against ``k`` at position ``n``, (dim,) each."""
    kw = dict(inv_freq=inv_freq, layout=layout)
    return float(rope_at(q, torch.tensor([m]), **kw)[0] @ rope_at(k, torch.tensor([n]), **kw)[0])


def rope_score_grid(
    q: torch.Tensor, k: torch.Tensor, positions: torch.Tensor, *, inv_freq: torch.Tensor, layout: str
) -> torch.Tensor:
    """``(R_i q) . (R_j k)`` for every pair of ``positions``: constant along diagonals (it depends on ``j - i``).

    Returns:
        (p, p) in ``q``'s dtype.
    """
    kw = dict(inv_freq=inv_freq, layout=layout)
    return rope_at(q, positions, **kw) @ rope_at(k, positions, **kw).T


def rope_shifted_scores(
    q: torch.Tensor, k: torch.Tensor, m: int, n: int, shifts: torch.Tensor, *, inv_freq: torch.Tensor, layout: str
) -> torch.Tensor:
    """``(R_{m+t} q) . (R_{n+t} k)`` for each shift ``t``: equal to ``(R_m q) . (R_n k)`` up to rounding.

    Returns:
        (t,) in ``q``'s dtype.
    """
    kw = dict(inv_freq=inv_freq, layout=layout)
    return (rope_at(q, m + shifts, **kw) * rope_at(k, n + shifts, **kw)).sum(-1)


def rope_relative_gap(
    m: int, n: int, dim: int, *, inv_freq: torch.Tensor, layout: str = "interleaved", dtype: torch.dtype
) -> float:
    """``max |R_m^T R_n - R_{n-m}|`` with matrices in ``dtype``: 0 up to rounding (float32 drifts far out)."""
    kw = dict(layout=layout, inv_freq=inv_freq, dtype=dtype)
    r_m, r_n, r_nm = (rope_rotation_matrix(x, dim, **kw) for x in (m, n, n - m))
    return float((r_m.T @ r_n - r_nm).abs().max())


def rope_layout_gap(position: float, dim: int, *, inv_freq: torch.Tensor) -> float:
    """``max |R_half - P R_interleaved P^T|`` at ``position``, ``P`` the permutation matrix of
    :func:`layout_permutation`: the two layouts are one relabelling of components apart (0 up to rounding)."""
    p = torch.eye(dim, dtype=torch.float64)[layout_permutation(dim)]  # (dim, dim)
    r_int = rope_rotation_matrix(position, dim, inv_freq=inv_freq, dtype=torch.float64)
    r_half = rope_rotation_matrix(position, dim, layout="half", inv_freq=inv_freq, dtype=torch.float64)
    return float((r_half - p @ r_int @ p.T).abs().max())


def rope_mean_abs_scores(
    qs: torch.Tensor, ks: torch.Tensor, distances: torch.Tensor, *, inv_freq: torch.Tensor, layout: str
) -> torch.Tensor:
    """``mean_b |q_b . R_r k_b|`` over the samples, for every distance ``r``: the measured decay.

    Args:
        qs, ks: (samples, dim) vectors, read in ``layout``.
        distances: (r,) distances.

    Returns:
        (r,) float64.
    """
    if layout == "half":  # the same vectors in the interleaved order: q . R_half k = q[inv] . R_int k[inv]
        back = torch.argsort(layout_permutation(qs.shape[-1]))
        qs, ks = qs[:, back], ks[:, back]
    return rope_scores(qs, ks, distances, inv_freq).abs().mean(0)


def rope_toy_attention(
    dim: int,
    length: int,
    *,
    inv_freq: torch.Tensor,
    attention_factor: float,
    layout: str,
    generator: torch.Generator,
) -> torch.Tensor:
    """Causal attention of three toy inputs: the same token at every position without RoPE, with RoPE,
    and random queries and keys with RoPE. Hugging Face multiplies cos and sin by ``attention_factor``.

    Returns:
        (3, length, length) float64, rows summing to 1 over the past.
    """
    token = toy_normal(dim, generator=generator).double().expand(length, dim)  # (L, dim): one token, repeated
    q_rand = toy_normal(length, dim, generator=generator).double()
    k_rand = toy_normal(length, dim, generator=generator).double()
    pos = torch.arange(length)

    def rot(x: torch.Tensor) -> torch.Tensor:
        return attention_factor * apply_rope(x, pos, layout=layout, inv_freq=inv_freq)

    return torch.stack(
        [
            attention_weights(token, token, causal=True),
            attention_weights(rot(token), rot(token), causal=True),
            attention_weights(rot(q_rand), rot(k_rand), causal=True),
        ]
    )

"""Rotary position embedding, RoPE (Su et al. 2021, "RoFormer: Enhanced
Transformer with Rotary Position Embedding").

Each 2-D pair of a query or key is rotated by the angle ``m theta_k`` at position
``m``, with ``theta_k = base ** (-2k / dim)``. Then ``(R_m q) . (R_n k) =
q . R_{n-m} k``: the score depends on ``n - m`` only.

Two layouts pair the components differently:
    interleaved   pairs ``(x[2k], x[2k+1])`` (Meta LLaMA ``apply_rotary_emb``)
    half          pairs ``(x[k], x[k + dim/2])`` (GPT-NeoX, Hugging Face ``rotate_half``)
They are a fixed permutation of each other (:func:`layout_permutation`).

Context-extension scaling (:func:`rope_scaling`) follows Hugging Face
``modeling_rope_utils.py``. Frequencies and angles are computed in float64, so
phases stay exact far past 2^24 positions where float32 ``m * theta`` drifts.

Notation: ``m, n`` positions; ``k`` pair index ``0 .. dim/2 - 1``; ``r = n - m``.
"""

from __future__ import annotations

import math

import torch

from posviz.encodings import checks

LAYOUTS = ("interleaved", "half")
METHODS = ("default", "linear", "dynamic", "yarn", "llama3")

# Hugging Face defaults of each method's own options.
YARN_DEFAULTS = dict(
    beta_fast=32.0, beta_slow=1.0, mscale=None, mscale_all_dim=None, attention_factor=None, truncate=True
)
LLAMA3_DEFAULTS = dict(low_freq_factor=1.0, high_freq_factor=4.0)
METHOD_OPTIONS = {
    "default": {},
    "linear": {},
    "dynamic": {"seq_len": None},
    "yarn": YARN_DEFAULTS,
    "llama3": LLAMA3_DEFAULTS,
}


def check_rope_dim(dim: int) -> None:
    checks.check_even_dim(dim, why="RoPE rotates pairs of components")


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


# ---------------------------------------------------------------- scaling


def _get_mscale(scale: float, mscale: float = 1.0) -> float:
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def yarn_correction_range(
    dim: int, *, base: float, original_max_position: int, beta_fast: float, beta_slow: float, truncate: bool
) -> tuple[float, float]:
    """YaRN's ramp bounds: the pair indices that turn ``beta_fast`` and ``beta_slow`` times in the original context.

    ``d(turns) = dim * log(L / (turns * 2 pi)) / (2 log base)``; floored and ceiled when
    ``truncate``; clamped to ``[0, dim - 1]`` as Hugging Face does.
    """

    def correction_dim(turns: float) -> float:
        return dim * math.log(original_max_position / (turns * 2 * math.pi)) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def _options(method: str, options: dict) -> dict:
    allowed = METHOD_OPTIONS[method]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        names = ", ".join(allowed) or "none"
        raise ValueError(f"{method} scaling has no option {', '.join(unknown)}; its options are: {names}.")
    return {**allowed, **options}


def rope_scaling(
    method: str,
    dim: int,
    *,
    base: float = 10000.0,
    factor: float = 1.0,
    original_max_position: int = 2048,
    **options,
) -> tuple[torch.Tensor, float]:
    """Frequencies and attention factor of a context-extension method, as Hugging Face computes them.

    Semantics of ``transformers.modeling_rope_utils`` (``_compute_<method>_parameters``):
        default  ``inv_freq = base ** (-2k / dim)``.
        linear   position interpolation: ``inv_freq / factor``.
        dynamic  NTK: ``base' = base * (factor * s / L - (factor - 1)) ** (dim / (dim - 2))`` with
                 ``s = max(seq_len, L)``: unchanged while ``seq_len <= L``.
        yarn     per pair, a ramp from interpolated (``inv_freq / factor``, slow pairs) to
                 unchanged (fast pairs) between the correction dims of ``beta_slow`` and
                 ``beta_fast`` turns; attention factor ``0.1 ln(factor) + 1`` (or the mscale ratio).
        llama3   wavelengths ``< L / high_freq_factor`` unchanged, ``> L / low_freq_factor`` divided
                 by ``factor``, smooth in between.
    ``L`` is ``original_max_position`` (``max_position_embeddings`` for dynamic).

    Args:
        method: one of ``METHODS``.
        options: the method's own options under their Hugging Face names: ``seq_len``
            (dynamic); ``beta_fast``, ``beta_slow``, ``mscale``, ``mscale_all_dim``,
            ``attention_factor``, ``truncate`` (yarn); ``low_freq_factor``,
            ``high_freq_factor`` (llama3). ``None`` means unset, as in a config.

    Returns:
        ``(inv_freq, attention_factor)``: (dim/2,) float64 and a float that multiplies
        ``cos`` and ``sin`` (1.0 except for yarn).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}.")
    check_rope_dim(dim)
    check_base(base)
    opts = _options(method, options)
    inv_freq = rope_inv_freq(dim, base=base)  # (dim/2,) float64
    if method == "default":
        return inv_freq, 1.0
    if not math.isfinite(factor) or factor < 1:
        raise ValueError(f"factor must be at least 1 (how many times longer the new context is), got {factor}.")
    if original_max_position < 1:
        raise ValueError(f"original_max_position must be a positive length, got {original_max_position}.")
    big_l = original_max_position
    if method == "linear":
        return inv_freq / factor, 1.0
    if method == "dynamic":
        if dim < 4:
            raise ValueError("dynamic NTK scaling raises base to the power dim / (dim - 2): it needs dim >= 4.")
        seq_len = opts["seq_len"]
        s = big_l if seq_len is None or seq_len <= big_l else seq_len
        new_base = base * ((factor * s / big_l) - (factor - 1)) ** (dim / (dim - 2))
        return rope_inv_freq(dim, base=new_base), 1.0
    if method == "yarn":
        return _yarn(inv_freq, dim, base, factor, big_l, opts)
    return _llama3(inv_freq, factor, big_l, opts), 1.0


def _yarn(inv_freq: torch.Tensor, dim: int, base: float, factor: float, big_l: int, o: dict) -> tuple:
    beta_fast, beta_slow = o["beta_fast"] or 32.0, o["beta_slow"] or 1.0  # Hugging Face: `or 32`, `or 1`
    if beta_fast <= 0 or beta_slow <= 0:
        raise ValueError("beta_fast and beta_slow are numbers of turns: both must be positive.")
    if beta_fast < beta_slow:
        raise ValueError(
            f"beta_fast ({beta_fast:g}) must be at least beta_slow ({beta_slow:g}): the fast pairs turn more often."
        )
    attention_factor = o["attention_factor"]
    if attention_factor is None:
        if o["mscale"] and o["mscale_all_dim"]:
            attention_factor = _get_mscale(factor, o["mscale"]) / _get_mscale(factor, o["mscale_all_dim"])
        else:
            attention_factor = _get_mscale(factor)
    low, high = yarn_correction_range(
        dim, base=base, original_max_position=big_l, beta_fast=beta_fast, beta_slow=beta_slow, truncate=o["truncate"]
    )
    if low == high:
        high += 0.001  # Hugging Face: prevent a division by zero
    ramp = ((torch.arange(dim // 2, dtype=torch.float64) - low) / (high - low)).clamp(0, 1)  # (dim/2,)
    extrapolation = 1 - ramp  # 1: keep the pair's frequency (fast pairs), 0: interpolate it (slow pairs)
    inv_freq = (inv_freq / factor) * (1 - extrapolation) + inv_freq * extrapolation
    return inv_freq, float(attention_factor)


def _llama3(inv_freq: torch.Tensor, factor: float, big_l: int, o: dict) -> torch.Tensor:
    low_ff, high_ff = o["low_freq_factor"], o["high_freq_factor"]
    if not 0 < low_ff < high_ff:
        raise ValueError(
            f"llama3 needs 0 < low_freq_factor < high_freq_factor, got {low_ff:g} and {high_ff:g}: "
            "the smooth band lies between the wavelengths L / high_freq_factor and L / low_freq_factor."
        )
    low_wavelen, high_wavelen = big_l / low_ff, big_l / high_ff
    wavelen = 2 * math.pi / inv_freq  # (dim/2,)
    scaled = torch.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)  # long wavelengths: / factor
    smooth = (big_l / wavelen - low_ff) / (high_ff - low_ff)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = (wavelen >= high_wavelen) & (wavelen <= low_wavelen)
    return torch.where(medium, smoothed, scaled)


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

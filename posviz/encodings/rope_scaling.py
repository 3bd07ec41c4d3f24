"""RoPE context extension and the rotary part of a head, as Hugging Face ``modeling_rope_utils.py`` computes them.

One function per ``rope_type`` (the string a config.json writes): default, linear (position
interpolation), dynamic (NTK), yarn, llama3 and longrope (Phi-3). Two facts about the head decide
how many components rotate at all: ``partial_rotary_factor`` (GPT-NeoX ``rotary_pct``, Phi) and
the decoupled RoPE of multi-head latent attention (DeepSeek-V2/V3 rotate only ``qk_rope_head_dim``).

Frequencies are float64 here; Hugging Face computes them in float32 (``inv_freq`` agrees to ~1e-7).

Notation: ``dim`` rotary dimensions (pairs ``k = 0 .. dim/2 - 1``); ``L`` the trained context
(``original_max_position``); ``s`` the current sequence length.
"""

from __future__ import annotations

import math

import torch

from posviz.encodings.rope import check_base, check_rope_dim, rope_inv_freq

# The page's methods (one slider each); longrope needs a factor per pair, so it comes from a config only.
METHODS = ("default", "linear", "dynamic", "yarn", "llama3")
ALL_METHODS = (*METHODS, "longrope")

# Hugging Face defaults of each method's own options.
YARN_DEFAULTS = dict(
    beta_fast=32.0, beta_slow=1.0, mscale=None, mscale_all_dim=None, attention_factor=None, truncate=True
)
LLAMA3_DEFAULTS = dict(low_freq_factor=1.0, high_freq_factor=4.0)
LONGROPE_DEFAULTS = dict(short_factor=None, long_factor=None, seq_len=None, attention_factor=None)
METHOD_OPTIONS = {
    "default": {},
    "linear": {},
    "dynamic": {"seq_len": None},
    "yarn": YARN_DEFAULTS,
    "llama3": LLAMA3_DEFAULTS,
    "longrope": LONGROPE_DEFAULTS,
}


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
    lenient: bool = False,
    **options,
) -> tuple[torch.Tensor, float]:
    """Frequencies and attention factor of a context-extension method, as Hugging Face computes them.

    Semantics of ``transformers.modeling_rope_utils`` (``_compute_<method>_parameters``):
        default   ``inv_freq = base ** (-2k / dim)``.
        linear    position interpolation: ``inv_freq / factor``.
        dynamic   NTK: ``base' = base * (factor * s / L - (factor - 1)) ** (dim / (dim - 2))`` with
                  ``s = max(seq_len, L)``: unchanged while ``seq_len <= L``.
        yarn      per pair, a ramp from interpolated (``inv_freq / factor``, slow pairs) to
                  unchanged (fast pairs) between the correction dims of ``beta_slow`` and
                  ``beta_fast`` turns; attention factor ``0.1 ln(factor) + 1`` (or the mscale ratio).
        llama3    wavelengths ``< L / high_freq_factor`` unchanged, ``> L / low_freq_factor`` divided
                  by ``factor``, smooth in between.
        longrope  ``inv_freq = 1 / (ext_k * base ** (2k / dim))`` with ``ext = long_factor`` once
                  ``seq_len > L``, else ``short_factor``; attention factor
                  ``sqrt(1 + ln(factor) / ln(L))`` unless given.
    ``L`` is ``original_max_position`` (``max_position_embeddings`` for dynamic).

    Args:
        method: one of ``ALL_METHODS``.
        lenient: accept what Hugging Face accepts with only a warning: llama3 with
            ``low_freq_factor == high_freq_factor`` (a hard cut with no smooth band, as Llama 4 Scout writes).
        options: the method's own options under their Hugging Face names: ``seq_len``
            (dynamic, longrope); ``beta_fast``, ``beta_slow``, ``mscale``, ``mscale_all_dim``,
            ``attention_factor``, ``truncate`` (yarn); ``low_freq_factor``, ``high_freq_factor``
            (llama3); ``short_factor``, ``long_factor`` (lists of dim/2 numbers), ``attention_factor``
            (longrope). ``None`` means unset, as in a config.

    Returns:
        ``(inv_freq, attention_factor)``: (dim/2,) float64 and a float that multiplies
        ``cos`` and ``sin`` (1.0 except for yarn and longrope).
    """
    if method not in ALL_METHODS:
        raise ValueError(f"method must be one of {ALL_METHODS}, got {method!r}.")
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
    if method == "longrope":
        return _longrope(inv_freq, factor, big_l, opts)
    return _llama3(inv_freq, factor, big_l, opts, lenient=lenient), 1.0


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


def _llama3(inv_freq: torch.Tensor, factor: float, big_l: int, o: dict, *, lenient: bool = False) -> torch.Tensor:
    low_ff, high_ff = o["low_freq_factor"], o["high_freq_factor"]
    if not (0 < low_ff < high_ff or (lenient and 0 < low_ff == high_ff)):
        raise ValueError(
            f"llama3 needs 0 < low_freq_factor < high_freq_factor, got {low_ff:g} and {high_ff:g}: "
            "the smooth band lies between the wavelengths L / high_freq_factor and L / low_freq_factor."
        )
    low_wavelen, high_wavelen = big_l / low_ff, big_l / high_ff
    wavelen = 2 * math.pi / inv_freq  # (dim/2,)
    scaled = torch.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)  # long wavelengths: / factor
    medium = (wavelen >= high_wavelen) & (wavelen <= low_wavelen)
    if low_ff == high_ff:  # no smooth band: Hugging Face's 0/0 smoothing is computed but never selected
        return scaled
    smooth = (big_l / wavelen - low_ff) / (high_ff - low_ff)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    return torch.where(medium, smoothed, scaled)


def longrope_attention_factor(factor: float, original_max_position: int) -> float:
    """Phi-3's default attention factor: ``sqrt(1 + ln(factor) / ln(L))``, 1 when ``factor <= 1``."""
    if factor <= 1.0:
        return 1.0
    return math.sqrt(1 + math.log(factor) / math.log(original_max_position))


def _longrope(inv_freq: torch.Tensor, factor: float, big_l: int, o: dict) -> tuple:
    pairs = inv_freq.shape[0]
    seq_len = o["seq_len"]
    which = "long_factor" if seq_len and seq_len > big_l else "short_factor"  # Hugging Face: `seq_len > L`
    for name in ("short_factor", "long_factor"):
        ext = o[name]
        if ext is None or len(ext) != pairs:
            got = "nothing" if ext is None else f"{len(ext)} numbers"
            raise ValueError(f"longrope needs {name}: one number per pair, {pairs} of them; got {got}.")
        if not all(isinstance(x, int | float) and math.isfinite(x) and x > 0 for x in ext):
            raise ValueError(f"longrope {name} must hold positive finite numbers (a divisor per pair).")
    attention_factor = o["attention_factor"]
    if attention_factor is None:
        attention_factor = longrope_attention_factor(factor, big_l)
    ext = torch.tensor(o[which], dtype=torch.float64)  # (dim/2,)
    return inv_freq / ext, float(attention_factor)


# ---------------------------------------------------------------- which components rotate


def rotary_dim(head_dim: int, partial_rotary_factor: float = 1.0) -> int:
    """How many components of a head RoPE rotates: ``int(head_dim * partial_rotary_factor)``.

    GPT-NeoX (``rotary_pct``, Pythia 0.25) and Phi (``partial_rotary_factor``, Phi-2 0.4) rotate
    the first part of each head and leave the rest as it is; Hugging Face truncates with ``int``.

    Returns:
        an even int in ``[2, head_dim]``.
    """
    if head_dim < 2:
        raise ValueError(f"head_dim must be at least 2, got {head_dim}.")
    if not (math.isfinite(partial_rotary_factor) and 0 < partial_rotary_factor <= 1):
        raise ValueError(f"partial_rotary_factor must lie in (0, 1], got {partial_rotary_factor}.")
    dim = int(head_dim * partial_rotary_factor)
    if dim < 2 or dim % 2:
        raise ValueError(
            f"head_dim * partial_rotary_factor = {head_dim} * {partial_rotary_factor:g} gives {dim} rotary "
            "components: RoPE needs an even number, at least 2."
        )
    return dim


def mla_head_dims(qk_nope_head_dim: int, qk_rope_head_dim: int) -> tuple[int, int, int]:
    """Multi-head latent attention (DeepSeek-V2/V3): the decoupled RoPE part of each query/key head.

    A head's ``qk_nope_head_dim`` components come from the compressed latent and never rotate;
    ``qk_rope_head_dim`` more components (a key part shared by all heads) carry RoPE.

    Returns:
        ``(rotary, not_rotated, qk_head_dim)``; ``rotary`` is what ``rope_scaling`` gets as ``dim``.
    """
    check_rope_dim(qk_rope_head_dim)
    if qk_nope_head_dim < 0:
        raise ValueError(f"qk_nope_head_dim must be at least 0, got {qk_nope_head_dim}.")
    return qk_rope_head_dim, qk_nope_head_dim, qk_nope_head_dim + qk_rope_head_dim


def mla_softmax_scale(qk_head_dim: int, *, factor: float, mscale_all_dim: float | None) -> float:
    """DeepSeek-V3's softmax scale: ``qk_head_dim ** -0.5``, times ``mscale(factor, mscale_all_dim) ** 2``.

    With YaRN's ``mscale == mscale_all_dim`` the rotary attention factor is 1, and the length
    correction moves here instead (Hugging Face ``yarn_apply_mscale``): 1.874x for factor 40.
    """
    scale = qk_head_dim**-0.5
    if mscale_all_dim:
        m = _get_mscale(factor, mscale_all_dim)
        scale *= m * m
    return scale

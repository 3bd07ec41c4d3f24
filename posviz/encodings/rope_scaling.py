"""RoPE context extension and the rotary part of a head, as Hugging Face ``modeling_rope_utils.py`` computes them.

``ROPE_SCALING`` is the registry: one entry per ``rope_type`` (the string a config.json writes) with
its function, its own options (Hugging Face names and defaults, and the range and words the page
shows them with), after Hugging Face's ``ROPE_INIT_FUNCTIONS``. The page's controls, cache keys and
code snippets are derived from it: adding a method is one entry and its function. Each function is
self-contained (``math`` and ``torch``, and the helpers its entry lists), so the page shows its source.

Two facts about the head decide how many components rotate at all: ``partial_rotary_factor``
(GPT-NeoX ``rotary_pct``, Phi) and the decoupled RoPE of multi-head latent attention (DeepSeek-V2/V3
rotate only ``qk_rope_head_dim``).

Frequencies are float64 here; Hugging Face computes them in float32 (``inv_freq`` agrees to ~1e-7).

Notation: ``dim`` rotary dimensions (pairs ``k = 0 .. dim/2 - 1``); ``L`` the trained context
(``original_max_position``); ``s`` the current sequence length.
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from posviz.encodings.rope import check_rope_dim, rope_inv_freq
from posviz.i18n import DEFAULT, N_, _, current

# ---------------------------------------------------------------- one function per method
# Signature: (inv_freq (dim/2,) float64 default frequencies, *, dim, base, factor, original_max_position,
# the method's own options) -> (inv_freq (dim/2,) float64, attention_factor). ``factor >= 1`` and
# ``original_max_position >= 1`` are checked once, in rope_scaling.


def default_scaling(inv_freq, *, dim, base, factor, original_max_position):
    """No scaling: ``inv_freq = base ** (-2k / dim)``."""
    return inv_freq, 1.0


def linear_scaling(inv_freq, *, dim, base, factor, original_max_position):
    """Position interpolation: position m acts as m / factor."""
    return inv_freq / factor, 1.0


def dynamic_scaling(inv_freq, *, dim, base, factor, original_max_position, seq_len=None):
    """Dynamic NTK: a larger base once the sequence outgrows the trained context (unchanged while s <= L)."""
    if dim < 4:
        raise ValueError("dynamic NTK scaling raises base to the power dim / (dim - 2): it needs dim >= 4.")
    s = original_max_position if seq_len is None or seq_len <= original_max_position else seq_len
    ntk_base = base * (factor * s / original_max_position - (factor - 1)) ** (dim / (dim - 2))
    return 1.0 / ntk_base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim), 1.0


def get_mscale(scale: float, mscale: float = 1.0) -> float:
    """YaRN's attention scaling: ``0.1 mscale ln(scale) + 1``, 1 when ``scale <= 1``."""
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


def yarn_scaling(
    inv_freq,
    *,
    dim,
    base,
    factor,
    original_max_position,
    beta_fast=32.0,
    beta_slow=1.0,
    mscale=None,
    mscale_all_dim=None,
    attention_factor=None,
    truncate=True,
):
    """YaRN: per pair, a ramp from interpolated (slow pairs) to unchanged (fast pairs); attention factor
    ``0.1 ln(factor) + 1``, the ratio of two mscales (DeepSeek), or as given."""
    beta_fast, beta_slow = beta_fast or 32.0, beta_slow or 1.0  # Hugging Face: `or 32`, `or 1`
    if beta_fast <= 0 or beta_slow <= 0:
        raise ValueError("beta_fast and beta_slow are numbers of turns: both must be positive.")
    if beta_fast < beta_slow:
        raise ValueError(
            f"beta_fast ({beta_fast:g}) must be at least beta_slow ({beta_slow:g}): the fast pairs turn more often."
        )
    if attention_factor is None:
        if mscale and mscale_all_dim:
            attention_factor = get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)
        else:
            attention_factor = get_mscale(factor)
    low, high = yarn_correction_range(
        dim,
        base=base,
        original_max_position=original_max_position,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
        truncate=truncate,
    )
    if low == high:
        high += 0.001  # Hugging Face: prevent a division by zero
    ramp = ((torch.arange(dim // 2, dtype=torch.float64) - low) / (high - low)).clamp(0, 1)  # (dim/2,) 0 fast, 1 slow
    extrapolation = 1 - ramp  # 1: keep the pair's frequency (fast pairs), 0: interpolate it (slow pairs)
    inv_freq = (inv_freq / factor) * (1 - extrapolation) + inv_freq * extrapolation
    return inv_freq, float(attention_factor)


def llama3_scaling(
    inv_freq, *, dim, base, factor, original_max_position, low_freq_factor=1.0, high_freq_factor=4.0, lenient=False
):
    """Llama 3.1: wavelengths ``< L / high_freq_factor`` unchanged, ``> L / low_freq_factor`` divided by
    ``factor``, smooth in between. ``lenient`` accepts ``low_freq_factor == high_freq_factor`` (a hard cut,
    as Llama 4 Scout writes), which Hugging Face accepts with a warning."""
    low_ff, high_ff = low_freq_factor, high_freq_factor
    if not (0 < low_ff < high_ff or (lenient and 0 < low_ff == high_ff)):
        raise ValueError(
            f"llama3 needs 0 < low_freq_factor < high_freq_factor, got {low_ff:g} and {high_ff:g}: "
            "the smooth band lies between the wavelengths L / high_freq_factor and L / low_freq_factor."
        )
    wavelen = 2 * math.pi / inv_freq  # (dim/2,) tokens per turn
    scaled = torch.where(wavelen > original_max_position / low_ff, inv_freq / factor, inv_freq)  # long: / factor
    if low_ff == high_ff:  # no smooth band: Hugging Face's 0/0 smoothing is computed but never selected
        return scaled, 1.0
    medium = (wavelen >= original_max_position / high_ff) & (wavelen <= original_max_position / low_ff)
    smooth = (original_max_position / wavelen - low_ff) / (high_ff - low_ff)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    return torch.where(medium, smoothed, scaled), 1.0


def longrope_attention_factor(factor: float, original_max_position: int) -> float:
    """Phi-3's default attention factor: ``sqrt(1 + ln(factor) / ln(L))``, 1 when ``factor <= 1``."""
    if factor <= 1.0:
        return 1.0
    return math.sqrt(1 + math.log(factor) / math.log(original_max_position))


def longrope_scaling(
    inv_freq,
    *,
    dim,
    base,
    factor,
    original_max_position,
    short_factor=None,
    long_factor=None,
    seq_len=None,
    attention_factor=None,
):
    """LongRoPE (Phi-3): ``inv_freq / ext_k`` with ``ext = long_factor`` once ``seq_len > L``, else
    ``short_factor``; attention factor ``sqrt(1 + ln(factor) / ln(L))`` unless given."""
    for name, ext in (("short_factor", short_factor), ("long_factor", long_factor)):
        if ext is None or len(ext) != dim // 2:
            got = "nothing" if ext is None else f"{len(ext)} numbers"
            raise ValueError(f"longrope needs {name}: one number per pair, {dim // 2} of them; got {got}.")
        if not all(isinstance(x, int | float) and math.isfinite(x) and x > 0 for x in ext):
            raise ValueError(f"longrope {name} must hold positive finite numbers (a divisor per pair).")
    ext = long_factor if seq_len and seq_len > original_max_position else short_factor  # Hugging Face: `seq_len > L`
    if attention_factor is None:
        attention_factor = longrope_attention_factor(factor, original_max_position)
    return inv_freq / torch.tensor(ext, dtype=torch.float64), float(attention_factor)


# ---------------------------------------------------------------- the registry


@dataclass(frozen=True)
class Option:
    """One of a method's own options, under its Hugging Face name."""

    name: str
    default: Any  # Hugging Face's; None: unset
    help: str  # what the page's control says of it, its method's label first
    bounds: tuple[float, float] | None = None  # the page's range for a number; None: a toggle, or from a config only
    step: float | None = None
    label: str = ""  # how the page names it; the name when empty


@dataclass(frozen=True)
class ScalingMethod:
    """A context-extension method: the ``rope_type``, its function and its own options, in Hugging Face's order."""

    rope_type: str
    label: str  # a few words for the page
    compute: Callable[..., tuple[torch.Tensor, float]]
    options: tuple[Option, ...] = ()
    reads: tuple[str, ...] = ("factor", "original_max_position")  # of the settings every method may read
    helpers: tuple[Callable, ...] = ()  # the functions ``compute`` calls (shown with it)
    on_page: bool = True  # False: its options come from a config only (a factor per pair)


SEQ_LEN = Option("seq_len", None, "The current sequence length (the page's own seq_len).")
ATTENTION_FACTOR = "Multiplies cos and sin; 0 means unset (computed from factor)."
# The page's words are marked for the catalogue (posviz.i18n): the methods' labels and the helps of the
# options the page draws (yarn's and llama3's; longrope's come from a config only).
ROPE_SCALING: dict[str, ScalingMethod] = {
    m.rope_type: m
    for m in (
        ScalingMethod("default", N_("no scaling"), default_scaling, reads=()),
        ScalingMethod("linear", N_("position interpolation"), linear_scaling, reads=("factor",)),
        ScalingMethod("dynamic", N_("dynamic NTK"), dynamic_scaling, (SEQ_LEN,)),
        ScalingMethod(
            "yarn",
            "YaRN",
            yarn_scaling,
            (
                Option(
                    "beta_fast",
                    32.0,
                    N_("YaRN: Pairs that turn more often than this inside the original context are kept."),
                    bounds=(0.25, 4096.0),
                    step=0.25,
                    label=N_("beta_fast (turns)"),
                ),
                Option(
                    "beta_slow",
                    1.0,
                    N_("YaRN: Pairs that turn fewer times than this inside the original context are interpolated."),
                    bounds=(0.25, 4096.0),
                    step=0.25,
                    label=N_("beta_slow (turns)"),
                ),
                Option(
                    "mscale",
                    None,
                    N_("YaRN: DeepSeek: with mscale_all_dim, the attention factor is a ratio; 0 means unset."),
                    bounds=(0.0, 10.0),
                    step=0.001,
                ),
                Option(
                    "mscale_all_dim",
                    None,
                    N_("YaRN: DeepSeek: see mscale; 0 means unset."),
                    bounds=(0.0, 10.0),
                    step=0.001,
                ),
                Option(
                    "attention_factor",
                    None,
                    N_("YaRN: Multiplies cos and sin; 0 means unset (computed from factor)."),
                    bounds=(0.0, 10.0),
                    step=0.001,
                ),
                Option(
                    "truncate",
                    True,
                    N_("YaRN: Round the ramp's ends to whole pairs (floor and ceil), as the reference does."),
                ),
            ),
            helpers=(get_mscale, yarn_correction_range),
        ),
        ScalingMethod(
            "llama3",
            "Llama 3.1",
            llama3_scaling,
            (
                Option(
                    "low_freq_factor",
                    1.0,
                    N_("Llama 3.1: Wavelengths above original_max_position / low_freq_factor are divided by factor."),
                    bounds=(0.25, 1024.0),
                    step=0.25,
                ),
                Option(
                    "high_freq_factor",
                    4.0,
                    N_("Llama 3.1: Wavelengths below original_max_position / high_freq_factor are kept."),
                    bounds=(0.25, 1024.0),
                    step=0.25,
                ),
            ),
        ),
        ScalingMethod(
            "longrope",
            "LongRoPE",
            longrope_scaling,
            (
                Option("short_factor", None, "A divisor per pair within the trained context."),
                Option("long_factor", None, "A divisor per pair past the trained context."),
                SEQ_LEN,
                Option("attention_factor", None, ATTENTION_FACTOR),
            ),
            helpers=(longrope_attention_factor,),
            on_page=False,
        ),
    )
}
METHODS = tuple(t for t, m in ROPE_SCALING.items() if m.on_page)  # the page's methods
ALL_METHODS = tuple(ROPE_SCALING)
ScalingOptions = tuple[tuple[str, Any], ...]  # a method's own options as sorted (name, value) pairs: a cache key


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

    Semantics of ``transformers.modeling_rope_utils`` (``_compute_<method>_parameters``): see each
    method's function in ``ROPE_SCALING``. ``L`` is ``original_max_position``
    (``max_position_embeddings`` for dynamic).

    Args:
        method: a key of ``ROPE_SCALING`` (``ALL_METHODS``).
        lenient: accept what Hugging Face accepts with only a warning: llama3 with
            ``low_freq_factor == high_freq_factor`` (a hard cut with no smooth band, as Llama 4 Scout writes).
        options: the method's own options under their Hugging Face names (``ROPE_SCALING[method].options``);
            ``None`` means unset, as in a config.

    Returns:
        ``(inv_freq, attention_factor)``: (dim/2,) float64 and a float that multiplies
        ``cos`` and ``sin`` (1.0 except for yarn and longrope).
    """
    if method not in ROPE_SCALING:
        raise ValueError(
            _("method must be one of {methods}, got {method}.").format(methods=ALL_METHODS, method=repr(method))
        )
    m = ROPE_SCALING[method]
    inv_freq = rope_inv_freq(dim, base=base)  # (dim/2,) float64; checks dim and base
    allowed = [o.name for o in m.options]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(
            _("{method} scaling has no option {unknown}; its options are: {allowed}.").format(
                method=method, unknown=", ".join(unknown), allowed=", ".join(allowed) or _("none")
            )
        )
    if m.reads:
        if not math.isfinite(factor) or factor < 1:
            raise ValueError(
                _("factor must be at least 1 (how many times longer the new context is), got {factor}.").format(
                    factor=factor
                )
            )
        if original_max_position < 1:
            raise ValueError(
                _("original_max_position must be a positive length, got {original_max_position}.").format(
                    original_max_position=original_max_position
                )
            )
    if lenient and "lenient" in inspect.signature(m.compute).parameters:
        options["lenient"] = True
    try:
        return m.compute(
            inv_freq, dim=dim, base=base, factor=factor, original_max_position=original_max_position, **options
        )
    except ValueError as err:
        if current() == DEFAULT:
            raise
        raise ValueError(rule_message(str(err))) from err


# The rules of the methods' functions, for the catalogue. Those functions are shown on the page as they are
# and run with math and torch alone, so they raise in English; rope_scaling gives their messages in the
# run's language (rule_message). tests/encodings checks that each message a function raises is one of these.
RULES = (
    N_("dynamic NTK scaling raises base to the power dim / (dim - 2): it needs dim >= 4."),
    N_("beta_fast and beta_slow are numbers of turns: both must be positive."),
    N_("beta_fast ({beta_fast}) must be at least beta_slow ({beta_slow}): the fast pairs turn more often."),
    N_(
        "llama3 needs 0 < low_freq_factor < high_freq_factor, got {low_freq_factor} and {high_freq_factor}: "
        "the smooth band lies between the wavelengths L / high_freq_factor and L / low_freq_factor."
    ),
    N_("longrope {name} must hold positive finite numbers (a divisor per pair)."),
)


def rule_pattern(template: str) -> re.Pattern[str]:
    """A regular expression matching ``template`` with any text in place of each ``{name}``."""
    parts = re.split(r"\{(\w+)\}", template)  # literal, name, literal, name, ..., literal
    return re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts)), re.S)


def rule_message(message: str) -> str:
    """A method function's rule ``message`` (English) in the run's language: as it is when it is none of ``RULES``."""
    for template in RULES:
        found = rule_pattern(template).fullmatch(message)
        if found:
            return _(template).format(**found.groupdict())
    return message


def method_source(method: str) -> str:
    """The source of a method's function and its helpers: code that runs with ``math`` and ``torch`` alone."""
    m = ROPE_SCALING[method]
    return "\n\n".join(inspect.getsource(f) for f in (*m.helpers, m.compute))


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
        m = get_mscale(factor, mscale_all_dim)
        scale *= m * m
    return scale

"""Which tokens each layer of a real model attends to, derived from its config.json as ``transformers`` does.

Three attention kinds (Hugging Face ``masking_utils``), for a query at position ``i`` and a key at ``j <= i``:
    full      every earlier key.
    sliding   the last ``window`` keys: ``j > i - window`` (the query itself included).
    chunked   keys in the query's own chunk: ``j // window == i // window`` (Llama 4).

``reach_start`` composes the layers: after ``n`` layers, position ``i`` holds information from
positions ``[reach_start(...), i]`` only, because every mask is a contiguous range ending at ``i``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from posviz.encodings.model_fields import MAX_CONTEXT, MAX_LAYERS, Fields

KINDS = ("full", "sliding", "chunked")
# Every other layer kind reaches keys like one of these (or only itself): the mask a query sees.
# indexed / sparse / compressed: any earlier key may be picked (by content); a recurrence carries all;
# a convolution reaches its kernel; an MLP layer mixes no tokens.
REACHES_LIKE = {
    "full": "full", "sliding": "sliding", "chunked": "chunked", "indexed": "full", "minimax_m3_sparse": "full",
    "compressed_sparse": "full", "heavily_compressed": "full", "hybrid": "full", "hybrid_sliding": "sliding",
    "reference_sliding": "sliding", "window": "chunked", "linear": "full", "conv": "sliding", "mlp": "self",
    "moe": "self",
}  # fmt: skip
HF_KINDS = {"full_attention": "full", "sliding_attention": "sliding", "chunked_attention": "chunked"}

# Config classes that read `layer_types` (the others ignore it, as transformers does).
READS_LAYER_TYPES = {"qwen2", "qwen3", "qwen2_moe", "gemma2", "gemma3_text", "gpt_oss", "llama4_text", "smollm3"}
# Classes whose every layer slides when `sliding_window` is set; classes that never slide.
SLIDES_EVERY_LAYER = {"mistral", "mixtral", "phi3", "starcoder2"}
NEVER_SLIDES = {
    "llama",
    "deepseek_v2",
    "deepseek_v3",
    "phi",
    "gpt_neox",
    "falcon",
    "cohere",
    "gemma",
    "olmo2",
    "granite",
}
SWITCHED = {"qwen2", "qwen3", "qwen2_moe", "qwen3_moe", "smollm3"}  # sliding_window only with use_sliding_window
ALTERNATES = {"gemma2": 2, "gpt_oss": 2}  # sliding when (i + 1) % n, full every n-th layer


@dataclass(frozen=True)
class Layer:
    """One layer's position facts."""

    attention: str  # "full" | "sliding" | "chunked" | any kind of model_hf.KINDS (REACHES_LIKE says how it reaches)
    window: int | None  # tokens in the sliding window or the chunk; None for full
    rope: bool  # False: a NoPE layer, no position signal at all
    causal: bool = True  # False in an encoder (BERT, the T5 and Marian encoders)
    stack: str = "decoder"  # "encoder" | "decoder"


def _rope_flags(f: Fields, model_type: str, num_layers: int) -> list[int] | None:
    """``no_rope_layers`` (1 = RoPE, 0 = NoPE), derived from the interval when absent; None: no NoPE layers."""
    if model_type not in ("llama4_text", "smollm3") and not f.given("no_rope_layers"):
        return None
    interval_key = "nope_layer_interval" if f.given("nope_layer_interval") else "no_rope_layer_interval"
    flags = f.items("no_rope_layers")
    # Llama 4 derives the flags when the list is empty too; SmolLM3 only when it is absent.
    if flags is None or (not flags and model_type == "llama4_text"):
        n = f.integer(interval_key, 4, lo=1, hi=MAX_LAYERS)
        return [int((i + 1) % n != 0) for i in range(num_layers)]
    if len(flags) != num_layers:
        raise ValueError(f"no_rope_layers must have one entry per layer ({num_layers}), got {len(flags)}.")
    if any(x not in (0, 1) or isinstance(x, float) for x in flags):
        raise ValueError("no_rope_layers must hold 1 (RoPE) or 0 (no position encoding) for each layer.")
    return [int(x) for x in flags]


def _hf_layer_types(f: Fields, model_type: str, num_layers: int, flags: list[int] | None) -> list[str]:
    """Each layer's kind under transformers' names, before windows are checked."""
    if f.given("layer_types") and (model_type in READS_LAYER_TYPES or model_type not in _KNOWN):
        types = f.items("layer_types", length=num_layers)
        for i, t in enumerate(types):
            if t not in HF_KINDS:
                raise ValueError(f"layer_types[{i}] is {t!r:.40}; posviz reads {', '.join(HF_KINDS)}.")
        if model_type == "gemma3_text" and f.given("sliding_window_pattern"):
            n = f.integer("sliding_window_pattern", lo=1, hi=MAX_LAYERS)
            if types != ["sliding_attention" if (i + 1) % n else "full_attention" for i in range(num_layers)]:
                raise ValueError(f"layer_types and sliding_window_pattern ({n}) disagree: give one of them.")
        return list(types)
    if model_type == "llama4_text":
        return ["chunked_attention" if rope else "full_attention" for rope in flags]
    if model_type == "smollm3":
        sliding = f.flag("use_sliding_window", False) and f.given("sliding_window")
        return ["sliding_attention" if sliding and not rope else "full_attention" for rope in flags]
    if model_type in ("qwen2", "qwen3", "qwen2_moe"):
        if not (f.flag("use_sliding_window", False) and f.raw("sliding_window") is not None):
            return ["full_attention"] * num_layers
        first = f.integer("max_window_layers", 28, lo=0, hi=MAX_LAYERS)
        return ["sliding_attention" if i >= first else "full_attention" for i in range(num_layers)]
    if model_type in ALTERNATES or model_type == "gemma3_text":
        n = ALTERNATES.get(model_type) or f.integer("sliding_window_pattern", 6, lo=1, hi=MAX_LAYERS)
        return ["sliding_attention" if (i + 1) % n else "full_attention" for i in range(num_layers)]
    if model_type in NEVER_SLIDES or f.raw("sliding_window") is None:
        return ["full_attention"] * num_layers
    if model_type in SLIDES_EVERY_LAYER:
        return ["sliding_attention"] * num_layers
    on = f.flag("use_sliding_window", True)  # other classes: on unless switched off (class default or config)
    return ["sliding_attention" if on else "full_attention"] * num_layers


_KNOWN = READS_LAYER_TYPES | SLIDES_EVERY_LAYER | NEVER_SLIDES | set(ALTERNATES)


def derive_layers(f: Fields, model_type: str, num_layers: int, context: int) -> tuple[tuple[Layer, ...], list[str]]:
    """Every layer's attention kind, window and RoPE flag, as transformers derives them.

    Args:
        f: the (text) config's fields.
        context: the longest sequence the model takes (a window at least this long is full in effect).

    Returns:
        ``(layers, notes)``: one :class:`Layer` per decoder layer, and sentences worth telling.
    """
    flags = _rope_flags(f, model_type, num_layers)
    types = _hf_layer_types(f, model_type, num_layers, flags)
    notes = []
    window = chunk = None
    if "sliding_attention" in types:
        window = f.integer("sliding_window", None, lo=1, hi=MAX_CONTEXT, cap="2^30 tokens at most")
        if model_type in SWITCHED and not f.flag("use_sliding_window", False):
            window = None  # these classes null the window unless use_sliding_window is true
        if window is None:
            raise ValueError("layer_types has sliding layers, but no sliding_window is in force.")
        if window >= context:
            notes.append(
                f"sliding_window {window:,} covers the whole context ({context:,} tokens): full attention in effect."
            )
    if "chunked_attention" in types:
        chunk = f.integer("attention_chunk_size", None, lo=1, hi=MAX_CONTEXT, cap="2^30 tokens at most")
        if chunk is None:
            raise ValueError("layer_types has chunked layers, but attention_chunk_size is not set.")
    layers = []
    for i, t in enumerate(types):
        kind, size = HF_KINDS[t], {"sliding_attention": window, "chunked_attention": chunk}.get(t)
        if size is not None and size >= context:
            kind, size = "full", None
        layers.append(Layer(attention=kind, window=size, rope=True if flags is None else bool(flags[i])))
    return tuple(layers), notes


# ---------------------------------------------------------------- masks and reach


def attention_mask(attention: str, window: int | None, q_pos: torch.Tensor, k_pos: torch.Tensor) -> torch.Tensor:
    """Which keys each query attends to, causal, as Hugging Face ``masking_utils`` builds it.

    Args:
        q_pos: (q_len,) int64 query positions; k_pos: (k_len,) int64 key positions (a strided sample is fine).

    Returns:
        (q_len, k_len) bool, True where query ``i`` sees key ``j``.
    """
    if attention not in REACHES_LIKE:
        raise ValueError(f"attention must be one of {tuple(REACHES_LIKE)}, got {attention!r}.")
    attention = REACHES_LIKE[attention]
    if attention in ("sliding", "chunked") and (window is None or window < 1):
        raise ValueError(f"{attention} attention needs a positive window, got {window}.")
    i, j = q_pos[:, None], k_pos[None, :]  # (q, 1), (1, k)
    mask = j <= i
    if attention == "self":
        return j == i
    if attention == "sliding":
        mask &= j > i - window
    elif attention == "chunked":
        mask &= torch.div(j, window, rounding_mode="floor") == torch.div(i, window, rounding_mode="floor")
    return mask


def window_start(layer: Layer, position: int) -> int:
    """The first key position ``position`` attends to in this layer."""
    like = REACHES_LIKE.get(layer.attention, "full")
    if like == "sliding":
        return max(0, position - layer.window + 1)
    if like == "chunked":
        return position - position % layer.window
    if like == "self":
        return position
    return 0


def reach_start(layers: tuple[Layer, ...] | list[Layer], position: int) -> int:
    """Earliest position whose information can be at ``position`` after ``layers`` (first to last).

    Information moves one mask per layer: ``start_n(i) = start_{n-1}(first key of layer n at i)``,
    so the last layer is applied first. A full layer reaches 0; chunked layers never leave the chunk.
    """
    start = position
    for layer in reversed(layers):
        start = window_start(layer, start)
        if start == 0:
            break
    return start


def reach_curve(layers: tuple[Layer, ...], position: int, *, only: tuple[str, ...] | None = None) -> list[int]:
    """``position - reach_start(layers[:n], position)`` for ``n = 0 .. len(layers)``: tokens back reached.

    Args:
        only: count only layers of these kinds (the others pass information on unchanged), e.g.
            ``("sliding",)`` for how far the sliding layers alone carry it.
    """
    kept = [x if only is None or x.attention in only else None for x in layers]
    return [position - reach_start([x for x in kept[:n] if x is not None], position) for n in range(len(layers) + 1)]

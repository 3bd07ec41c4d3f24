"""How a real checkpoint places position, layer by layer, from its Hugging Face config.json.

    mp = model_positions(config)        # config: the dict json.load gives for a config.json
    mp.num_layers, mp.layers            # per layer: .attention ("full" | "sliding" | "chunked"), .window, .rope
    mp.rope("sliding", seq_len=8192)    # (inv_freq (rotary_dim // 2,), attention_factor)

A ``model_type`` transformers does not register is read by the class its ``architectures`` (or its
``text_config``) names, or guessed or refused, and the notes say which (see model_types).
The derivation is transformers' own (``configuration_<model>.py`` and ``modeling_rope_utils.py``,
version 5): layer kinds from ``layer_types`` or the class's rule, RoPE per kind (see model_rope),
and the class defaults for every field a config.json leaves out (see model_fields). Families:
    learned      a trained table of positions (GPT-2, BERT): nothing past its last row.
    sinusoidal   the fixed sin/cos table of the original Transformer (Marian).
    t5           learned bias per relative-distance bucket (T5, mT5, Flan-T5).
    alibi        a linear distance penalty per head (BLOOM, MPT).
    rope         rotary position embedding in every layer.
    nope-hybrid  RoPE in some layers and no position encoding at all in others (Llama 4, SmolLM3).
Untrusted input: anything wrong or absurd raises ValueError naming the field, before any allocation.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import torch

from posviz.encodings.model_fields import DEFAULTS, MAX_CONTEXT, MAX_HEADS, MAX_LAYERS, Fields, show
from posviz.encodings.model_hf import (
    KINDS,
    NO_POSITION,
    RULE_OF,
    attr,
    hf_config,
    layer_kinds,
    preload,
    rope_key,
    uses_rope,
)
from posviz.encodings.model_layers import Layer
from posviz.encodings.model_rope import MAX_HEAD_DIM, Head, RopeSpec, rope_spec
from posviz.encodings.model_types import resolve
from posviz.encodings.model_vision import VisionFacts, vision_facts
from posviz.i18n import N_, _

INTERLEAVED = ("cohere", "cohere2", "cohere2_moe", "deepseek_v2")  # modeling code pairs (0, 1), (2, 3), ...

FAMILIES = ("learned", "sinusoidal", "t5", "alibi", "rope", "nope-hybrid")
LEARNED = {"gpt2": "n_positions", "bert": "max_position_embeddings", "roberta": "max_position_embeddings"}
LEARNED.update({"opt": "max_position_embeddings", "xlm-roberta": "max_position_embeddings"})
SINUSOIDAL = ("marian", "fsmt", "m2m_100")
T5 = ("t5", "mt5", "umt5")
CONFIG_DIR = Path(__file__).resolve().parent.parent / "model_configs"
MAX_CONFIG_BYTES = 1_000_000
UNSET_CONTEXT = 2048  # PretrainedConfig's old default length: what RoPE is built at when a config sets none
_CTX = dict(lo=1, hi=MAX_CONTEXT, cap=N_("2^30 tokens at most"))
_LAYERS = dict(lo=1, hi=MAX_LAYERS, cap=N_("posviz reads at most {hi} layers"))  # {hi}: MAX_LAYERS
_HEADS = dict(lo=1, hi=MAX_HEADS)


@dataclass(frozen=True)
class T5Facts:
    num_buckets: int
    max_distance: int
    heads: int
    per_layer_bias: bool  # umT5: every layer learns its own table; T5: the first layer's is shared


@dataclass(frozen=True)
class AlibiFacts:
    heads: int
    bias_max: float  # MPT's alibi_bias_max (slopes 2^(-bias_max * k / n)); 8 in the paper and in BLOOM


@dataclass(frozen=True)
class TableFacts:
    """A learned or a fixed sinusoidal table of absolute positions."""

    size: int  # rows: the positions it has
    dim: int
    offset: int = 0  # rows before position 0 (OPT, RoBERTa: 2)
    layout: str = ""  # sinusoidal: "concat" ([sin | cos]) or "interleaved"


@dataclass(frozen=True)
class ModelPositions:
    """Position facts of one model, per layer and per attention kind."""

    model_type: str
    family: str
    layers: tuple[Layer, ...]
    heads: int
    max_position: int | None  # the longest input the config allows (None: ALiBi without a limit)
    ropes: tuple[tuple[str, RopeSpec], ...] = ()  # attention kind -> its RoPE, for the kinds with RoPE layers
    t5: T5Facts | None = None
    alibi: AlibiFacts | None = None
    table: TableFacts | None = None
    notes: tuple[str, ...] = ()
    vision: VisionFacts | None = None  # a vision-language model: its M-RoPE and vision encoder (model_vision)

    @property
    def num_layers(self) -> int:
        return len(self.layers)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The layer kinds present, in the order of :data:`model_hf.KINDS` (full, sliding, chunked, ...)."""
        present = {layer.attention for layer in self.layers}
        return tuple(k for k in KINDS if k in present)

    def rope_spec(self, attention: str) -> RopeSpec:
        specs = dict(self.ropes)
        if attention not in specs:
            has = ", ".join(specs) or _("none")
            raise ValueError(
                _("no {attention} layer of this {model_type} model uses RoPE (RoPE kinds: {has}).").format(
                    attention=attention, model_type=self.model_type, has=has
                )
            )
        return specs[attention]

    def rope(self, attention: str, seq_len: int | None = None) -> tuple[torch.Tensor, float]:
        """Frequencies of the RoPE layers of one attention kind at ``seq_len``.

        Returns:
            ``(inv_freq, attention_factor)``: (rotary_dim // 2,) float64 and the factor on cos and sin.
        """
        if seq_len is not None and not (isinstance(seq_len, int) and 1 <= seq_len <= MAX_CONTEXT):
            raise ValueError(_("seq_len must be a whole number in [1, 2^30], got {value}.").format(value=show(seq_len)))
        return self.rope_spec(attention).inv_freq(seq_len)

    @property
    def trained_context(self) -> int | None:
        if self.max_position is None:  # no context limit: nothing was trained to one (recurrent_gemma, BLOOM)
            return None
        specs = [s.trained_context for _, s in self.ropes if s.trained_context]
        return min(specs) if specs else self.max_position

    @property
    def extended_context(self) -> int | None:
        if self.max_position is None:
            return None
        specs = [s.extended_context for _, s in self.ropes]
        return max(specs) if specs else self.max_position


def _text_config(config: object) -> tuple[Fields, str]:
    top = Fields(config)
    text = top.raw("text_config")
    model_type = top.text("model_type") or ""
    if text is not None:  # multimodal wrappers (Gemma 3, Llama 4): the language model's own config
        inner = Fields(text, "text_config.")
        model_type = inner.text("model_type") or {"gemma3": "gemma3_text", "llama4": "llama4_text"}.get(model_type, "")
        return Fields(text, "text_config.", DEFAULTS.get(model_type)), model_type
    model_type = {"gemma3": "gemma3_text", "llama4": "llama4_text"}.get(model_type, model_type)
    return Fields(config, "", DEFAULTS.get(model_type)), model_type


def _encoder_decoder(f: Fields, enc_key: str, dec_key: str) -> tuple[Layer, ...]:
    enc = f.integer(enc_key, **_LAYERS)
    dec = f.integer(dec_key, enc, **_LAYERS)
    if enc + dec > MAX_LAYERS:
        raise ValueError(
            _("{encoder} + {decoder} must be at most {most}, got {got}.").format(
                encoder=enc_key, decoder=dec_key, most=MAX_LAYERS, got=enc + dec
            )
        )
    encoder = Layer("full", None, rope=False, causal=False, stack="encoder")
    return (encoder,) * enc + (Layer("full", None, rope=False),) * dec


def _past_table(size: int) -> str:
    return _(
        "a learned table of {size:,} positions: position {size:,} and beyond have no row, nothing to extrapolate."
    ).format(size=size)


def _absolute(f: Fields, model_type: str) -> ModelPositions:
    if model_type in T5:
        heads = f.integer("num_heads", **_HEADS)
        num_buckets = f.integer("relative_attention_num_buckets", 32, lo=2, hi=4096)
        max_distance = f.integer("relative_attention_max_distance", 128, lo=1, hi=MAX_CONTEXT)
        if max_distance < num_buckets // 2:
            raise ValueError(
                _(
                    "relative_attention_max_distance ({max_distance}) must be at least half of "
                    "relative_attention_num_buckets ({num_buckets}): the log buckets start there."
                ).format(max_distance=max_distance, num_buckets=num_buckets)
            )
        facts = T5Facts(num_buckets, max_distance, heads, per_layer_bias=model_type == "umt5")
        note = _(
            "no table to run out of: every distance past {max_distance} shares the last bucket "
            "(n_positions is only the training length)."
        ).format(max_distance=max_distance)
        return ModelPositions(model_type, "t5", _encoder_decoder(f, "num_layers", "num_decoder_layers"), heads,
                              f.integer("n_positions", None, **_CTX), t5=facts, notes=(note,))  # fmt: skip
    if model_type in SINUSOIDAL:
        size = f.integer("max_position_embeddings", **_CTX)
        dim = f.integer("d_model", lo=2, hi=2**20)
        table = TableFacts(size, dim, offset=2 if model_type != "marian" else 0, layout="concat")
        layers = _encoder_decoder(f, "encoder_layers", "decoder_layers")
        note = _(
            "the sin/cos formula runs to any position, but transformers precomputes {size} rows: "
            "a longer input has no row."
        ).format(size=size)
        return ModelPositions(model_type, "sinusoidal", layers, f.integer("encoder_attention_heads", **_HEADS),
                              size, table=table, notes=(note,))  # fmt: skip
    if model_type == "gpt2":
        size, dim = f.integer("n_positions", **_CTX), f.integer("n_embd", lo=1, hi=2**20)
        layers = (Layer("full", None, rope=False),) * f.integer("n_layer", **_LAYERS)
        return ModelPositions(model_type, "learned", layers, f.integer("n_head", **_HEADS), size,
                              table=TableFacts(size, dim), notes=(_past_table(size),))  # fmt: skip
    kind = f.text("position_embedding_type", "absolute")
    if kind != "absolute":
        raise ValueError(
            _("position_embedding_type {kind}: posviz reads the absolute (learned) table only.").format(
                kind=f"{kind!r:.40}"
            )
        )
    size, dim = f.integer("max_position_embeddings", **_CTX), f.integer("hidden_size", lo=1, hi=2**20)
    offset = 2 if model_type in ("opt", "roberta", "xlm-roberta") else 0
    causal = model_type == "opt"
    stack = "decoder" if causal else "encoder"
    layers = (Layer("full", None, rope=False, causal=causal, stack=stack),) * f.integer("num_hidden_layers", **_LAYERS)
    return ModelPositions(model_type, "learned", layers, f.integer("num_attention_heads", **_HEADS), size - offset,
                          table=TableFacts(size, dim, offset=offset), notes=(_past_table(size - offset),))  # fmt: skip


def _alibi(f: Fields, model_type: str) -> ModelPositions:
    if model_type == "bloom":
        heads, n = f.integer("n_head", **_HEADS), f.integer("n_layer", **_LAYERS)
        note = _("BLOOM's config sets no maximum length: ALiBi has no table to run out of (it was trained at 2,048).")
        return ModelPositions(model_type, "alibi", (Layer("full", None, rope=False),) * n, heads, None,
                              alibi=AlibiFacts(heads, 8.0), notes=(note,))  # fmt: skip
    heads, n = f.integer("n_heads", **_HEADS), f.integer("n_layers", **_LAYERS)
    bias_max = f.sub("attn_config").number("alibi_bias_max", 8.0, lo=0.0, hi=1024.0, above=True)
    said = _("transformers' MptModel uses alibi_bias_max 8, not the config's {bias_max:g}.")
    notes = () if bias_max == 8 else (said.format(bias_max=bias_max),)
    return ModelPositions(model_type, "alibi", (Layer("full", None, rope=False),) * n, heads,
                          f.integer("max_seq_len", **_CTX), alibi=AlibiFacts(heads, bias_max), notes=notes)  # fmt: skip


def _integer(value: object, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ValueError(
            _("{field} must be a whole number in [{lo}, {hi:,}], got {value}.").format(
                field=name, lo=lo, hi=hi, value=show(value)
            )
        )
    return value


def _window(text: object, kind: str, layer: int) -> int | None:
    """The tokens one layer reaches back: a sliding window, a chunk, a convolution's kernel; None for all."""
    keys = {
        "sliding": ("sliding_window",),
        "hybrid_sliding": ("sliding_window",),
        "reference_sliding": ("sliding_window",),
        "chunked": ("attention_chunk_size",),
        "conv": ("conv_L_cache", "conv_kernel_size", "linear_conv_kernel_dim"),
    }.get(kind, ())
    for key in keys:
        value = attr(text, key, layer)
        if value is not None:
            return _integer(value, key, 1, MAX_CONTEXT)
    if keys and kind != "conv":
        raise ValueError(_("layer_types has {kind} layers, but no {key} is in force.").format(kind=kind, key=keys[0]))
    return None


def _head(text: object, layer: int, model_type: str) -> Head:
    heads = _integer(attr(text, "num_attention_heads", layer), "num_attention_heads", 1, MAX_HEADS)
    head_dim = attr(text, "head_dim", layer)
    if head_dim is None:
        head_dim = _integer(attr(text, "hidden_size", layer), "hidden_size", 1, 2**24) // heads
    head_dim = _integer(head_dim, "head_dim", 1, MAX_HEAD_DIM)
    nope, rope = attr(text, "qk_nope_head_dim", layer), attr(text, "qk_rope_head_dim", layer)
    qk = nope + rope if isinstance(nope, int) and isinstance(rope, int) and rope == head_dim else head_dim
    interleaved = bool(attr(text, "rope_interleave", layer, default=False)) or model_type in INTERLEAVED
    return Head(head_dim, qk, interleaved, mla=attr(text, "kv_lora_rank", layer) is not None)


def _rope(config: dict, model_type: str, assumed: list[str]) -> ModelPositions:
    built, text, notes = hf_config(config, model_type)
    notes[:0] = assumed  # how the reader was chosen comes first
    vision = vision_facts(built)
    text_type = attr(text, "model_type", default=model_type) or model_type
    kinds = layer_kinds(text, text_type)
    limit = attr(text, "max_position_embeddings")  # None: the model sets no context (recurrent_gemma)
    max_position = _integer(limit, "max_position_embeddings", 1, MAX_CONTEXT) if limit is not None else None
    if max_position is None:
        notes.append(
            _(
                "the config sets no max_position_embeddings: the model has no context limit (RoPE is read as "
                "transformers builds it, at {positions:,} positions where a method needs one)."
            ).format(positions=UNSET_CONTEXT)
        )
    params = attr(text, "rope_parameters")
    if params is not None and not isinstance(params, dict):
        raise ValueError(_("rope_parameters must be a JSON object or null, got {value}.").format(value=show(params)))
    truncate = params.get("truncate", True) if params else True  # transformers reads it at the top level
    specs: dict[str, RopeSpec] = {}
    for kind in dict.fromkeys(kinds):
        if not uses_rope(text, kind, text_type, params):
            continue
        key = rope_key(params, kind, text_type)
        d = params if key is None else params.get(key)
        if d is None:
            notes.append(
                _("rope_parameters has no entry for {kind} layers: they use no position encoding (NoPE).").format(
                    kind=kind
                )
            )
            continue
        where = "rope_parameters." if key is None else f"rope_parameters.{key}."
        head = _head(text, kinds.index(kind), text_type)
        at = max_position or UNSET_CONTEXT
        specs[kind] = rope_spec(Fields(d, where), head, text_type, max_position=at, truncate=truncate)
    flags = attr(text, "no_rope_layers")  # Llama 4, SmolLM3: 1 = RoPE, 0 = NoPE, per layer
    if flags is not None and (
        not isinstance(flags, list | tuple) or len(flags) != len(kinds) or any(x not in (0, 1) for x in flags)
    ):
        raise ValueError(
            _("no_rope_layers must hold one 0 (NoPE) or 1 (RoPE) per layer ({layers}).").format(layers=len(kinds))
        )
    layers, ropes = [], {}
    windows = {kind: _window(text, kind, kinds.index(kind)) for kind in dict.fromkeys(kinds)}  # one per kind
    for i, kind in enumerate(kinds):
        window = windows[kind]
        shown = kind
        if kind in ("sliding", "chunked") and max_position is not None and window >= max_position:
            note = _("the {kind} window ({window:,}) covers the whole context ({context:,}): full in effect.").format(
                kind=kind, window=window, context=max_position
            )
            notes.append(note) if note not in notes else None
            shown, window = "full", None
        rope = kind in specs and (flags is None or bool(flags[i]))
        if rope:
            if shown in ropes and ropes[shown] != specs[kind]:
                raise ValueError(
                    _("{kind} layers and full layers turn differently, yet all of them attend fully.").format(kind=kind)
                )
            ropes[shown] = specs[kind]
        layers.append(Layer(shown, window, rope=rope))
    specs = ropes
    for kind in dict.fromkeys(kinds):
        if kind in NO_POSITION:
            notes.append(_("{kind} layers: {says}").format(kind=kind, says=_(NO_POSITION[kind])))
    tuning = attr(text, "attn_temperature_tuning", default=True)
    if text_type == "llama4_text" and tuning and not all(x.rope for x in layers):
        scale, floor = attr(text, "attn_scale", default=0.1), attr(text, "floor_scale", default=8192)
        notes.append(
            _(
                "NoPE layers scale queries by log(floor((i + 1) / {floor}) + 1) * {scale:g} + 1: "
                "sharper attention far into a long context."
            ).format(floor=floor, scale=scale)
        )
    rule = RULE_OF.get(text_type)
    if rule is not None and not rule.slides_all:
        notes.append(
            _("transformers' {model_type} modeling code: {says}.").format(model_type=text_type, says=_(rule.says))
        )
    heads = attr(text, "num_attention_heads", 0) or attr(text, "num_attention_heads", default=1)
    family = "rope" if layers and all(x.rope for x in layers) else "nope-hybrid"
    ordered = tuple((k, specs[k]) for k in KINDS if k in specs)
    return ModelPositions(text_type, family, tuple(layers), _integer(heads, "num_attention_heads", 1, MAX_HEADS),
                          max_position, ropes=ordered, notes=tuple(notes), vision=vision)  # fmt: skip


def model_positions(config: dict) -> ModelPositions:
    """Read a Hugging Face config.json (as a dict) into position facts per layer and per attention kind.

    Raises:
        ValueError: naming the field, for a wrong type, an absurd or impossible value (caps: 1024
            layers, 2^30 tokens), an unknown RoPE type, or two fields that contradict each other.
    """
    assumed: list[str] = []
    if isinstance(config, dict):
        config, _type, assumed = resolve(config)
    f, model_type = _text_config(config)
    if model_type in T5 or model_type in SINUSOIDAL or model_type in LEARNED:
        return _absolute(f, model_type)
    if model_type == "bloom" or (model_type == "mpt" and f.sub("attn_config") is not None):
        if model_type == "mpt" and not f.sub("attn_config").flag("alibi", False):
            raise ValueError(_("attn_config.alibi is false: this MPT uses a learned table posviz does not read yet."))
        return _alibi(f, model_type)
    if model_type == "falcon" and f.flag("alibi", False):
        heads = f.integer("num_attention_heads", **_HEADS)
        layers = (Layer("full", None, rope=False),) * f.integer("num_hidden_layers", **_LAYERS)
        return ModelPositions(model_type, "alibi", layers, heads, f.integer("max_position_embeddings", **_CTX),
                              alibi=AlibiFacts(heads, 8.0))  # fmt: skip
    if model_type == "mpt":
        raise ValueError(_("an MPT config needs attn_config (with alibi true)."))
    return _rope(config, Fields(config).text("model_type") or "", assumed)


_FLOAT_TAGS = {"Infinity": math.inf, "-Infinity": -math.inf, "NaN": math.nan}


def _special_float(obj: dict) -> object:
    """transformers writes a float JSON cannot hold as ``{"__float__": "Infinity"}`` and reads it back as one."""
    if len(obj) == 1 and isinstance(obj.get("__float__"), str) and obj["__float__"] in _FLOAT_TAGS:
        return _FLOAT_TAGS[obj["__float__"]]
    return obj


def read_config(text: str | bytes) -> dict:
    """Parse an uploaded config.json: size-capped JSON, an object at the top; ValueError otherwise."""
    if len(text) > MAX_CONFIG_BYTES:
        raise ValueError(
            _("a config.json is a few kB; this one has {size:,} bytes (at most 1 MB).").format(size=len(text))
        )
    try:
        data = json.loads(text, parse_constant=lambda c: math.nan, object_hook=_special_float)
    except (ValueError, RecursionError) as e:  # JSONDecodeError, bad UTF-8, a 5,000-digit number
        raise ValueError(_("not valid JSON: {error}").format(error=e)) from e
    if not isinstance(data, dict):
        raise ValueError(_("a config.json holds a JSON object, not a {type}.").format(type=type(data).__name__))
    return data


def preload_readers() -> None:
    """Import transformers' config classes of every shipped model now: called once per process at server start."""
    types = set()
    for config in shipped_models().values():
        types.add(config.get("model_type", ""))
        if isinstance(config.get("text_config"), dict):
            types.add(config["text_config"].get("model_type", ""))
    preload(types)


def shipped_models() -> dict[str, dict]:
    """The configs that ship with posviz: slug -> config dict (with ``_model_id`` and ``_source``), by slug."""
    paths = sorted(CONFIG_DIR.glob("*.json"), key=lambda p: p.stem)
    return {p.stem: read_config(p.read_text(encoding="utf-8")) for p in paths}

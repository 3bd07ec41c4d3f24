"""transformers reads the config: its configuration class for the ``model_type``, then posviz reads that.

A config.json writes only what differs from its class's defaults, names one fact several ways
(``rope_scaling`` / ``rope_parameters``, ``type`` / ``rope_type``, a sliding pattern as a number
or a list) and changes spelling between versions. The configuration class of the pinned
transformers (5.23) resolves all of that exactly as the model will run: standardised
``rope_parameters`` (flat, or keyed by layer type), ``layer_types`` and per-layer overrides
(``per_layer_config``: Gemma 4's 512-wide global heads).

A few rules live in modeling code, not in any config field; they sit in :data:`RULES`, one entry
per rule, each with the line of transformers' source that states it (a test fails when that line
changes). Layer kinds without attention position (:data:`NO_POSITION`) say where order enters.

Untrusted input: the raw JSON is checked for size before transformers sees it (a layer count of
10^9 would make it build a list of 10^9 layer types), and every exception transformers raises
becomes a ``ValueError`` that carries its message (which names the field).
"""

from __future__ import annotations

import contextlib
import logging
import math
import warnings
from dataclasses import dataclass
from typing import Any

from transformers import CONFIG_MAPPING
from transformers.utils import logging as hf_logging

from posviz.encodings.model_fields import MAX_CONTEXT, MAX_LAYERS, MAX_LIST, Fields, _is_number, show
from posviz.i18n import N_, _

# Layer kinds as posviz names them: transformers' layer type without "_attention".
ATTENTION = ("full", "sliding", "chunked", "indexed", "compressed_sparse", "heavily_compressed", "hybrid")
ATTENTION += ("hybrid_sliding", "reference_sliding", "window", "minimax_m3_sparse")
# Layers that mix tokens with no attention position at all: where order enters instead.
NO_POSITION = {  # marked texts: shown as _(NO_POSITION[kind])
    "linear": N_(
        "a recurrence (linear attention, state space, Mamba): each token's state carries every earlier "
        "token, in order; nothing rotates, nothing is added."
    ),
    "conv": N_("a short causal convolution: each token mixes the last few tokens (its kernel), in order."),
    "mlp": N_("no token mixing: each position passes through on its own."),
    "moe": N_("no token mixing: each position goes to its experts on its own."),
}
KINDS = ATTENTION + tuple(NO_POSITION)
MAX_DEPTH = 8  # nesting of JSON objects and lists in a config.json


@dataclass(frozen=True)
class Rule:
    """A rule of transformers' modeling code that no config field states."""

    types: tuple[str, ...]  # model types it holds for
    says: str  # the rule, for a reader (a marked text: shown as _(says))
    source: str  # the line of ``modeling_<type>.py`` that states it (tests check it is still there)
    nope_kinds: tuple[str, ...] = ()  # layer kinds that run without RoPE
    rope_keys: tuple[tuple[str, str], ...] = ()  # layer kind -> key of rope_parameters ("*": any other kind)
    slides_all: bool = False  # without layer_types, every layer slides when sliding_window is set
    nope_unless: str = ""  # a config flag without which every layer runs without RoPE
    permuted: bool = False  # the inv_freq buffer is stored in another pair order, undone in forward


RULES: tuple[Rule, ...] = (
    Rule(("cohere2", "flint"), N_("full layers run without RoPE (RoPE only where a sliding window is)"),
         "if self.sliding_window is not None:", nope_kinds=("full",)),
    Rule(("cohere2_moe",), N_("full layers run without RoPE unless force_rope"),
         "if self.sliding_window is not None or self.force_rope:", nope_kinds=("full",)),
    Rule(("exaone4", "exaone4_5", "exaone_moe", "kolibri1"),
         N_("with a sliding window, only the sliding layers rotate; the full layers run without RoPE"),
         "if self.sliding_window is None or self.is_sliding:", nope_kinds=("full",)),
    Rule(("afmoe",), N_("only the local (sliding) layers rotate"), "if self.is_local_attention:",
         nope_kinds=("full",)),
    Rule(("zamba2",), N_("the shared attention block rotates only with use_mem_rope"),
         "if self.config.use_mem_rope:", nope_unless="use_mem_rope"),
    Rule(("deepseek_v4",), N_("sliding layers use the 'main' RoPE, compressed layers the 'compress' one"),
         'self.rope_layer_type = "main" if self.layer_type == "sliding_attention" else "compress"',
         rope_keys=(("sliding", "main"), ("*", "compress"))),
    Rule(("ernie4_5_vl_moe_text",), N_("the inv_freq buffer is stored pre-permuted for 3-D RoPE and recomposed in "
         "forward: a text token turns its pairs at the default frequencies"),
         "inv_freq_3d[:hw_dim] = torch.cat([inv_freq[:-t_dim][0::2], inv_freq[:-t_dim][1::2]])", permuted=True),
    Rule(("mistral", "mixtral", "ministral3", "minimax", "phi3", "phi4_multimodal", "phimoe", "qwen3_moe",
          "starcoder2", "blt", "doge", "voxtral_realtime"),
         N_("without layer_types, every layer slides when sliding_window is set"),
         "create_causal_mask if self.config.sliding_window is None else create_sliding_window_causal_mask",
         slides_all=True),
)  # fmt: skip
RULE_OF = {t: r for r in RULES for t in r.types}


def preload(model_types: set[str]) -> None:
    """Import the configuration classes of ``model_types`` now (at server start), not on a visitor's request."""
    for model_type in model_types:
        with contextlib.suppress(KeyError, ValueError):  # a type transformers does not know: nothing to import
            CONFIG_MAPPING[model_type]  # noqa: B018  the lazy mapping imports the class on first access


def _quiet() -> None:
    """transformers warns on a logger about configs it fixes up: posviz says what matters itself."""
    if hf_logging.get_verbosity() != hf_logging.ERROR:
        hf_logging.set_verbosity_error()
        logging.getLogger("transformers").setLevel(logging.ERROR)


def check_size(value: object, where: str = "", depth: int = 0) -> None:
    """Refuse, before transformers builds anything, what would make it allocate without bound."""
    if depth > MAX_DEPTH:
        raise ValueError(
            _("{field} nests more than {depth} levels deep.").format(field=where or _("the config"), depth=MAX_DEPTH)
        )
    if isinstance(value, dict):
        for key, inner in value.items():
            name = f"{where}.{key}" if where else str(key)
            if isinstance(inner, int | float) and not isinstance(inner, bool):
                _check_number(str(key).lower(), name, inner)
            check_size(inner, name, depth + 1)
    elif isinstance(value, list):
        if len(value) > MAX_LIST:
            raise ValueError(
                _("{field} must have at most {most} entries, got {n}.").format(field=where, most=MAX_LIST, n=len(value))
            )
        for i, inner in enumerate(value):
            check_size(inner, f"{where}[{i}]", depth + 1)


def _check_number(key: str, name: str, value: float) -> None:
    """Counts and lengths a config.json may hold, before transformers allocates by them."""
    if key.startswith("num_") and key.endswith("layers") or key in ("n_layer", "num_layers"):
        if not (_is_number(value) and 0 <= value <= MAX_LAYERS):
            raise ValueError(
                _("{field} must be a whole number, posviz reads at most {most} layers; got {value}.").format(
                    field=name, most=MAX_LAYERS, value=show(value)
                )
            )
    elif "heads" in key or "interval" in key or key == "hidden_size":
        if not (_is_number(value) and 1 <= value <= 2**24):
            raise ValueError(
                _("{field} must be a positive whole number, got {value}.").format(field=name, value=show(value))
            )
    elif any(w in key for w in ("position", "window", "chunk")) and not (_is_number(value) and value <= MAX_CONTEXT):
        raise ValueError(
            _("{field} must be a number of tokens, at most 2^30 tokens; got {value}.").format(
                field=name, value=show(value)
            )
        )


def _agree(name_a: str, a: object, name_b: str, b: object) -> None:
    if a is not None and b is not None and a != b:
        raise ValueError(
            _("{field_a} ({a}) and {field_b} ({b}) disagree: give one of them.").format(
                field_a=name_a, a=show(a), field_b=name_b, b=show(b)
            )
        )


# (type, rope_type) pairs that transformers itself writes and reads back: Qwen2-VL's config class turns
# the legacy type "mrope" into rope_type "default" (M-RoPE is mrope_section's) and saves both keys.
RESAVED = {("mrope", "default")}


def check_rope(raw: dict, where: str = "") -> None:
    """What transformers would resolve silently or refuse without naming the field, refused here first.

    Two spellings of one fact that disagree (``type`` / ``rope_type``, ``rope_theta`` inside and
    beside the RoPE dict, ``rope_scaling`` / ``rope_parameters``) are refused rather than resolved.
    """
    scaling, params = raw.get("rope_scaling"), raw.get("rope_parameters")
    for key, value in (("rope_scaling", scaling), ("rope_parameters", params)):
        if value is not None and not isinstance(value, dict):
            raise ValueError(
                _("{field} must be a JSON object or null, got {value}.").format(field=where + key, value=show(value))
            )
    if scaling and params and scaling != params:
        raise ValueError(
            _("{where}rope_scaling and rope_parameters are both given and disagree: give one of them.").format(
                where=where
            )
        )
    chosen, name = (scaling, "rope_scaling") if scaling else (params, "rope_parameters")
    if not chosen:
        return
    nested = "rope_type" not in chosen and "type" not in chosen and all(isinstance(v, dict) for v in chosen.values())
    dicts = [(f"{where}{name}.{k}.", v) for k, v in chosen.items()] if nested else [(f"{where}{name}.", chosen)]
    for prefix, d in dicts:
        f = Fields(d, prefix)
        if (d.get("type"), d.get("rope_type")) not in RESAVED:
            _agree(f.name("rope_type"), d.get("rope_type"), f.name("type"), d.get("type"))
        for key in ("rope_theta", "partial_rotary_factor", "original_max_position_embeddings"):
            outer, inner = raw.get(key), d.get(key)
            if nested or not (_is_number(outer) and _is_number(inner)):
                continue  # per-kind dicts keep their own values; a non-number is refused below
            if not math.isclose(inner, outer, rel_tol=1e-9):
                raise ValueError(
                    _("{field_a} ({a}) and {field_b} ({b}) disagree: give one of them.").format(
                        field_a=f.name(key), a=show(inner), field_b=where + key, b=show(outer)
                    )
                )
        f.number("rope_theta", lo=1.0, hi=1e15, above=True)
        f.number("factor", lo=0.0, hi=2.0**20, above=True)
        if (d.get("rope_type") or d.get("type")) == "llama3":
            for key in ("low_freq_factor", "high_freq_factor"):
                if f.number(key, lo=0.0, hi=2.0**20, above=True) is None:
                    raise ValueError(_("llama3 scaling needs {field}.").format(field=f.name(key)))
    for key in ("rope_theta", "partial_rotary_factor"):
        Fields(raw, where).number(key, lo=0.0, hi=1e15, above=True)


def text_config(config: Any) -> Any:
    """The language model's config of a (possibly multimodal) transformers config."""
    try:
        return config.get_text_config(decoder=True)
    except Exception:  # noqa: BLE001  wrappers that cannot say: the config itself
        return config


def hf_config(config: dict, model_type: str) -> tuple[Any, Any, list[str]]:
    """``config`` built by transformers' configuration class for ``model_type``: ``(built, text config, notes)``.

    Raises:
        ValueError: with transformers' own message (it names the field) when the class refuses it.
    """
    check_size(config)
    text_raw = config.get("text_config")
    check_rope(text_raw, "text_config.") if isinstance(text_raw, dict) else check_rope(config)
    notes = []
    try:
        cls = CONFIG_MAPPING[model_type]
    except (KeyError, ValueError):  # model_types.resolve picks a known class first (or guesses, and says so)
        shown = f"{model_type or '(none)'!r:.40}"
        raise ValueError(
            _("model_type {model_type} is not one transformers 5.23 knows.").format(model_type=shown)
        ) from None
    data = {k: v for k, v in config.items() if not str(k).startswith("_")}
    _quiet()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            built = cls(**data)  # not from_dict: it formats the whole config for a log line it then drops
        text = text_config(built)
        text.num_hidden_layers  # noqa: B018  some classes fail only when asked
    except Exception as e:  # noqa: BLE001  transformers' message names the field
        if isinstance(e, AttributeError) and "attribute 'num_hidden_layers'" in str(e) and "Config" in str(e):
            raise ValueError(  # BLT (three stacks), EfficientLoFTR (a matcher): no layers of one stack
                _(
                    "num_hidden_layers: transformers' {cls} has none (its layers, if any, sit in "
                    "sub-configs); posviz draws a model with one stack of num_hidden_layers layers."
                ).format(cls=cls.__name__)
            ) from e
        msg = " ".join(str(e).split())[:300]
        raise ValueError(
            _("transformers cannot build a {model_type} config from this file: {error}").format(
                model_type=cls.model_type, error=msg
            )
        ) from e
    return built, text, notes


def attr(config: Any, name: str, layer: int | None = None, default: Any = None) -> Any:
    """``config.<name>``, for one layer when transformers keeps per-layer values (``per_layer_config``)."""
    if layer is not None:
        try:
            return getattr(config.per_layer_config[layer], name)
        except Exception:  # noqa: BLE001, S110  no per-layer value: the config's own
            pass
    try:
        value = getattr(config, name, default)
    except Exception:  # noqa: BLE001  transformers refuses a global read of a per-layer value
        return default
    return default if value is None else value


def layer_kinds(text: Any, model_type: str) -> list[str]:
    """Each layer's kind (posviz names), as transformers' ``layer_types`` and modeling rules give it."""
    n = attr(text, "num_hidden_layers")
    if not isinstance(n, int) or not 1 <= n <= MAX_LAYERS:
        raise ValueError(
            _("num_hidden_layers must lie between 1 and {most}, got {value}.").format(
                most=MAX_LAYERS, value=f"{n!r:.20}"
            )
        )
    types = attr(text, "layer_types")
    if types is None:
        rule = RULE_OF.get(model_type)
        sliding = rule is not None and rule.slides_all and attr(text, "sliding_window") is not None
        return ["sliding" if sliding else "full"] * n
    if not isinstance(types, list | tuple) or len(types) < n:
        raise ValueError(
            _("layer_types must list one kind per layer ({n}), got {got}.").format(n=n, got=len(types or ()))
        )
    out = []
    for i, t in enumerate(types[:n]):
        kind = str(t).removesuffix("_attention")
        if kind not in KINDS:
            raise ValueError(
                _("layer_types[{i}] is {value}: posviz draws {kinds}.").format(
                    i=i, value=f"{t!r:.40}", kinds=", ".join(KINDS)
                )
            )
        out.append(kind)
    return out


def rope_key(params: dict, kind: str, model_type: str) -> str | None:
    """Which entry of ``rope_parameters`` a layer kind uses (None: the flat dict, for every kind)."""
    if "rope_type" in params or not any(isinstance(v, dict) for v in params.values()):
        return None
    rule = RULE_OF.get(model_type)
    if rule is not None and rule.rope_keys:
        keys = dict(rule.rope_keys)
        return keys.get(kind, keys.get("*"))
    for key in (f"{kind}_attention", kind):
        if key in params:
            return key
    if kind.startswith("hybrid") and "full_attention" in params:  # attention beside the SSM
        return "full_attention" if kind == "hybrid" else "sliding_attention"
    raise ValueError(
        _("rope_parameters is keyed by layer type but has no entry for {kind}_attention.").format(kind=kind)
    )


def uses_rope(text: Any, kind: str, model_type: str, params: dict | None) -> bool:
    """Whether layers of ``kind`` rotate queries and keys, as the modeling code decides."""
    if params is None or kind in NO_POSITION:
        return False
    rule = RULE_OF.get(model_type)
    if rule is None:
        return True
    forced = model_type == "cohere2_moe" and attr(text, "force_rope", default=False)
    no_window = rule.types[0] == "exaone4" and attr(text, "sliding_window") is None  # then every layer rotates
    if kind in rule.nope_kinds and not forced and not no_window:
        return False
    return not (rule.nope_unless and not attr(text, rule.nope_unless, default=False))

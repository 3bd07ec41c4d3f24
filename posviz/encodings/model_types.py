"""Which of transformers' configuration classes reads a config.json whose ``model_type`` it may not know.

Remote-code checkpoints name a ``model_type`` transformers does not register (``kimi_k2``,
``hunyuan``, ``minicpm``), yet often run a class transformers has: Kimi-K2's file names
``DeepseekV3ForCausalLM``. :func:`resolve` picks the reader, in this order:

    1. the file's own ``model_type``, when transformers registers it;
    2. the ``text_config``'s own ``model_type``, when the wrapper's is unknown and it is known
       (Kimi-K3: ``kimi_k3`` around a ``kimi_linear`` language model);
    3. the model type of the class ``architectures`` names, from transformers' auto mappings
       (``DeepseekV3ForCausalLM`` -> ``deepseek_v3``);
    4. the type whose configuration class transformers documents for that checkpoint, when its
       own type is absent (:data:`DOCUMENTED_AS`: MiniMax-M3's ``minimax_m3``);
    5. a guess: a plain Llama-style decoder, only when the file holds no field that a Llama
       reading would ignore yet that changes position (a window, partial or decoupled RoPE,
       per-layer blocks, M-RoPE); otherwise a refusal that names those fields.

Every reading other than the first says so in a note, naming the class or the fields trusted.
"""

from __future__ import annotations

import functools

from transformers import CONFIG_MAPPING

from posviz.i18n import _

MAX_ARCHITECTURES = 8  # entries of ``architectures`` looked at

# Fields a guessed Llama reading trusts (the notice lists the ones a file holds).
TRUSTED = ("num_hidden_layers", "num_attention_heads", "hidden_size", "head_dim", "max_position_embeddings",
           "rope_theta", "rope_scaling", "rope_parameters")  # fmt: skip
# Fields that change position but that LlamaConfig ignores: a file that sets one is refused, not guessed.
IGNORED_BY_LLAMA = ("sliding_window", "layer_types", "attention_chunk_size", "qk_rope_head_dim", "kv_lora_rank",
                    "partial_rotary_factor", "rotary_dim", "rotary_pct", "rotary_emb_fraction", "mrope_section",
                    "use_mrope", "block_configs", "no_rope_layers", "rope_interleave", "position_embedding_type",
                    "alibi", "use_alibi", "n_positions", "max_seq_len", "sliding_window_pattern",
                    "rope_local_base_freq", "global_attn_every_n_layers", "attention_window_size")  # fmt: skip

# Remote model types that transformers has no type of, whose language model it documents under another type:
# type -> (that type, the checkpoint its configuration class's docstring names). A test checks the docstring.
DOCUMENTED_AS = {"minimax_m3": ("minimax_m3_vl_text", "MiniMaxAI/MiniMax-M3")}


def known(model_type: object) -> bool:
    """Whether transformers registers ``model_type`` (a configuration class it can build)."""
    if not isinstance(model_type, str) or not model_type:
        return False
    try:
        CONFIG_MAPPING[model_type]  # noqa: B018
    except (KeyError, ValueError):
        return False
    return True


@functools.cache
def _classes() -> dict[str, tuple[str, ...]]:
    """Model class name (``DeepseekV3ForCausalLM``) -> the model types whose auto mappings list it."""
    from transformers.models.auto import modeling_auto

    out: dict[str, set[str]] = {}
    for name in dir(modeling_auto):
        mapping = getattr(modeling_auto, name)
        if not name.endswith("_MAPPING_NAMES") or not isinstance(mapping, dict):
            continue
        for model_type, classes in mapping.items():
            for cls in classes if isinstance(classes, tuple | list) else (classes,):
                if isinstance(cls, str) and known(model_type):
                    out.setdefault(cls, set()).add(model_type)
    return {cls: tuple(sorted(types)) for cls, types in out.items()}


def architecture_type(name: object) -> str | None:
    """The model type of the transformers class ``name``, or None when transformers has no such class."""
    if not isinstance(name, str):
        return None
    types = _classes().get(name)
    if not types:
        return None
    if len(types) == 1:
        return types[0]
    import transformers  # several types list the class (LlamaForCausalLM: llama, internlm3): its own config's

    try:
        return getattr(transformers, name).config_class.model_type
    except Exception:  # noqa: BLE001  not importable here: the first, by name
        return types[0]


def _set(value: object) -> bool:
    """A field that a file really sets (null, false, 0 and empty say nothing)."""
    return value not in (None, False, 0, "", [], {})


def resolve(config: dict) -> tuple[dict, str, list[str]]:
    """The config to build, the model type whose class builds it, and what was assumed (notes).

    Raises:
        ValueError: a type transformers does not know, no class it has named, and fields a
            guess would ignore (named).
    """
    model_type = config.get("model_type")
    if model_type is not None and not isinstance(model_type, str):
        raise ValueError(_("model_type must be a string, got {type}.").format(type=type(model_type).__name__))
    if known(model_type):
        return config, model_type, []
    shown = f"{model_type!r:.40}" if isinstance(model_type, str) and model_type else "(none)"
    unknown = _("model_type {model_type} is not one transformers 5.23 knows").format(model_type=shown)
    text = config.get("text_config")
    if isinstance(text, dict) and known(text.get("model_type")):
        inner = text["model_type"]
        note = _("{unknown}; its text_config is a {inner} config: read with transformers' {inner} class.").format(
            unknown=unknown, inner=inner
        )
        return text, inner, [note]
    names = config.get("architectures")
    names = names[:MAX_ARCHITECTURES] if isinstance(names, list) else []
    for name in names:
        found = architecture_type(name)
        if found is not None:
            note = _(
                "{unknown}; its architectures list names {name}, transformers' {found} class: read as {found}."
            ).format(unknown=unknown, name=name, found=found)
            return {**config, "model_type": found}, found, [note]
    if model_type in DOCUMENTED_AS and known(DOCUMENTED_AS[model_type][0]):
        found, checkpoint = DOCUMENTED_AS[model_type]
        note = f"{unknown}; transformers documents its {found} class for {checkpoint}: read as {found}."
        return {**config, "model_type": found}, found, [note]
    scope = config if not isinstance(text, dict) else {**config, **text}
    ignored = [k for k in IGNORED_BY_LLAMA if _set(scope.get(k))]
    if scope.get("use_sliding_window") is False and "sliding_window" in ignored:
        ignored.remove("sliding_window")  # Qwen2's convention: the window is written but not in force
    listed = ", ".join(str(n)[:60] for n in names)
    named = (
        _("its architectures ({listed}) name no class transformers has").format(listed=listed)
        if listed
        else _("it names no architectures")
    )
    if ignored:
        raise ValueError(
            _(
                "{unknown}, and {named}: posviz cannot tell how it "
                "places position. It sets {ignored}, which a Llama-style reading would ignore, so posviz "
                "does not guess. If the model runs one of transformers' classes, set model_type to that class's type."
            ).format(unknown=unknown, named=named, ignored=", ".join(ignored))
        )
    trusted = [k for k in TRUSTED if scope.get(k) is not None]
    note = _(
        "A guess: {unknown}, and {named}. Read as a plain "
        "Llama-style decoder (every layer full attention, RoPE over the whole head), trusting only "
        "{trusted}."
    ).format(unknown=unknown, named=named, trusted=", ".join(trusted) or _("nothing it sets"))
    data = text if isinstance(text, dict) else config
    return {**data, "model_type": "llama"}, "llama", [note]

"""The zoo: every model type of the pinned transformers whose text config carries RoPE, read two ways.

``truth(model_type)`` is what transformers itself runs: the configuration class built from its own
defaults (which mirror the flagship checkpoint), its ``layer_types``, and the model's own
``*RotaryEmbedding`` module run at a position (so dynamic and longrope update as they do in a
forward pass). ``compare(model_type)`` reads the same config (``to_dict()``, as a config.json
would hold it) with :func:`posviz.encodings.models.model_positions` and says ``equal``,
``different`` (with what differs), ``refused`` (a ValueError and its message) or ``crash``.

Used by ``tests/encodings/test_models_zoo.py`` and ``tools/zoo_report.py``.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import logging
import warnings
from dataclasses import dataclass, field

import torch

from posviz.encodings.model_hf import NO_POSITION, RULE_OF

SEQ_LENS = (1, 4096, 1 << 20)  # a short prompt, a typical context, past every trained context
ATOL, RTOL = 1e-6, 1e-5  # float32 (transformers) against float64 (posviz)


def _quiet() -> None:
    warnings.filterwarnings("ignore")
    logging.getLogger("transformers").setLevel(logging.ERROR)
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()


def text_config(config):
    """The language model's config (the wrapper's ``text_config``, else the config itself)."""
    try:
        return config.get_text_config(decoder=True)
    except Exception:  # noqa: BLE001  a few wrappers cannot say: the config itself
        return config


def zoo_types() -> list[str]:
    """Model types whose default text config carries RoPE (any ``rope_parameters`` but vision's ``axial``)."""
    _quiet()
    from transformers import CONFIG_MAPPING

    out = []
    for model_type in sorted(CONFIG_MAPPING.keys()):
        try:
            text = text_config(CONFIG_MAPPING[model_type]())
        except Exception:  # noqa: BLE001  a type transformers cannot build from its defaults is no zoo member
            continue
        params = getattr(text, "rope_parameters", None)
        if not isinstance(params, dict) or not params or getattr(text, "vocab_size", None) is None:  # not language
            continue
        nested = [v for v in params.values() if isinstance(v, dict)]
        types = {params.get("rope_type")} if "rope_type" in params else {v.get("rope_type") for v in nested}
        if not types or "axial" in types:  # vision's 2-D RoPE is /vision's, not a language model's
            continue
        out.append(model_type)
    return out


def default_config(model_type: str) -> dict:
    """The config.json of ``model_type``'s configuration-class defaults."""
    _quiet()
    from transformers import CONFIG_MAPPING

    return CONFIG_MAPPING[model_type]().to_dict()


def _modeling(text):
    """The module that runs ``text``'s model: its auto model class's module, else ``modeling_<type>``."""
    import transformers
    from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES

    name = MODEL_MAPPING_NAMES.get(getattr(text, "model_type", ""))
    if isinstance(name, str):
        try:
            return importlib.import_module(getattr(transformers, name).__module__)
        except Exception:  # noqa: BLE001, S110  not importable: by file name
            pass
    for part in (".modeling_", ".modular_"):
        try:
            return importlib.import_module(type(text).__module__.replace(".configuration_", part))
        except Exception:  # noqa: BLE001, S112
            continue
    return None


SLIDES_ALL = "create_causal_mask if self.config.sliding_window is None else create_sliding_window_causal_mask"


def slides_all(text) -> bool:
    """Without ``layer_types``: does the modeling code slide every layer once ``sliding_window`` is set?"""
    module = _modeling(text)
    return module is not None and SLIDES_ALL in inspect.getsource(module)


def _rotary_class(text) -> type | None:
    module = _modeling(text)
    if module is None:
        return None
    found = [
        obj
        for name, obj in vars(module).items()
        if inspect.isclass(obj) and name.endswith("RotaryEmbedding") and obj.__module__ == module.__name__
    ]
    found.sort(key=lambda c: any(w in c.__name__ for w in ("Vision", "Audio", "Encoder", "Patch", "Speech")))
    for cls in found:
        try:
            cls(text)
        except Exception:  # noqa: BLE001  the wrong module for this config
            continue
        return cls
    return None


@dataclass
class Truth:
    layer_types: list[str]
    rope: dict[str, dict[int, tuple[torch.Tensor, float]]] = field(default_factory=dict)  # rope key -> seq -> ...
    error: str = ""


def truth(model_type: str, config: dict | None = None) -> Truth:
    """transformers' own answer for ``model_type`` (or for ``config``, a config.json dict of that type)."""
    _quiet()
    from transformers import CONFIG_MAPPING

    cfg = CONFIG_MAPPING[model_type]() if config is None else CONFIG_MAPPING[model_type].from_dict(config)
    text = text_config(cfg)
    n = text.num_hidden_layers
    try:
        window = getattr(text, "sliding_window", None)
    except Exception:  # noqa: BLE001  a per-layer value (Gemma 4, NeoMME): layer_types says it
        window = None
    kind = "sliding_attention" if window is not None and slides_all(text) else None
    layer_types = list(getattr(text, "layer_types", None) or [kind or "full_attention"] * n)
    out = Truth(layer_types)
    cls = _rotary_class(text)
    if cls is None:
        out.error = "no rotary module"
        return out
    params = text.rope_parameters
    keys = [k for k, v in params.items() if isinstance(v, dict)] if "rope_type" not in params else [None]
    for key in keys:
        if key and not hasattr(cls(text), f"{key}_inv_freq"):
            continue  # a rope_parameters entry no layer uses (Laguna's sliding entry without sliding layers)
        out.rope[key] = {}
        for seq_len in SEQ_LENS:
            module = cls(text)
            prefix = f"{key}_" if key else ""
            x, pos = torch.zeros(1, 1), torch.tensor([[seq_len - 1]])
            with contextlib.suppress(Exception):  # a forward with other arguments: the buffers as built
                module(x, pos, key) if key else module(x, pos)
            inv = getattr(module, f"{prefix}inv_freq")
            factor = getattr(module, f"{prefix}attention_scaling", getattr(module, "attention_scaling", 1.0))
            out.rope[key][seq_len] = (inv.detach().double().clone(), float(factor))
    return out


def _truth_key(layer_type: str, keys: list, model_type: str, params: dict) -> str | None:
    from posviz.encodings.model_hf import rope_key

    if keys == [None]:
        return None
    if layer_type in keys:
        return layer_type
    try:
        return rope_key(params, layer_type.removesuffix("_attention"), model_type)
    except ValueError:
        return None


def resave(model_type: str, config: dict | None = None) -> str:
    """``config`` (or the class defaults) as transformers writes it back: read, then saved with ``use_diff``.

    Returns:
        the text of the config.json transformers would save (``to_json_string(use_diff=True)``).
    """
    _quiet()
    from transformers import CONFIG_MAPPING

    cls = CONFIG_MAPPING[model_type]
    built = cls() if config is None else cls.from_dict(config)
    return built.to_json_string(use_diff=True)


def round_trips(model_type: str, config: dict | None = None) -> bool:
    """Whether posviz reads ``config`` (or the class defaults) as transformers re-saves it the same as before."""
    from posviz.encodings.models import model_positions, read_config

    def read(data: dict) -> object:
        try:
            return model_positions(data)
        except ValueError as e:
            return ("refused", str(e))

    original = default_config(model_type) if config is None else config
    return read(original) == read(read_config(resave(model_type, config)))


def compare(model_type: str, config: dict | None = None, read: dict | None = None) -> tuple[str, str]:
    """``(verdict, detail)``: equal, different, refused (a ValueError) or crash (any other exception).

    Args:
        model_type: the configuration class transformers runs ``config`` with.
        read: what posviz reads, when it is not ``config`` itself (a remote-code file whose
            ``model_type`` transformers does not know, run by the class its ``architectures`` names).
    """
    from posviz.encodings.models import model_positions

    data = default_config(model_type) if config is None else config
    try:
        mp = model_positions(data if read is None else read)
    except ValueError as e:
        return "refused", str(e)
    except Exception as e:  # noqa: BLE001  what the zoo is here to catch
        return "crash", f"{type(e).__name__}: {e}"
    try:
        t = truth(model_type, config)
    except Exception as e:  # noqa: BLE001
        return "no truth", f"transformers itself fails: {type(e).__name__}: {e}"
    if len(mp.layers) != len(t.layer_types):
        return "different", f"{len(mp.layers)} layers, transformers {len(t.layer_types)}"
    from transformers import CONFIG_MAPPING

    text = text_config(CONFIG_MAPPING[model_type]() if config is None else CONFIG_MAPPING[model_type].from_dict(config))
    params = getattr(text, "rope_parameters", None) or {}
    for i, (layer, lt) in enumerate(zip(mp.layers, t.layer_types, strict=True)):
        kind = lt.removesuffix("_attention")
        if layer.attention != kind and not (layer.attention == "full" and kind in ("sliding", "chunked")):
            return "different", f"layer {i}: {layer.attention}, transformers {lt}"
        if not layer.rope:
            rule, flags = RULE_OF.get(mp.model_type), getattr(text, "no_rope_layers", None)
            explained = kind in NO_POSITION or (flags is not None and not flags[i]) or not params
            explained |= rule is not None and (kind in rule.nope_kinds or bool(rule.nope_unless))
            if not explained and not t.error and _truth_key(lt, list(t.rope), mp.model_type, params) in t.rope:
                return "different", f"layer {i} ({lt}) drawn without RoPE, transformers rotates it"
            continue
        if t.error:
            return "different", f"layer {i} drawn with RoPE, transformers has {t.error}"
        key = _truth_key(lt, list(t.rope), mp.model_type, params)
        if key not in t.rope:
            return "different", f"layer {i} ({lt}) drawn with RoPE, transformers has none for it"
        for seq_len, (inv, factor) in t.rope[key].items():
            mine, my_factor = mp.rope(layer.attention, seq_len)
            if getattr(RULE_OF.get(mp.model_type), "permuted", False):  # the same pairs, stored in another order
                mine, inv = mine.sort().values, inv.sort().values
            if mine.shape != inv.shape or not torch.allclose(mine, inv, rtol=RTOL, atol=ATOL):
                return "different", f"layer {i} ({lt}) inv_freq at {seq_len}: {tuple(mine.shape)} vs {tuple(inv.shape)}"
            if abs(my_factor - factor) > RTOL * max(1.0, abs(factor)):
                return "different", f"layer {i} ({lt}) attention factor at {seq_len}: {my_factor:g} vs {factor:g}"
    return "equal", ""

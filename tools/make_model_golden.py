"""Golden data for posviz's real-model reader, computed by Hugging Face ``transformers`` itself.

For each shipped RoPE-family config (posviz/model_configs/*.json) this builds the transformers
config object, reads its layer kinds as the modeling code does (``layer_types``, or every layer
sliding when the class only has ``sliding_window``), instantiates the model's own rotary-embedding
class and runs its forward pass at several sequence lengths (the ``dynamic_rope_update`` path that
switches LongRoPE's factors), and writes tests/golden/models/<slug>.json.

These golden files predate transformers as posviz's reader (pinned in requirements.txt since);
the configs of 2025-26 and the whole zoo are compared live instead (tools/zoo.py,
tests/encodings/test_models_zoo.py). Run from the repository root: python tools/make_model_golden.py
"""

from __future__ import annotations

import importlib
import inspect
import json
import sys
from pathlib import Path

import torch
import transformers
from transformers import AutoConfig

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "posviz" / "model_configs"
OUT = ROOT / "tests" / "golden" / "models"
ROPE_TYPES = {"llama", "mistral", "qwen2", "gemma2", "gemma3", "gpt_oss", "deepseek_v3", "phi", "phi3", "llama4"}
ROPE_TYPES |= {"smollm3", "gpt_neox"}
_SMALL = dict(hidden_size=768, num_attention_heads=8, num_hidden_layers=6, max_position_embeddings=32768)
_LONG = [1.0 + 0.5 * k for k in range(36)]
# Spellings and rules no shipped config exercises; each golden file stores its config under "config".
SYNTHETIC = {
    "synthetic-llama-dynamic": dict(_SMALL, model_type="llama", max_position_embeddings=4096,
                                    rope_scaling={"type": "dynamic", "factor": 4.0}),
    "synthetic-phi3-partial-longrope": dict(
        _SMALL, model_type="phi3", partial_rotary_factor=0.75, original_max_position_embeddings=4096,
        rope_scaling={"type": "longrope", "short_factor": [1.0] * 36, "long_factor": _LONG},
    ),
    "synthetic-qwen2-window": dict(_SMALL, model_type="qwen2", use_sliding_window=True, sliding_window=1024,
                                   max_window_layers=4, rope_theta=1e6),
    "synthetic-gemma3-new-spelling": dict(
        _SMALL, model_type="gemma3_text", head_dim=64, sliding_window=512,
        layer_types=["sliding_attention", "sliding_attention", "full_attention"] * 2,
        rope_parameters={
            "full_attention": {"rope_type": "yarn", "factor": 4.0, "rope_theta": 1e6,
                               "original_max_position_embeddings": 8192},
            "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
        },
    ),
    "synthetic-smollm3-sliding-nope": dict(_SMALL, model_type="smollm3", use_sliding_window=True,
                                           sliding_window=256, no_rope_layer_interval=3),
    "synthetic-gpt-neox-linear": dict(_SMALL, model_type="gpt_neox", rotary_pct=0.5, rotary_emb_base=20000,
                                      rope_scaling={"type": "linear", "factor": 2.0}),
}  # fmt: skip


def hf_config(fields: dict):
    """The transformers config object of the language model (the text config of a multimodal wrapper)."""
    fields = {k: v for k, v in fields.items() if not k.startswith("_")}
    config = AutoConfig.for_model(**fields)
    return config.get_text_config()


def rotary_class(config):
    """The model's own rotary-embedding class (``<Name>RotaryEmbedding`` in modeling_<model_type>)."""
    module_name = type(config).__module__.replace("configuration_", "modeling_")
    module = importlib.import_module(module_name)
    names = [
        n
        for n, c in inspect.getmembers(module, inspect.isclass)
        if n.endswith("RotaryEmbedding") and "Vision" not in n and c.__module__ == module_name
    ]
    (name,) = names
    return getattr(module, name), module


def layer_facts(config) -> dict:
    """Layer kinds under transformers' names, the windows, and the NoPE flags, as the modeling code reads them."""
    n = config.num_hidden_layers
    types = getattr(config, "layer_types", None)
    if types is None:  # Mistral, Phi-3, Llama, DeepSeek, ...: one mask for every layer
        sliding = getattr(config, "sliding_window", None) is not None
        types = ["sliding_attention" if sliding else "full_attention"] * n
    return {
        "layer_types": list(types),
        "sliding_window": getattr(config, "sliding_window", None),
        "attention_chunk_size": getattr(config, "attention_chunk_size", None),
        "no_rope_layers": [int(x) for x in getattr(config, "no_rope_layers", None) or []] or None,
        "max_position_embeddings": config.max_position_embeddings,
    }


def rope_at(config, cls, layer_type: str | None, seq_len: int | None) -> dict:
    """inv_freq and attention scaling of a fresh rotary module after a forward pass at ``seq_len``."""
    rotary = cls(config)
    prefix = f"{layer_type}_" if layer_type and hasattr(rotary, f"{layer_type}_inv_freq") else ""
    if seq_len is not None:
        x = torch.zeros(1, 1, 8)
        position_ids = torch.tensor([[seq_len - 1]])  # the update reads max(position_ids) + 1 as seq_len
        kwargs = {"layer_type": layer_type} if prefix else {}
        rotary(x, position_ids, **kwargs)
    inv_freq = getattr(rotary, f"{prefix}inv_freq")
    scaling = getattr(rotary, f"{prefix}attention_scaling", None)
    if scaling is None:
        scaling = rotary.attention_scaling
    rope_type = rotary.rope_type[layer_type] if isinstance(rotary.rope_type, dict) else rotary.rope_type
    return {
        "seq_len": seq_len,
        "rope_type": rope_type,
        "inv_freq": [float(v) for v in inv_freq.float()],
        "attention_factor": float(scaling),
    }


def seq_lens(config) -> list[int | None]:
    params = config.rope_parameters
    nested = [v for v in params.values() if isinstance(v, dict)] or [params]
    trained = min(p.get("original_max_position_embeddings") or config.max_position_embeddings for p in nested)
    longest = config.max_position_embeddings
    return sorted({trained // 2, trained, trained + 1, longest, 2 * longest}) + [None]


def golden(slug: str, fields: dict) -> dict:
    config = hf_config(fields)
    cls, module = rotary_class(config)
    facts = layer_facts(config)
    flags = facts["no_rope_layers"] or [1] * config.num_hidden_layers
    kinds = sorted({t for t, rope in zip(facts["layer_types"], flags, strict=True) if rope})
    per_type = isinstance(cls(config).rope_type, dict)
    ropes = {}
    for kind in kinds:
        layer_type = kind if per_type else None
        ropes[kind] = [rope_at(config, cls, layer_type, s) for s in seq_lens(config)]
    out = {
        "_generated_by": "tools/make_model_golden.py",
        "transformers_version": transformers.__version__,
        "torch_version": torch.__version__,
        "model_id": fields["_model_id"],
        "rotary_class": cls.__name__,
        **facts,
        "ropes": ropes,
    }
    if hasattr(module, "yarn_apply_mscale"):  # DeepSeek: the softmax scale carries YaRN's length correction
        qk = config.qk_head_dim
        out["softmax_scale"] = float(module.yarn_apply_mscale(config.rope_parameters, qk**-0.5))
        out["qk_head_dim"] = qk
    return out


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    written = 0
    for path in sorted(CONFIGS.glob("*.json")):
        fields = json.loads(path.read_text())
        if fields.get("model_type") not in ROPE_TYPES:
            continue
        data = golden(path.stem, fields)
        (OUT / f"{path.stem}.json").write_text(json.dumps(data, indent=1) + "\n")
        written += 1
        print(f"{path.stem}: {data['rotary_class']}, kinds {sorted(data['ropes'])}")
    for slug, fields in SYNTHETIC.items():
        fields = dict(fields, _model_id="synthetic", _source="tools/make_model_golden.py")
        data = dict(golden(slug, fields), config=fields)
        (OUT / f"{slug}.json").write_text(json.dumps(data, indent=1) + "\n")
        written += 1
        print(f"{slug}: {data['rotary_class']}, kinds {sorted(data['ropes'])}")
    print(f"{written} golden files, transformers {transformers.__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

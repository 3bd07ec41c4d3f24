"""Write the 2025-26 shipped configs from transformers' configuration-class defaults (no network).

``python -m tools.make_model_configs`` builds each class with its own defaults (which mirror the
checkpoint its docstring names), keeps the position fields only, and writes
``posviz/model_configs/<slug>.json`` with ``_model_id``, ``_source`` and ``_note`` saying so.
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

from transformers import CONFIG_MAPPING

OUT = Path(__file__).resolve().parent.parent / "posviz" / "model_configs"
KEEP = (
    "model_type", "num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim",
    "max_position_embeddings", "rope_parameters", "layer_types", "sliding_window", "use_sliding_window",
    "attention_chunk_size", "qk_rope_head_dim", "qk_nope_head_dim", "kv_lora_rank", "rope_interleave",
    "conv_L_cache", "linear_conv_kernel_dim", "mamba_d_conv", "index_topk", "compress_rates", "force_rope",
    "per_layer_config", "no_rope_layers", "full_attn_idxs", "linear_attn_config", "use_mem_rope",
    "partial_rotary_factor",
)  # fmt: skip
SHORT = (
    " max_position_embeddings is the class default (2,048), not the checkpoint's longer context (no network to"
    " copy it): at this length the 4,096-token sliding windows cover everything, full attention in effect."
)
SHIP = {  # slug: (model type, model id when not the docstring's, more to say)
    "gemma-4": ("gemma4_text", None, ""),
    "qwen3.5-27b": ("qwen3_5_text", "Qwen/Qwen3.5-27B", ""),
    "qwen3-next-80b": ("qwen3_next", None, ""),
    "deepseek-v3.2": ("deepseek_v32", None, ""),
    "deepseek-v4-flash": ("deepseek_v4", None, ""),
    "kimi-linear-48b": ("kimi_linear", None, ""),
    "falcon-h1": ("falcon_h1", None, ""),
    "lfm3-1.7b": ("lfm3", None, ""),
    "olmo-3-7b": ("olmo3", None, SHORT),
    "command-cohere2": (
        "cohere2",
        None,
        " Command A (c4ai-command-a-03-2025) is a Cohere2 model: the same class and layer pattern; its sizes differ.",
    ),
    "exaone-4-32b": ("exaone4", None, SHORT),
    "gpt-oss-120b": (
        "gpt_oss",
        "openai/gpt-oss-120b",
        " GptOssConfig's defaults are the 120b's depth (36 layers, 128 experts; its docstring names gpt-oss-20b,"
        " which has 24 layers and ships separately).",
    ),
    "mistral-small-4": ("mistral4", None, " YaRN factor 128 from original 8,192 positions."),
}


def main() -> None:
    for slug, (model_type, model_id, extra) in SHIP.items():
        cls = CONFIG_MAPPING[model_type]
        module = inspect.getmodule(cls)
        checkpoint = re.findall(r'checkpoint="([^"]+)"', inspect.getsource(module))[0]
        folder, name = module.__name__.split(".")[-2:]
        out = {
            "_model_id": model_id or checkpoint,
            "_source": f"transformers 5.23.0 {cls.__name__} defaults (models/{folder}/{name}.py), whose docstring "
            f"names the checkpoint {checkpoint}",
            "_note": "Position fields only, derived offline from the configuration class's defaults (which mirror "
            "the flagship checkpoint), not copied from the hub." + extra,
        }
        data = cls().to_dict()
        out |= {k: data[k] for k in KEEP if data.get(k) is not None}
        out["model_type"] = model_type
        (OUT / f"{slug}.json").write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
        print(slug, out["_model_id"])


if __name__ == "__main__":
    main()

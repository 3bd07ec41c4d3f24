"""posviz reads every RoPE model of the pinned transformers as transformers runs it (tools/zoo.py).

The whole zoo (every model type whose text config carries RoPE, built from its class defaults) is
``slow``; a sample of this year's kinds runs in the default run. Each entry of ``model_hf.RULES``
(a rule of modeling code, not of any config field) is checked against transformers' source.
"""

from __future__ import annotations

import inspect

import pytest
import torch
from transformers import CONFIG_MAPPING
from transformers.configuration_utils import ALLOWED_ATTN_LAYER_TYPES

from posviz.encodings.model_hf import KINDS, RULES
from posviz.encodings.models import model_positions, shipped_models
from tools.zoo import _modeling, compare, text_config, truth, zoo_types

# One of each kind this year brought: proportional + per-layer heads, linear hybrid, MLA + indexer,
# compressed main/compress, Mamba hybrid, convolution, sliding pattern in code, NoPE full layers.
SAMPLE = (
    "gemma4", "qwen3_next", "qwen3_5", "deepseek_v32", "deepseek_v4", "falcon_h1", "lfm2", "lfm3", "olmo3",
    "cohere2", "exaone4", "gpt_oss", "llama4", "smollm3", "glm4_moe", "jetmoe", "ministral3", "modernbert",
)  # fmt: skip


def test_sample_equals_transformers():
    for model_type in SAMPLE:
        assert compare(model_type) == ("equal", ""), model_type


@pytest.mark.slow
def test_whole_zoo_equals_transformers():
    results = {t: compare(t) for t in zoo_types()}
    verdicts = [v for v, _ in results.values()]
    assert len(results) > 250
    assert not [t for t, (v, _) in results.items() if v in ("different", "crash", "no truth")], results
    for t, (v, detail) in results.items():
        if v == "refused":
            assert "num_hidden_layers" in detail or "rope" in detail, (t, detail)  # the message names the field
    assert verdicts.count("equal") >= 0.98 * len(results)


@pytest.mark.parametrize("slug", sorted(shipped_models()))
def test_every_shipped_rope_model_equals_transformers(slug):
    cfg = shipped_models()[slug]
    mp = model_positions(cfg)
    if not mp.ropes and mp.family != "nope-hybrid":
        return  # learned, sinusoidal, T5, ALiBi: no RoPE to compare
    clean = {k: v for k, v in cfg.items() if not k.startswith("_")}
    assert compare(cfg["model_type"], clean) == ("equal", ""), slug


@pytest.mark.parametrize("rule", RULES, ids=[r.types[0] for r in RULES])
def test_every_modeling_rule_is_still_transformers_rule(rule):
    """The line of modeling code that states each rule is still there: this fails when transformers changes it."""
    for model_type in rule.types:
        module = _modeling(text_config(CONFIG_MAPPING[model_type]()))
        assert module is not None, model_type
        assert rule.source in inspect.getsource(module), (model_type, rule.source)


BENIGN = ("position_embeddings is not None", "not is_cross_attention", "self.rotary_emb is not None")


def rope_conditions(source: str) -> set[str]:
    """The ``if`` lines right above a call of apply_rotary_pos_emb that decide per layer whether it rotates."""
    lines = source.splitlines()
    found = set()
    for i, line in enumerate(lines):
        if "= apply_rotary_pos_emb(" in line and i and lines[i - 1].strip().startswith("if "):
            condition = lines[i - 1].strip()
            if not any(b in condition for b in BENIGN):
                found.add(condition)
    return found


def test_no_other_model_switches_rope_off_in_code():
    """Every model whose attention applies RoPE under a condition on the layer is in RULES (or reads a field)."""
    covered = {t for r in RULES for t in r.types} | {"smollm3"}  # smollm3: no_rope_layers, a config field
    found = {}
    for model_type in zoo_types():
        text = text_config(CONFIG_MAPPING[model_type]())
        module = _modeling(text)
        conditions = rope_conditions(inspect.getsource(module)) if module else set()
        if conditions and text.model_type not in covered:
            found[text.model_type] = conditions
    assert not found
    cohere2 = _modeling(text_config(CONFIG_MAPPING["cohere2"]()))
    assert rope_conditions(inspect.getsource(cohere2)) == {"if self.sliding_window is not None:"}  # it finds them


def test_every_layer_kind_transformers_allows_has_a_place():
    for layer_type in ALLOWED_ATTN_LAYER_TYPES:
        assert layer_type.removesuffix("_attention") in KINDS, layer_type


def test_gemma4_global_layers_proportional_512_wide():
    mp = model_positions(CONFIG_MAPPING["gemma4"]().to_dict())
    full, sliding = mp.rope_spec("full"), mp.rope_spec("sliding")
    assert (full.rope_type, full.head_dim, sliding.head_dim) == ("proportional", 512, 256)
    inv, _ = mp.rope("full")
    assert inv.shape == (256,) and (inv[64:] == 0).all() and (inv[:64] > 0).all()  # 0.25 of the pairs turn
    hf = truth("gemma4").rope["full_attention"][1][0]
    assert torch.allclose(inv, hf, rtol=1e-5)


def test_layers_without_attention_position_say_where_order_enters():
    mp = model_positions(CONFIG_MAPPING["qwen3_next"]().to_dict())
    assert {x.attention for x in mp.layers} == {"full", "linear"}
    assert all(not x.rope for x in mp.layers if x.attention == "linear")
    assert any("recurrence" in n for n in mp.notes)
    lfm = model_positions(CONFIG_MAPPING["lfm3"]().to_dict())
    conv = [x for x in lfm.layers if x.attention == "conv"]
    assert conv and all(x.window == 7 and not x.rope for x in conv)  # conv_L_cache: the kernel it reaches


def test_cohere2_full_layers_run_without_rope():
    mp = model_positions(CONFIG_MAPPING["cohere2"]().to_dict())
    assert all(x.rope == (x.attention == "sliding") for x in mp.layers)


def test_deepseek_v4_main_and_compress():
    mp = model_positions(CONFIG_MAPPING["deepseek_v4"]().to_dict())
    bases = {kind: spec.base for kind, spec in mp.ropes}
    assert bases["sliding"] == 10000.0 if "sliding" in bases else True
    assert {bases[k] for k in ("compressed_sparse", "heavily_compressed") if k in bases} == {160000.0}


def test_transformers_cannot_build_is_a_value_error():
    with pytest.raises(ValueError, match="num_hidden_layers"):
        model_positions({"model_type": "llama", "num_hidden_layers": "many"})

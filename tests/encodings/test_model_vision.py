"""A vision-language config's M-RoPE and vision-encoder facts equal what transformers' configuration objects
(and, where the modeling code decides, its rotary modules) hold."""

from __future__ import annotations

import importlib
import inspect

import pytest
import torch
from transformers import CONFIG_MAPPING

from posviz.encodings.model_vision import ENCODER_OF, ENCODERS, MROPE, PRESETS, vision_facts
from posviz.encodings.models import model_positions, shipped_models
from posviz.encodings.multimodal import mrope_axes, vision_rope_frequencies

SHIPPED = shipped_models()
VL = {"qwen2.5-vl": "qwen2_5_vl", "qwen3-vl": "qwen3_vl", "gemma-4": "gemma4", "pixtral-mistral-small-3.1": "mistral3"}


def built(slug: str):
    cfg = {k: v for k, v in SHIPPED[slug].items() if not k.startswith("_")}
    return CONFIG_MAPPING[cfg["model_type"]](**cfg)


def modeling(model_type: str):
    return importlib.import_module(f"transformers.models.{model_type}.modeling_{model_type}")


@pytest.mark.parametrize("slug", sorted(VL))
def test_facts_equal_the_transformers_config(slug):
    config = built(slug)
    v = model_positions(SHIPPED[slug]).vision
    assert v is not None and v.model_type == VL[slug] == config.model_type
    vision = config.vision_config
    assert v.encoder_type == vision.model_type and v.patch_size == vision.patch_size
    head_dim = getattr(vision, "head_dim", None) or vision.hidden_size // vision.num_attention_heads  # as its rotary
    assert (v.head_dim, v.theta) == (head_dim, vision.rope_parameters["rope_theta"])
    merge = getattr(vision, "spatial_merge_size", None) or getattr(vision, "pooling_kernel_size", None)
    assert v.merge == (merge or config.spatial_merge_size)
    assert v.tokens_per_second == getattr(vision, "tokens_per_second", None)


@pytest.mark.parametrize("slug", ["qwen2.5-vl", "qwen3-vl"])
def test_mrope_section_is_the_text_rotary_modules(slug):
    config = built(slug)
    v = vision_facts(config)
    text = config.get_text_config(decoder=True)
    rotary = next(
        cls for name, cls in vars(modeling(config.model_type)).items() if name.endswith("TextRotaryEmbedding")
    ) if config.model_type == "qwen3_vl" else modeling(config.model_type).Qwen2_5_VLRotaryEmbedding  # fmt: skip
    assert list(v.mrope_section) == list(rotary(text).mrope_section) and not v.section_from_config
    assert sum(v.mrope_section) == model_positions(SHIPPED[slug]).rope_spec("full").rotary_dim // 2
    assert v.interleaved == (config.model_type == "qwen3_vl")


def test_a_config_mrope_section_wins_over_the_default():
    cfg = {k: v for k, v in SHIPPED["qwen3-vl"].items() if not k.startswith("_")}
    cfg["text_config"] = dict(cfg["text_config"], rope_parameters={"rope_theta": 5e6, "mrope_section": [16, 24, 24]})
    v = model_positions(cfg).vision
    assert v.mrope_section == (16, 24, 24) and v.section_from_config and v.interleaved


def test_qwen3_interleaving_is_the_rotary_modules():
    """The recomposition of Qwen3VLTextRotaryEmbedding puts pair k on the axis mrope_axes says (small section)."""
    text = built("qwen3-vl").get_text_config(decoder=True)
    rotary = modeling("qwen3_vl").Qwen3VLTextRotaryEmbedding(text)
    rotary.mrope_section = [2, 1, 1]
    freq = torch.arange(3)[:, None, None, None].expand(3, 1, 1, 4).float()  # (3 axes, batch, seq, pairs): axis id
    got = rotary.recomposition_frequencies(freq.clone())[0, 0, :4]
    assert got.long().tolist() == mrope_axes(8, (2, 1, 1), interleaved=True).tolist() == [0, 1, 2, 0]


@pytest.mark.parametrize("model_type", sorted(MROPE))
def test_every_mrope_rule_is_still_in_the_modeling_code(model_type):
    assert MROPE[model_type].source in inspect.getsource(modeling(model_type))


@pytest.mark.parametrize("slug", sorted(VL))
def test_vision_frequencies_read_from_the_facts(slug):
    v = model_positions(SHIPPED[slug]).vision
    axis, inv = vision_rope_frequencies(v.encoder, {"head_dim": v.head_dim, "rope_theta": v.theta})
    assert inv.shape == (v.head_dim // 2,) and set(axis.tolist()) == {0, 1}
    assert ENCODER_OF.get(v.encoder, v.encoder) in ENCODERS


def test_models_without_a_rope_vision_encoder_have_no_facts():
    assert model_positions(CONFIG_MAPPING["llava"]().to_dict()).vision is None  # CLIP: a learned table
    assert model_positions(SHIPPED["llama-3.1-8b"]).vision is None
    assert set(PRESETS) == set(MROPE)


def test_a_bad_vision_field_names_it():
    cfg = {k: v for k, v in SHIPPED["qwen3-vl"].items() if not k.startswith("_")}
    cfg["vision_config"] = dict(cfg["vision_config"], spatial_merge_size=0)
    with pytest.raises(ValueError, match="spatial_merge_size"):
        model_positions(cfg)

"""Hostile config.json files: wrong types, absurd sizes, unknown values and contradictions are refused
with a ValueError naming the field, quickly and without allocating for the absurd size."""

from __future__ import annotations

import copy
import time
from pathlib import Path

import pytest

from posviz.encodings.model_fields import MAX_CONTEXT, MAX_LAYERS
from posviz.encodings.models import model_positions, read_config, shipped_models

SHIPPED = shipped_models()
LLAMA = dict(
    model_type="llama", hidden_size=256, num_attention_heads=4, num_hidden_layers=2, max_position_embeddings=32768
)


# --- hostile configs ------------------------------------------------------------------------------------------


def with_(path: str, value):
    cfg = copy.deepcopy(SHIPPED["llama-3.1-8b"])
    *parents, last = path.split(".")
    node = cfg
    for p in parents:
        node = node[p]
    node[last] = value
    return cfg


HOSTILE = [
    (with_("num_hidden_layers", 10**9), "num_hidden_layers"),
    (with_("num_hidden_layers", 1e30), "num_hidden_layers"),
    (with_("max_position_embeddings", 10**30), "max_position_embeddings"),
    (with_("max_position_embeddings", 10**5000), "max_position_embeddings"),
    (with_("max_position_embeddings", "131072"), "max_position_embeddings"),
    (with_("max_position_embeddings", 131072.5), "max_position_embeddings"),
    (with_("rope_theta", -1.0), "rope_theta"),
    (with_("rope_theta", 0), "rope_theta"),
    (with_("rope_theta", "500000"), "rope_theta"),
    (with_("rope_theta", True), "rope_theta"),
    (with_("rope_theta", float("nan")), "rope_theta"),
    (with_("rope_theta", float("inf")), "rope_theta"),
    (with_("rope_scaling.factor", -8.0), "rope_scaling.factor"),
    (with_("rope_scaling.factor", {"a": [1, 2, {"b": None}]}), "rope_scaling.factor"),
    (with_("rope_scaling.rope_type", "ntk-by-parts"), "rope_type"),
    (with_("rope_scaling.type", "yarn"), "disagree"),
    (with_("rope_scaling", [1, 2]), "rope_scaling"),
    (with_("rope_scaling.low_freq_factor", 8.0), "low_freq_factor"),
    (with_("rope_scaling.high_freq_factor", None), "high_freq_factor"),
    (with_("rope_scaling.original_max_position_embeddings", 0), "original_max_position_embeddings"),
    (with_("original_max_position_embeddings", 4096), "original_max_position_embeddings"),
    (with_("rope_parameters", {"rope_type": "default"}), "rope_scaling and rope_parameters"),
    (with_("head_dim", 0), "head_dim"),
    (with_("head_dim", 10**9), "head_dim"),
    (with_("num_attention_heads", 0), "num_attention_heads"),
    (with_("partial_rotary_factor", 1.5), "partial_rotary_factor"),
    (dict(LLAMA, rope_theta=1e4, rope_parameters={"rope_type": "default", "rope_theta": 5e5}), "disagree"),
    (dict(LLAMA, model_type="qwen2", layer_types=["full_attention"]), "layer_types"),
    (dict(LLAMA, model_type="qwen2", layer_types=["full_attention", "banana_attention"]), "layer_types"),
    (dict(LLAMA, model_type="qwen2", layer_types=["sliding_attention"] * 2), "sliding_window"),
    (dict(LLAMA, model_type="mistral", sliding_window="4096"), "sliding_window"),
    (dict(LLAMA, model_type="qwen2", use_sliding_window="yes", sliding_window=4096), "use_sliding_window"),
    (dict(LLAMA, model_type="smollm3", no_rope_layers=[1, 0, 1]), "no_rope_layers"),
    (dict(LLAMA, model_type="smollm3", no_rope_layers=[1, 2]), "no_rope_layers"),
    (dict(LLAMA, model_type="llama4_text", no_rope_layer_interval=0), "no_rope_layer_interval"),
    (
        dict(
            SHIPPED["phi-3.5-mini"],
            rope_scaling={"type": "longrope", "short_factor": [1.0] * 48, "long_factor": [1.0] * 47},
        ),
        "long_factor",
    ),
    (
        dict(
            SHIPPED["phi-3.5-mini"],
            rope_scaling={"type": "longrope", "short_factor": [1.0] * 47 + [-1.0], "long_factor": [1.0] * 48},
        ),
        r"short_factor\[47\]",
    ),
    (
        dict(SHIPPED["deepseek-v3"], rope_scaling=dict(SHIPPED["deepseek-v3"]["rope_scaling"], beta_fast=0.5)),
        "beta_fast",
    ),
    (dict(SHIPPED["gemma-3-4b"], text_config="gemma"), "text_config"),
    (dict(model_type="t5", num_heads=8, relative_attention_num_buckets=-32), "relative_attention_num_buckets"),
    (dict(model_type="gpt2", n_positions=10**12), "n_positions"),
    (dict(model_type="bert", position_embedding_type="relative_key"), "position_embedding_type"),
    (dict(model_type="mpt", attn_config={"alibi": False}), "alibi"),
    (dict(model_type="bloom", n_head="112"), "n_head"),
    ([1, 2, 3], "JSON object"),
    ("config", "JSON object"),
]


@pytest.mark.parametrize("cfg, words", HOSTILE, ids=[w for _, w in HOSTILE])
def test_hostile_configs_are_refused_naming_the_field_quickly(cfg, words):
    with pytest.raises(ValueError, match=words):  # the first read of a model type imports its config class
        model_positions(cfg)
    start = time.perf_counter()
    with pytest.raises(ValueError, match=words):
        model_positions(cfg)
    assert time.perf_counter() - start < 0.1


def test_caps_are_stated():
    with pytest.raises(ValueError, match=f"at most {MAX_LAYERS} layers"):
        model_positions(with_("num_hidden_layers", MAX_LAYERS + 1))
    with pytest.raises(ValueError, match=r"2\^30 tokens"):
        model_positions(with_("max_position_embeddings", MAX_CONTEXT + 1))
    model_positions(with_("max_position_embeddings", MAX_CONTEXT))  # the cap itself is allowed


@pytest.mark.parametrize(
    "text, words",
    [
        ("{" * 100_000, "not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "not valid JSON|JSON object"),
        ("1" * 5000, "not valid JSON"),
        ("[]", "JSON object"),
        (" " * 2_000_000, "1 MB"),
        (b"\xff\xfe", "not valid"),
    ],
)
def test_read_config_refuses_junk(text, words):
    with pytest.raises(ValueError, match=words):
        read_config(text)


def test_read_config_round_trips_a_shipped_file():
    path = Path(__file__).resolve().parents[2] / "posviz" / "model_configs" / "gpt2.json"
    assert read_config(path.read_text()) == SHIPPED["gpt2"]


@pytest.mark.parametrize("seq_len", [0, -1, 2**31, 1.5, "10"])
def test_rope_refuses_bad_seq_len(seq_len):
    with pytest.raises(ValueError, match="seq_len"):
        model_positions(SHIPPED["llama-3.1-8b"]).rope("full", seq_len)

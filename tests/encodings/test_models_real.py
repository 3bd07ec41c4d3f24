"""Real checkpoints' config.json files, and configs as transformers itself re-saves them.

``tests/data/real_configs`` holds config.json files of public checkpoints, verbatim (sources in its
README). Each is read by posviz and compared with transformers' own modeling code run on the
same file (tools/zoo.compare), as shipped and as transformers writes it back
(``to_json_string(use_diff=True)``). The class that runs a file is stated here by hand, not by
posviz's resolution: Kimi-K2's ``kimi_k2`` runs DeepSeek V3's code, Kimi-K3's language model is a
``kimi_linear`` config, MiniMax-M3's a ``minimax_m3_vl_text`` one. Files of remote code with no class
in transformers are listed apart: posviz must refuse them naming the fields, or guess and say so. So
are real files transformers itself cannot build: posviz must refuse them with transformers' reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from transformers import CONFIG_MAPPING

from posviz.encodings.model_types import DOCUMENTED_AS
from posviz.encodings.models import model_positions, read_config, shipped_models
from tools.zoo import compare, resave, round_trips, zoo_types

DATA = Path(__file__).resolve().parent.parent / "data" / "real_configs"
FILES = sorted(p.stem for p in DATA.glob("*.json"))

# Files whose model_type transformers does not register: the class that runs them, stated by hand.
RUNS_AS = {
    "moonshotai--Kimi-K2-Instruct": ("deepseek_v3", None),  # architectures: DeepseekV3ForCausalLM
    "moonshotai--Kimi-K3": ("kimi_linear", "text_config"),  # kimi_k3 wraps a kimi_linear language model
    "MiniMaxAI--MiniMax-M3": ("minimax_m3_vl_text", None),  # MiniMaxM3VLTextConfig is documented for this checkpoint
}
# Remote code with no class in transformers: no truth to compare with. posviz refuses or guesses, and says so.
REMOTE_ONLY = {
    "nvidia--Llama-3_3-Nemotron-Super-49B-v1": "refused",  # DeciLM's per-layer block_configs
    "XiaomiMiMo--MiMo-7B-Base": "guess",  # a Qwen2-style decoder; every position field is Llama's
}

# Real files transformers 5.23 itself cannot build (no truth either): posviz must refuse them, saying why.
# Phi-3's 128k checkpoints, in their revision with rope type "su": Phi3Config standardizes rope_parameters
# (which copies the top-level original_max_position_embeddings in only for llama3, yarn and longrope) before
# it renames "su" to "longrope", whose validation then misses that key.
TRANSFORMERS_FAILS = {
    "microsoft--Phi-3-mini-128k-instruct": "original_max_position_embeddings",
    "microsoft--Phi-3-medium-128k-instruct": "original_max_position_embeddings",
}
NO_TRUTH = {**REMOTE_ONLY, **TRANSFORMERS_FAILS}


def _load(stem: str) -> dict:
    return read_config((DATA / f"{stem}.json").read_text(encoding="utf-8"))


def _truth_input(stem: str) -> tuple[str, dict]:
    """The model type transformers runs the file with, and the config it runs."""
    cfg = _load(stem)
    if stem in RUNS_AS:
        model_type, part = RUNS_AS[stem]
        inner = cfg[part] if part else cfg
        return model_type, {**inner, "model_type": model_type}
    return cfg["model_type"], cfg


def test_the_set_is_large_and_sourced():
    assert len(FILES) >= 30
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    for stem in FILES:
        assert f"{stem}.json" in readme, stem  # every file has its source listed


@pytest.mark.parametrize("stem", [s for s in FILES if s not in NO_TRUTH])
def test_real_file_as_shipped_equals_transformers(stem):
    model_type, config = _truth_input(stem)
    assert compare(model_type, config, read=_load(stem)) == ("equal", ""), stem


@pytest.mark.parametrize("stem", [s for s in FILES if s not in NO_TRUTH])
def test_real_file_as_resaved_equals_transformers(stem):
    model_type, config = _truth_input(stem)
    saved = read_config(resave(model_type, config))
    assert compare(model_type, config, read=saved) == ("equal", ""), stem


@pytest.mark.parametrize("stem", sorted(REMOTE_ONLY))
def test_remote_code_without_a_transformers_class_is_refused_or_called_a_guess(stem):
    if REMOTE_ONLY[stem] == "refused":
        with pytest.raises(ValueError, match="not one transformers 5.23 knows.*does not guess"):
            model_positions(_load(stem))
    else:
        mp = model_positions(_load(stem))
        assert mp.notes[0].startswith("A guess:") and "trusting only" in mp.notes[0]


@pytest.mark.parametrize("stem", sorted(TRANSFORMERS_FAILS))
def test_a_real_file_transformers_cannot_build_is_refused_with_its_reason(stem):
    model_type, config = _truth_input(stem)
    with pytest.raises(KeyError, match=TRANSFORMERS_FAILS[stem]):  # transformers itself: no truth to draw
        CONFIG_MAPPING[model_type].from_dict(json.loads(json.dumps(config)))
    said = f"transformers cannot build a {model_type} config.*{TRANSFORMERS_FAILS[stem]}"
    with pytest.raises(ValueError, match=said):  # posviz: refused, with transformers' reason
        model_positions(_load(stem))


# ---------------------------------------------------------------- defect 1: re-saved configs


def test_qwen2_vl_text_config_as_transformers_resaves_it_reads():
    """Qwen2-VL's checkpoints write rope_scaling {"type": "mrope", ...}; transformers 5 saves it with
    rope_type "default" beside type "mrope", and reads that back."""
    shipped = {"model_type": "qwen2_vl_text", "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}
    saved = read_config(resave("qwen2_vl_text", shipped))
    params = json.loads(resave("qwen2_vl_text", shipped))["rope_parameters"]
    assert (params["type"], params["rope_type"]) == ("mrope", "default")  # what transformers writes
    assert CONFIG_MAPPING["qwen2_vl_text"].from_dict(saved).rope_parameters["rope_type"] == "default"
    assert compare("qwen2_vl_text", shipped, read=saved) == ("equal", "")
    assert model_positions(saved) == model_positions(shipped)


def test_a_real_disagreement_of_type_and_rope_type_is_still_refused():
    bad = {"model_type": "llama", "rope_scaling": {"type": "linear", "rope_type": "dynamic", "factor": 2.0}}
    with pytest.raises(ValueError, match="disagree"):
        model_positions(bad)


@pytest.mark.slow
def test_whole_zoo_round_trips():
    """Every zoo type: transformers' own re-save of its defaults reads as the defaults do."""
    types = zoo_types()
    assert len(types) > 250
    assert [t for t in types if not round_trips(t)] == []


@pytest.mark.parametrize("slug", sorted(shipped_models()))
def test_every_shipped_config_round_trips(slug):
    cfg = shipped_models()[slug]
    clean = {k: v for k, v in cfg.items() if not k.startswith("_")}
    saved = read_config(resave(cfg["model_type"], clean))
    assert model_positions(saved) == model_positions(cfg), slug


def test_transformers_special_floats_read_as_transformers_reads_them():
    text = resave("falcon_h1")
    assert '"__float__"' in text  # Infinity in time_step_limit, written as an object
    assert model_positions(read_config(text)) == model_positions(CONFIG_MAPPING["falcon_h1"]().to_dict())


# ---------------------------------------------------------------- defect 2: remote-code families


def test_kimi_k2_is_read_as_deepseek_v3_and_says_so():
    mp = model_positions(_load("moonshotai--Kimi-K2-Instruct"))
    spec = mp.rope_spec("full")
    assert mp.model_type == "deepseek_v3"
    assert spec.rotary_dim == 64 and spec.mla  # MLA's decoupled RoPE, qk_rope_head_dim 64 (not a 112-wide Llama)
    assert mp.rope("full")[0].shape == (32,)
    assert "DeepseekV3ForCausalLM" in mp.notes[0] and "kimi_k2" in mp.notes[0]


def test_minimax_m3_is_read_as_the_language_model_transformers_documents_for_it():
    """``minimax_m3`` is no type of transformers 5.23, and ``MiniMaxM3ForCausalLM`` no class of it; its
    MiniMaxM3VLTextConfig (``minimax_m3_vl_text``) is documented for MiniMaxAI/MiniMax-M3 and reads the file's
    own fields (``sparse_attention_config``, ``moe_layer_freq``) into its layer types."""
    for found, checkpoint in DOCUMENTED_AS.values():  # the evidence each such reading rests on
        assert checkpoint in CONFIG_MAPPING[found].__doc__, found
    cls = CONFIG_MAPPING["minimax_m3_vl_text"]
    cfg = _load("MiniMaxAI--MiniMax-M3")
    assert "minimax_m3_sparse" in cls.from_dict(cfg).layer_types  # its sparse_attention_config, read by transformers
    mp = model_positions(cfg)
    assert mp.model_type == "minimax_m3_vl_text" and "MiniMaxAI/MiniMax-M3" in mp.notes[0]
    assert {x.attention for x in mp.layers} == {"full", "minimax_m3_sparse"}
    assert mp.rope_spec("full").rotary_dim == 64  # rotary_dim 64 of a 128-wide head, not a whole-head Llama
    with pytest.raises(ValueError, match="does not guess"):  # any other unknown type with those fields: refused
        model_positions({**cfg, "model_type": "minimax_m9"})


def test_hunyuan_remote_type_is_read_by_its_architecture():
    base = CONFIG_MAPPING["hunyuan_v1_moe"]().to_dict()
    remote = {**base, "model_type": "hunyuan", "architectures": ["HunYuanMoEV1ForCausalLM"]}
    mp = model_positions(remote)
    assert mp.model_type == "hunyuan_v1_moe" and "HunYuanMoEV1ForCausalLM" in mp.notes[0]
    assert compare("hunyuan_v1_moe", base, read=remote) == ("equal", "")


def test_unknown_wrapper_reads_by_its_text_config_type():
    mp = model_positions(_load("moonshotai--Kimi-K3"))
    assert mp.model_type == "kimi_linear" and "text_config is a kimi_linear config" in mp.notes[0]


def test_unknown_type_without_a_known_class_is_a_named_guess_or_a_refusal():
    plain = {"model_type": "minicpm", "architectures": ["MiniCPMForCausalLM"], "num_hidden_layers": 4,
             "num_attention_heads": 8, "hidden_size": 512, "rope_theta": 10000.0}  # fmt: skip
    mp = model_positions(plain)
    assert mp.notes[0].startswith("A guess:") and "rope_theta" in mp.notes[0] and "MiniCPMForCausalLM" in mp.notes[0]
    with pytest.raises(ValueError, match="sets sliding_window, partial_rotary_factor"):
        model_positions({**plain, "sliding_window": 512, "partial_rotary_factor": 0.5})


def test_the_first_known_architecture_wins_and_junk_is_ignored():
    cfg = {"model_type": "x", "architectures": [7, "NoSuchForCausalLM", "Qwen2ForCausalLM"], "num_hidden_layers": 2}
    assert model_positions(cfg).model_type == "qwen2"


# ---------------------------------------------------------------- defect 3: no context limit


def test_recurrent_gemma_keeps_its_local_window():
    mp = model_positions(CONFIG_MAPPING["recurrent_gemma"]().to_dict())
    assert mp.max_position is None and mp.extended_context is None
    sliding = [x for x in mp.layers if x.attention == "sliding"]
    assert sliding and all(x.window == 2048 and x.rope for x in sliding)
    assert not any("full in effect" in n for n in mp.notes)
    assert any("no context limit" in n for n in mp.notes)


def test_a_bounded_context_still_collapses_a_covering_window():
    cfg = {"model_type": "mistral", "sliding_window": 4096, "max_position_embeddings": 4096, "num_hidden_layers": 2}
    mp = model_positions(cfg)
    assert {x.attention for x in mp.layers} == {"full"} and any("full in effect" in n for n in mp.notes)


def test_zoo_types_cover_recurrent_gemma():
    assert "recurrent_gemma" in zoo_types()

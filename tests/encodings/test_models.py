"""Real models: every shipped config.json parsed, its layers and RoPE equal to what transformers computes
(golden data from tools/make_model_golden.py), published facts per family, spellings, hostile configs."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import torch

from posviz.encodings.model_hf import KINDS
from posviz.encodings.model_layers import REACHES_LIKE, Layer, attention_mask, kind_masks, reach_curve, reach_start
from posviz.encodings.models import FAMILIES, model_positions, shipped_models

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "models"
HF_KINDS = {"full_attention": "full", "sliding_attention": "sliding", "chunked_attention": "chunked"}
SHIPPED = shipped_models()
FAMILY = {
    "gpt2": "learned",
    "bert-base-uncased": "learned",
    "opus-mt-en-de": "sinusoidal",
    "t5-base": "t5",
    "flan-t5-base": "t5",
    "mt5-base": "t5",
    "bloom": "alibi",
    "mpt-7b": "alibi",
    "llama-2-7b": "rope",
    "mistral-7b": "rope",
    "pythia-1.4b": "rope",
    "phi-2": "rope",
    "llama-3.1-8b": "rope",
    "llama-3.2-1b": "rope",
    "qwen2.5-7b-yarn": "rope",
    "deepseek-v3": "rope",
    "gpt-oss-20b": "rope",
    "gemma-2-2b": "rope",
    "gemma-3-4b": "rope",
    "gemma-3-27b": "rope",
    "phi-3.5-mini": "rope",
    "llama-4-scout": "nope-hybrid",
    "smollm3-3b": "nope-hybrid",
    # 2025-26, from transformers' configuration-class defaults (no network): the source says so
    "gemma-4": "rope",
    "qwen3.5-27b": "nope-hybrid",
    "qwen3-next-80b": "nope-hybrid",
    "deepseek-v3.2": "rope",
    "deepseek-v4-flash": "rope",
    "kimi-linear-48b": "nope-hybrid",
    "falcon-h1": "rope",
    "lfm3-1.7b": "nope-hybrid",
    "olmo-3-7b": "rope",
    "command-cohere2": "nope-hybrid",
    "exaone-4-32b": "nope-hybrid",
    "gpt-oss-120b": "rope",
    "mistral-small-4": "rope",
    # vision-language wrappers (text_config and vision_config), from the same class defaults
    "qwen2.5-vl": "rope",
    "qwen3-vl": "rope",
    "pixtral-mistral-small-3.1": "rope",
}


def golden_files() -> list[Path]:
    return sorted(GOLDEN.glob("*.json"))


def config_of(path: Path, g: dict) -> dict:
    """A golden file's config: its own (synthetic spellings), else the shipped one of that name."""
    return g.get("config") or SHIPPED[path.stem]


def test_twenty_configs_ship_with_their_source():
    assert len(SHIPPED) >= 20
    assert set(SHIPPED) == set(FAMILY)
    for slug, cfg in SHIPPED.items():
        source = cfg["_source"]
        assert "/" in cfg["_model_id"], slug
        assert source.startswith("https://huggingface.co/") or source.startswith("transformers 5.23.0 "), slug
    assert set(FAMILY.values()) == set(FAMILIES)


@pytest.mark.parametrize("slug", sorted(SHIPPED))
def test_every_shipped_config_parses(slug):
    mp = model_positions(SHIPPED[slug])
    assert mp.family == FAMILY[slug]
    assert mp.num_layers == len(mp.layers) > 0
    for layer in mp.layers:
        assert layer.attention in KINDS
        assert (layer.window is None) == (REACHES_LIKE[layer.attention] not in ("sliding", "chunked"))
    for kind, spec in mp.ropes:
        inv, att = mp.rope(kind)
        assert inv.shape == (spec.rotary_dim // 2,) and inv.dtype == torch.float64 and att > 0


def test_every_rope_family_config_has_golden_data():
    rope = {s for s, fam in FAMILY.items() if fam in ("rope", "nope-hybrid")}
    # the configs of 2025-26 are compared live with transformers instead (test_models_zoo.py)
    assert {p.stem for p in golden_files() if not p.stem.startswith("synthetic-")} <= rope
    assert sum(p.stem.startswith("synthetic-") for p in golden_files()) >= 6


# --- against transformers ---------------------------------------------------------------------------------


def expected_layers(g: dict) -> list[tuple[str, int | None, bool]]:
    """transformers' layer kinds, with posviz's one rule on top: a window as long as the context is full."""
    out = []
    flags = g["no_rope_layers"] or [1] * len(g["layer_types"])
    for t, rope in zip(g["layer_types"], flags, strict=True):
        kind = HF_KINDS[t]
        size = {"sliding": g["sliding_window"], "chunked": g["attention_chunk_size"]}.get(kind)
        if size is not None and size >= g["max_position_embeddings"]:
            kind, size = "full", None
        out.append((kind, size, bool(rope)))
    return out


@pytest.mark.parametrize("path", golden_files(), ids=lambda p: p.stem)
def test_layers_equal_transformers(path):
    g = json.loads(path.read_text())
    assert g["transformers_version"].startswith("5.")
    mp = model_positions(config_of(path, g))
    assert [(x.attention, x.window, x.rope) for x in mp.layers] == expected_layers(g)
    assert mp.max_position == g["max_position_embeddings"]


@pytest.mark.parametrize("path", golden_files(), ids=lambda p: p.stem)
def test_rope_equals_transformers_at_every_length(path):
    g = json.loads(path.read_text())
    mp = model_positions(config_of(path, g))
    kinds = {HF_KINDS[t]: k for t, (k, _, _) in zip(g["layer_types"], expected_layers(g), strict=True)}
    assert len(g["ropes"]) >= 1
    for hf_kind, rows in g["ropes"].items():
        assert {r["seq_len"] for r in rows} > {None, g["max_position_embeddings"] * 2}  # past the context too
        for row in rows:
            inv, att = mp.rope(kinds[HF_KINDS[hf_kind]], row["seq_len"])
            ref = torch.tensor(row["inv_freq"], dtype=torch.float64)
            torch.testing.assert_close(inv, ref, rtol=1e-6, atol=0)  # transformers works in float32
            assert att == pytest.approx(row["attention_factor"], rel=1e-6)


def test_deepseek_softmax_scale_equals_transformers():
    g = json.loads((GOLDEN / "deepseek-v3.json").read_text())
    spec = model_positions(SHIPPED["deepseek-v3"]).rope_spec("full")
    assert spec.head_dim == g["qk_head_dim"] == 192 and spec.rotary_dim == 64 and spec.not_rotated == 128
    assert spec.head_dim**-0.5 * spec.softmax_scale_factor == pytest.approx(g["softmax_scale"], rel=1e-12)
    assert spec.layout == "interleaved"


def test_longrope_switches_where_transformers_does():
    g = json.loads((GOLDEN / "phi-3.5-mini.json").read_text())
    rows = {r["seq_len"]: r["inv_freq"] for r in g["ropes"]["sliding_attention"]}
    assert rows[4096] == rows[None] != rows[4097]  # short factors up to the trained 4096 tokens, long past them


# --- published facts --------------------------------------------------------------------------------------


def test_gemma3_five_local_one_global():
    mp = model_positions(SHIPPED["gemma-3-27b"])
    full = [i for i, x in enumerate(mp.layers) if x.attention == "full"]
    assert full == list(range(5, 62, 6)) and len(full) == 10
    assert {x.window for x in mp.layers if x.attention == "sliding"} == {1024}
    assert mp.rope_spec("full").base == 1e6 and mp.rope_spec("full").rope_type == "linear"
    assert mp.rope_spec("sliding").base == 1e4 and mp.rope_spec("sliding").rope_type == "default"


def test_llama4_scout_chunks_and_nope():
    mp = model_positions(SHIPPED["llama-4-scout"])
    nope = [i for i, x in enumerate(mp.layers) if not x.rope]
    assert nope == list(range(3, 48, 4))
    assert all(mp.layers[i].attention == "full" for i in nope)
    assert {(x.attention, x.window) for x in mp.layers if x.rope} == {("chunked", 8192)}
    assert mp.extended_context == 10_485_760
    with pytest.raises(ValueError, match="no full layer"):
        mp.rope("full")


def test_smollm3_every_fourth_layer_has_no_position():
    mp = model_positions(SHIPPED["smollm3-3b"])
    assert [i for i, x in enumerate(mp.layers) if not x.rope] == [3, 7, 11, 15, 19, 23, 27, 31, 35]
    assert mp.kinds == ("full",) and mp.rope_spec("full").base == 5e6


@pytest.mark.parametrize(
    "slug, kinds, window",
    [
        ("mistral-7b", ("sliding",), 4096),
        ("qwen2.5-7b-yarn", ("full",), None),
        ("phi-3.5-mini", ("full",), None),
        ("gpt-oss-20b", ("full", "sliding"), 128),
        ("llama-3.1-8b", ("full",), None),
    ],
)
def test_sliding_windows(slug, kinds, window):
    mp = model_positions(SHIPPED[slug])
    assert mp.kinds == kinds
    assert {x.window for x in mp.layers} - {None} == ({window} if window else set())


def test_contexts():
    llama = model_positions(SHIPPED["llama-3.1-8b"])
    assert (llama.trained_context, llama.extended_context) == (8192, 131072)
    qwen = model_positions(SHIPPED["qwen2.5-7b-yarn"])
    assert (qwen.trained_context, qwen.extended_context) == (32768, 131072)  # YaRN factor 4 past max_position
    pythia = model_positions(SHIPPED["pythia-1.4b"])
    assert pythia.rope_spec("full").rotary_dim == 32 and pythia.rope_spec("full").not_rotated == 96


def test_absolute_families():
    t5 = model_positions(SHIPPED["t5-base"])
    assert (t5.t5.num_buckets, t5.t5.max_distance, t5.heads) == (32, 128, 12)
    assert [x.stack for x in t5.layers] == ["encoder"] * 12 + ["decoder"] * 12
    assert not t5.layers[0].causal and t5.layers[-1].causal
    assert model_positions(SHIPPED["mt5-base"]).t5.max_distance == 128  # not in its config.json: the default
    bloom = model_positions(SHIPPED["bloom"])
    assert (bloom.alibi.heads, bloom.num_layers, bloom.max_position) == (112, 70, None)
    gpt2 = model_positions(SHIPPED["gpt2"])
    assert (gpt2.table.size, gpt2.table.dim) == (1024, 768)
    marian = model_positions(SHIPPED["opus-mt-en-de"])
    assert (marian.table.size, marian.table.dim, marian.table.layout) == (512, 512, "concat")
    with pytest.raises(ValueError, match="RoPE"):
        gpt2.rope("full")


# --- spellings ------------------------------------------------------------------------------------------------

LLAMA = dict(
    model_type="llama", hidden_size=256, num_attention_heads=4, num_hidden_layers=2, max_position_embeddings=32768
)
YARN = dict(factor=4.0, original_max_position_embeddings=8192, beta_fast=16.0)


def spec_of(cfg: dict):
    return model_positions(cfg).rope_spec("full")


def test_old_and_new_spellings_agree():
    old = spec_of(dict(LLAMA, rope_theta=5e5, rope_scaling=dict(YARN, type="yarn")))
    new = spec_of(dict(LLAMA, rope_parameters=dict(YARN, rope_type="yarn", rope_theta=5e5)))
    keyed = spec_of(
        dict(
            LLAMA,
            layer_types=["full_attention"] * 2,
            model_type="qwen2",
            rope_parameters={"full_attention": dict(YARN, rope_type="yarn", rope_theta=5e5)},
        )
    )
    assert old == new
    assert keyed == new  # rope_parameters keyed by layer type: the same RoPE for the full layers


def test_gemma3_new_spelling_equals_old():
    text = copy.deepcopy(SHIPPED["gemma-3-4b"]["text_config"])
    old = model_positions(text)
    for key in ("rope_scaling", "rope_theta", "rope_local_base_freq"):
        text.pop(key)
    text["rope_parameters"] = {
        "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6},
        "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
    }
    assert model_positions(text).ropes == old.ropes


def test_nope_interval_as_transformers_reads_it():
    """Llama4TextConfig (5.23) reads no_rope_layer_interval; the older nope_layer_interval is not a field of it."""
    base = dict(model_type="llama4_text", num_hidden_layers=8, attention_chunk_size=512)
    a = model_positions(dict(base, no_rope_layer_interval=2))
    b = model_positions(dict(base, nope_layer_interval=2))
    assert [x.rope for x in a.layers] == [True, False] * 4
    assert [x.rope for x in b.layers] == [True, True, True, False] * 2  # the class default, 4


def test_unrelated_fields_are_ignored():
    cfg = dict(
        SHIPPED["llama-3.1-8b"],
        quantization_config={"bits": [1, {"x": None}]},
        architectures=["X"],
        torch_dtype="bfloat16",
        id2label={"0": "a"},
        some_future_field=[[1, 2], {"a": "b"}],
    )
    assert model_positions(cfg) == model_positions(SHIPPED["llama-3.1-8b"])


# --- masks and reach ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("attention, window", [("full", None), ("sliding", 3), ("chunked", 4)])
def test_mask_equals_a_loop(attention, window):
    q, k = torch.arange(0, 20, 3), torch.arange(20)
    mask = attention_mask(attention, window, q, k)
    for a, i in enumerate(q.tolist()):
        for b, j in enumerate(k.tolist()):
            sees = j <= i and (
                attention == "full"
                or (attention == "sliding" and i - j < window)
                or (attention == "chunked" and i // window == j // window)
            )
            assert bool(mask[a, b]) == sees


def reach_by_matrices(layers: list[Layer], position: int) -> int:
    """Earliest source through boolean mask products: info[i, j] after each layer, on every position."""
    pos = torch.arange(position + 1)
    info = torch.eye(position + 1, dtype=torch.bool)
    for layer in layers:
        m = attention_mask(layer.attention, layer.window, pos, pos).to(torch.int64)
        info = (m @ info.to(torch.int64)) > 0  # (i, source): i sees a key that holds source
    return int(info[position].nonzero().min())


@pytest.mark.parametrize("slug", ["mistral-7b", "gpt-oss-20b", "gemma-2-2b", "llama-4-scout"])
def test_reach_equals_mask_products(slug):
    mp = model_positions(SHIPPED[slug])
    small = [Layer(x.attention, x.window and max(2, x.window // 512), x.rope) for x in mp.layers[:6]]
    for position in (0, 5, 17, 40):
        for n in range(len(small) + 1):
            assert reach_start(small[:n], position) == reach_by_matrices(small[:n], position)


def test_reach_facts():
    mistral = model_positions(SHIPPED["mistral-7b"])
    assert reach_curve(mistral.layers, 100_000)[:4] == [0, 4095, 8190, 12285]  # (window - 1) per layer
    oss = model_positions(SHIPPED["gpt-oss-20b"])
    assert reach_curve(oss.layers, 5000)[:3] == [0, 127, 5000]  # a 128-token window, then a full layer
    scout = model_positions(SHIPPED["llama-4-scout"])
    assert reach_curve(scout.layers, 20_000)[:5] == [0, 20_000 % 8192, 20_000 % 8192, 20_000 % 8192, 20_000]


def test_kind_masks_stack_one_query_row_per_kind() -> None:
    kinds = [("full", None, "a"), ("sliding", 3, "b"), ("chunked", 4, "c")]
    k = torch.arange(10)
    got = kind_masks(kinds, 9, k)
    assert got.shape == (3, 10)
    for row, (attention, window, _) in zip(got, kinds, strict=True):
        want = [
            j <= 9
            and (
                attention == "full"
                or (attention == "sliding" and 9 - j < window)
                or (attention == "chunked" and j // window == 9 // window)
            )
            for j in range(10)
        ]
        assert row.tolist() == want

"""NoPE, Llama 4's NoPE layers and DroPE, against transformers' Llama and Llama 4 attention (the oracles)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
from transformers import Llama4TextConfig, LlamaConfig
from transformers.models.llama.modeling_llama import LlamaAttention, LlamaRotaryEmbedding
from transformers.models.llama4.modeling_llama4 import Llama4TextAttention

from posviz.encodings.drope import attention_by_distance, dropped_rotation, rope_and_drope_attention
from posviz.encodings.nope import llama4_query_scale, marker_attention, nope_layers, rotary_layers, unmasked_outputs
from posviz.encodings.rope import rope_inv_freq


def causal_additive_mask(length: int) -> torch.Tensor:
    return torch.full((length, length), float("-inf")).triu(1)[None, None]


def identity_projections(attn: torch.nn.Module) -> None:
    with torch.no_grad():
        for proj in (attn.q_proj, attn.k_proj, attn.v_proj, attn.o_proj):
            proj.weight.copy_(torch.eye(proj.weight.shape[0], proj.weight.shape[1]))


def test_the_marker_gives_one_over_t():
    weights, out = marker_attention(7)
    t = torch.arange(1, 8, dtype=torch.float64)
    torch.testing.assert_close(out, 1 / t)
    for i in range(7):  # uniform over the past, nothing on the future
        torch.testing.assert_close(weights[i, : i + 1], torch.full((i + 1,), 1 / (i + 1), dtype=torch.float64))
        assert float(weights[i, i + 1 :].sum()) == 0


def test_without_mask_a_token_gets_the_same_output_wherever_it_stands():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(5, 4, generator=g)
    order = torch.tensor([3, 0, 4, 1, 2])
    out, shuffled = unmasked_outputs(x, order)
    torch.testing.assert_close(shuffled, out[order])
    _, masked = marker_attention(5)
    assert len(set(masked.tolist())) == 5  # with the mask, each position is told apart


def test_llama4_nope_layers_are_the_configs():
    config = Llama4TextConfig(num_hidden_layers=12, no_rope_layer_interval=4)
    uses_rope = torch.tensor(config.no_rope_layers, dtype=torch.bool)  # the inverted name: 1 = uses RoPE
    torch.testing.assert_close(nope_layers(12, interval=4), ~uses_rope)
    assert nope_layers(12).nonzero().flatten().tolist() == [3, 7, 11]


def test_llama4_temperature_equals_its_attention():
    """A NoPE layer of transformers' Llama4TextAttention (identity projections, floor_scale 2 so it shows in
    a short sequence): its logits are the plain ones times our scale of each query position."""
    length, dim = 12, 8
    config = Llama4TextConfig(
        hidden_size=dim, num_attention_heads=1, num_key_value_heads=1, head_dim=dim, num_hidden_layers=4,
        floor_scale=2, attn_scale=0.5, attn_temperature_tuning=True, use_qk_norm=False,
    )  # fmt: skip
    config._attn_implementation = "eager"
    attn = Llama4TextAttention(config, layer_idx=3).double()  # layer 3: no RoPE
    assert not attn.use_rope
    identity_projections(attn)
    x = torch.randn(1, length, dim, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    _, weights = attn(x, position_embeddings=None, attention_mask=causal_additive_mask(length))
    scale = llama4_query_scale(torch.arange(length), attn_scale=0.5, floor_scale=2)
    logits = (scale[:, None] * x[0]) @ x[0].T / math.sqrt(dim)
    want = torch.softmax(logits.masked_fill(causal_additive_mask(length)[0, 0].isinf(), float("-inf")), -1)
    torch.testing.assert_close(weights[0, 0], want)


def test_llama4_temperature_values():
    t = torch.tensor([0, 8190, 8191, 16383, 65535, 131071, 999999])
    want = [1.0, 1.0, 1.0693, 1.1099, 1.2197, 1.2833, 1.4812]  # the reference sheet's values, 4 digits
    assert [round(v, 4) for v in llama4_query_scale(t).tolist()] == want


def test_drope_is_llama_attention_with_identity_rotation():
    length, dim = 10, 8
    config = LlamaConfig(hidden_size=dim, num_attention_heads=1, num_key_value_heads=1, head_dim=dim)
    config._attn_implementation = "eager"
    attn = LlamaAttention(config, layer_idx=0).double()
    identity_projections(attn)
    x = torch.randn(1, length, dim, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    cos, sin = LlamaRotaryEmbedding(config)(x, torch.arange(length)[None])
    mask = causal_additive_mask(length)
    _, with_rope = attn(x, position_embeddings=(cos.double(), sin.double()), attention_mask=mask)
    _, dropped = attn(x, position_embeddings=dropped_rotation(cos.double(), sin.double()), attention_mask=mask)
    inv_freq = rope_inv_freq(dim, base=config.rope_parameters["rope_theta"])
    ours_rope, ours_dropped = rope_and_drope_attention(x[0], x[0], inv_freq=inv_freq, layout="half")
    torch.testing.assert_close(with_rope[0, 0], ours_rope, rtol=1e-6, atol=1e-7)
    torch.testing.assert_close(dropped[0, 0], ours_dropped, rtol=1e-6, atol=1e-7)  # its softmax runs in float32
    assert not torch.allclose(ours_rope, ours_dropped)


def test_attention_by_distance_reads_the_diagonals():
    w = torch.tensor([[1.0, 0, 0], [0.25, 0.75, 0], [0.1, 0.3, 0.6]])
    torch.testing.assert_close(attention_by_distance(w), torch.tensor([(1 + 0.75 + 0.6) / 3, 0.55 / 2, 0.1]).double())


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="length"):
        marker_attention(0)
    with pytest.raises(ValueError, match="floor_scale"):
        llama4_query_scale(torch.arange(3), floor_scale=0)


SHIPPED = Path(__file__).resolve().parents[2] / "posviz" / "model_configs"


@pytest.mark.parametrize(
    ("slug", "nope"),
    [("llama-4-scout", [3, 7, 11, 15]), ("smollm3-3b", [3, 7, 11, 15]), ("command-cohere2", [3, 7, 11, 15])],
)
def test_shipped_models_nope_layers_are_their_attentions(slug, nope):
    """Each layer's attention module, built by transformers from the same config (tiny widths), says whether it
    rotates: Llama4TextAttention.use_rope, SmolLM3Attention.use_rope, Cohere2Attention's sliding window."""
    from transformers.models.cohere2.modeling_cohere2 import Cohere2Attention
    from transformers.models.smollm3.modeling_smollm3 import SmolLM3Attention

    config = json.loads((SHIPPED / f"{slug}.json").read_text())
    rotates = rotary_layers(config)
    assert (~rotates).nonzero().flatten().tolist()[:4] == nope
    small = dict(hidden_size=16, num_attention_heads=2, num_key_value_heads=1, head_dim=8, intermediate_size=16)
    if config["model_type"] == "llama4":
        text = {k: v for k, v in config["text_config"].items() if k != "model_type"} | small
        text.pop("intermediate_size_mlp", None)
        c = Llama4TextConfig(**text)
        oracle = [bool(Llama4TextAttention(c, i).use_rope) for i in range(c.num_hidden_layers)]
    elif config["model_type"] == "smollm3":
        from transformers import SmolLM3Config

        c = SmolLM3Config(**{k: v for k, v in config.items() if k != "model_type"} | small)
        oracle = [bool(SmolLM3Attention(c, i).use_rope) for i in range(c.num_hidden_layers)]
    else:
        from transformers import Cohere2Config

        c = Cohere2Config(**{k: v for k, v in config.items() if k != "model_type"} | small)
        oracle = [Cohere2Attention(c, i).sliding_window is not None for i in range(c.num_hidden_layers)]
    assert rotates.tolist() == oracle


def test_an_unknown_model_is_refused():
    with pytest.raises(ValueError, match="model_type"):
        rotary_layers({"model_type": "llama"})

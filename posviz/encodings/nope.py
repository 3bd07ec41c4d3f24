"""NoPE: no position encoding at all (Haviv et al. 2022; Kazemnejad et al. 2023), and the models that
keep some layers without one (Llama 4, SmolLM3, Cohere2).

Without a causal mask, attention with no position term is permutation-equivariant: it sees a set. With
the mask, query ``t`` (1-based) averages over exactly ``t`` keys, so the count of predecessors is
observable. The construction: equal logits (a zero query) give uniform causal attention ``1/t`` on each
key, and a value that marks the first token only (``<bos>``) makes the output at ``t`` equal ``1/t``, a
strictly falling function of position that a later layer can decode.

Llama 4 (``transformers.models.llama4``, ``Llama4TextAttention``) leaves every 4th layer without RoPE
(``no_rope_layers[i] == 0``: the name is inverted) and scales those layers' queries by a temperature
that grows with the 0-based position ``t``:

    q_t <- q_t * (1 + attn_scale * log(floor((t + 1) / floor_scale) + 1)),   attn_scale 0.1, floor_scale 8192

so it is 1 below 8191 tokens and grows as the log of the context past it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from posviz.encodings.attention import attention_weights

if TYPE_CHECKING:
    from posviz.encodings.compare import Toy

ATTN_SCALE = 0.1  # Llama4TextConfig defaults
FLOOR_SCALE = 8192
NO_ROPE_INTERVAL = 4


def marker_attention(length: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The counting construction: a zero query (equal logits) under the causal mask, and a value that is 1 on
    the first token only.

    Returns:
        ``(weights, output)``: (length, length) float64 causal attention, uniform over the past, and
        (length,) float64 outputs, ``1 / t`` at 1-based position ``t``.
    """
    if isinstance(length, bool) or not isinstance(length, int) or length < 1:
        raise ValueError(f"length must be a whole number of at least 1, got {length!r}.")
    zeros = torch.zeros(length, 1, dtype=torch.float64)  # every query and key alike: equal logits
    weights = attention_weights(zeros, zeros, causal=True)
    marker = torch.zeros(length, dtype=torch.float64)
    marker[0] = 1.0  # the value reads "is this <bos>?"
    return weights, weights @ marker


def unmasked_outputs(values: torch.Tensor, order: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Attention with no position term and no mask, on a sequence and on a reordering of it.

    Args:
        values: (L, d) token vectors (query = key = value: one head without projections).
        order: (L,) a permutation of ``0 .. L - 1``.

    Returns:
        ``(out, out_shuffled)``, (L, d) each: row ``i`` of ``out`` equals row ``order^-1[i]`` of the
        shuffled output, the same token gets the same output wherever it stands.
    """
    x = values.to(torch.float64)
    shuffled = x[order]
    return attention_weights(x, x) @ x, attention_weights(shuffled, shuffled) @ shuffled


def llama4_query_scale(
    positions: torch.Tensor, *, attn_scale: float = ATTN_SCALE, floor_scale: float = FLOOR_SCALE
) -> torch.Tensor:
    """Llama 4's temperature of a NoPE layer's query at 0-based ``positions``.

    Returns:
        (n,) float64, ``1 + attn_scale * log(floor((t + 1) / floor_scale) + 1)``.
    """
    if not floor_scale > 0:
        raise ValueError(f"floor_scale must be positive (8192 in Llama 4), got {floor_scale}.")
    t = positions.to(torch.float64)
    return 1 + attn_scale * torch.log1p(torch.floor((t + 1) / floor_scale))


def nope_layers(num_layers: int, *, interval: int = NO_ROPE_INTERVAL) -> torch.Tensor:
    """Which layers have no RoPE when every ``interval``-th one goes without (Llama 4's default pattern).

    Returns:
        (num_layers,) bool, True for layers ``interval - 1, 2 interval - 1, ...`` (0-based).
    """
    if interval < 1 or num_layers < 0:
        raise ValueError(f"interval must be at least 1 and num_layers at least 0, got {interval} and {num_layers}.")
    return (torch.arange(num_layers) + 1) % interval == 0


# The shipped models with NoPE layers, and where their configs say which layers rotate.
NOPE_MODELS = {"llama4": "Llama 4", "smollm3": "SmolLM3", "cohere2": "Cohere2 (Command R7B, Command A)"}


def rotary_layers(config: dict) -> torch.Tensor:
    """Which layers apply RoPE, read from a config.json of Llama 4, SmolLM3 or Cohere2 by transformers' own
    configuration class (its defaults included), as each model's attention reads it.

    Llama 4 and SmolLM3: ``no_rope_layers[i] == 1`` means layer ``i`` *uses* RoPE (the name is inverted).
    Cohere2: only the sliding-window layers rotate; the global (full attention) layers have no RoPE.

    Returns:
        (num_layers,) bool, True where the layer rotates q and k.
    """
    from transformers import Cohere2Config, Llama4TextConfig, SmolLM3Config

    model_type = config.get("model_type")
    fields = {k: v for k, v in config.items() if k not in ("model_type", "transformers_version")}
    if model_type == "llama4":
        fields = dict(config.get("text_config", {}))
        fields.pop("model_type", None)
        return torch.tensor(Llama4TextConfig(**fields).no_rope_layers, dtype=torch.bool)
    if model_type == "smollm3":
        return torch.tensor(SmolLM3Config(**fields).no_rope_layers, dtype=torch.bool)
    if model_type == "cohere2":
        return torch.tensor([t == "sliding_attention" for t in Cohere2Config(**fields).layer_types])
    raise ValueError(f"no NoPE layers known for model_type {model_type!r}; known: {', '.join(NOPE_MODELS)}.")


def permutation_change(values: torch.Tensor, order: torch.Tensor, *, causal: bool) -> torch.Tensor:
    """How far each token's output moves when the sequence is reordered, with no position term.

    Args:
        values: (L, d) token vectors (query = key = value: one head without projections).
        order: (L,) a permutation of ``0 .. L - 1``.
        causal: whether the causal mask applies.

    Returns:
        (L,) float64: for token ``n``, the largest absolute difference between its output in the original
        order and in the new one (0 without the mask, up to rounding).
    """
    x = values.to(torch.float64)
    shuffled = x[order]
    out = attention_weights(x, x, causal=causal) @ x
    out_shuffled = attention_weights(shuffled, shuffled, causal=causal) @ shuffled
    back = torch.empty_like(order)
    back[order] = torch.arange(len(order))
    return (out - out_shuffled[back]).abs().amax(-1)


def compare_run(t: Toy) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """The compare page's run: the scaled content scores alone, always under the causal mask (the registry
    entry says so). Its position term is 0: the mask is all it has.

    Returns:
        logits (L, L), and no tensor built.
    """
    return t.content, []

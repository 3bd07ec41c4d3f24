"""PyTorch code that reproduces the NoPE page's figures.

Plain text generation, no streamlit. Llama 4's query temperature is the line of transformers'
``Llama4TextAttention``, DroPE's identity rotation the lines of SakanaAI/DroPE's attention wrapper, pasted;
a test runs every snippet and compares with the page.
"""

from __future__ import annotations

from posviz.ui.code import CURVE_FN
from posviz.ui.nope.settings import NopeSettings

# The distances (or positions) a curve figure draws: every one up to `dense`, then log-spaced.


NOPE_PARTS = ("marker", "permutation", "layers", "temperature", "drope")

CAUSAL_ATTENTION = '''\
def attention(q, k, causal):
    """softmax(q k^T / sqrt(d)) over the keys, keys after the query masked when causal."""
    z = q @ k.T / math.sqrt(q.shape[-1])
    if causal:
        z = z.masked_fill(torch.ones(len(q), len(k)).triu(1).bool(), -math.inf)
    return torch.softmax(z, dim=-1)
'''

ROTATE_HALF = '''\
def rotate_half(x):
    """Hugging Face Llama's rotate_half: the pairs are (x[k], x[k + d/2])."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)
'''

HEADER = ["import math", "", "import torch", "", "", CAUSAL_ATTENTION, ""]


def nope_snippet(*, part: str, seq_len: int = 16, dim: int = 64, base: float = 10000.0, seed: int = 0,
                 length: int = 6, noise: float = 0.3) -> str:  # fmt: skip
    """Code for one figure.

    Args:
        part: ``"marker"`` (``weights``, (L, L), and ``out``, (L,)), ``"permutation"`` (``change``: ``{"no mask":
            (length,), "causal mask": (length,)}``), ``"layers"`` (``rotates``: model -> (layers,) bool),
            ``"temperature"`` (``attn_scales``, (t,) at ``cache_position``) or ``"drope"`` (``with_rope`` and
            ``dropped``, (length,): mean attention at each distance).
        seq_len: the marker figure's tokens; length: the permutation's or DroPE's tokens; noise: DroPE's tokens'.
    """
    if part not in NOPE_PARTS:
        raise ValueError(f"part must be one of {NOPE_PARTS}; got {part!r}")
    if part == "marker":
        lines = [*HEADER, f"L = {seq_len}"]
        lines += [
            "x = torch.zeros(L, 1, dtype=torch.float64)  # W_Q = 0: every query and key alike, every logit equal",
            "weights = attention(x, x, causal=True)  # (L, L): query t (1-based) spreads 1/t over its t keys",
            "value = torch.zeros(L, dtype=torch.float64)",
            "value[0] = 1.0  # the value reads 'is this <bos>?'",
            "out = weights @ value  # (L,): 1/t at position t, a position a later layer can read",
        ]
    elif part == "permutation":
        lines = [*HEADER, f"length, dim = {length}, {dim}"]
        lines += [
            f"g = torch.Generator().manual_seed({seed})",
            "x = torch.randn(length, dim, generator=g).double() / dim**0.25  # tokens, each scoring ~1 with itself",
            "# query = key = value, no projections",
            "order = torch.arange(length - 1, -1, -1)  # reverse the sentence",
            "back = torch.argsort(order)  # where each token went",
            "change = {}",
            "for name, causal in (('no mask', False), ('causal mask', True)):",
            "    out = attention(x, x, causal) @ x  # (length, dim)",
            "    out_reversed = attention(x[order], x[order], causal) @ x[order]",
            "    change[name] = (out - out_reversed[back]).abs().amax(-1)  # (length,) each token's largest change",
        ]
    elif part == "layers":
        lines = [
            "import torch",
            "from transformers import Cohere2Config, Llama4TextConfig, SmolLM3Config",
            "",
            "# the layer counts of Llama 4 Scout, SmolLM3 3B and Command R7B; every other field at its default",
            "rotates = {",
            "    # no_rope_layers[i] == 1 means layer i USES RoPE (the name is inverted): every 4th layer has none",
            "    'Llama 4': torch.tensor(Llama4TextConfig(num_hidden_layers=48).no_rope_layers).bool(),",
            "    'SmolLM3': torch.tensor(SmolLM3Config(num_hidden_layers=36).no_rope_layers).bool(),",
            "    # Cohere2: only the sliding-window layers rotate; the global (full attention) layers have no RoPE",
            "    'Cohere2': torch.tensor(",
            "        [t == 'sliding_attention' for t in Cohere2Config(num_hidden_layers=40).layer_types]",
            "    ),",
            "}",
        ]
    elif part == "temperature":
        lines = ["import math", "", "import torch", "", "", CURVE_FN, ""]
        lines += [
            "attn_scale, floor_scale = 0.1, 8192  # Llama4TextConfig's defaults",
            "cache_position = curve_positions(10_000_000, dense=0, points=400, start=1)  # the 0-based positions drawn",
            "# transformers' Llama4TextAttention, on the NoPE layers' queries (float64 here)",
            "attn_scales = (",
            "    torch.log(torch.floor((cache_position.double() + 1.0) / floor_scale) + 1.0) * attn_scale + 1.0",
            ")",
            "# query_states = query_states * attn_scales, before the usual 1 / sqrt(head_dim)",
        ]
    else:
        lines = ["import math", "", "import torch", "", "", CAUSAL_ATTENTION, "", ROTATE_HALF, ""]
        lines += [
            f"L, dim, base, noise = {length}, {dim}, {float(base)!r}, {noise!r}",
            f"g = torch.Generator().manual_seed({seed})",
            "token = torch.randn(dim, generator=g, dtype=torch.float64)",
            "x = token + noise * torch.randn(L, dim, generator=g, dtype=torch.float64)  # one token, noisy",
            "",
            "inv_freq = 1.0 / base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)  # (dim/2,)",
            "freqs = torch.arange(L, dtype=torch.float64)[:, None] * inv_freq[None, :]  # (L, dim/2)",
            "emb = torch.cat((freqs, freqs), dim=-1)",
            "cos, sin = emb.cos(), emb.sin()  # (L, dim): what the model hands its attention layers",
            "",
            "",
            "def mean_by_distance(weights):",
            '    """The mean weight a query gives the key r positions back, r = 0 .. L - 1."""',
            "    return torch.stack([torch.diagonal(weights, offset=-r).mean() for r in range(L)])",
            "",
            "",
            "def causal_attention(cos, sin):",
            "    q, k = x * cos + rotate_half(x) * sin, x * cos + rotate_half(x) * sin  # queries = keys = x",
            "    return attention(q, k, causal=True)",
            "",
            "",
            "with_rope = mean_by_distance(causal_attention(cos, sin))",
            "# DroPE (custom_models/attention.py): every layer gets the identity rotation in place of (cos, sin)",
            "position_embeddings = (",
            "    torch.ones_like(cos),",
            "    torch.zeros_like(sin),",
            ")",
            "dropped = mean_by_distance(causal_attention(*position_embeddings))",
        ]
    return "\n".join(lines) + "\n"


def page_snippets(s: NopeSettings, *, drope_len: int) -> dict[str, str]:
    """The code of each figure of the page, by the figure's export name; ``drope_len``: DroPE's tokens."""
    return {
        "nope_marker": nope_snippet(part="marker", seq_len=s.seq_len),
        "nope_permutation": nope_snippet(part="permutation", dim=s.dim, seed=s.seed),
        "nope_layers": nope_snippet(part="layers"),
        "nope_temperature": nope_snippet(part="temperature"),
        "nope_drope": nope_snippet(part="drope", dim=s.dim, base=s.base, length=drope_len, seed=s.seed),
    }

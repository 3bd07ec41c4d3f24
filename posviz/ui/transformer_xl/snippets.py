"""PyTorch code that reproduces the Transformer-XL page's figures.

Plain text generation, no streamlit. ``_rel_shift``, ``PositionalEmbedding`` and the score lines are
kimiyoung/transformer-xl's (``pytorch/mem_transformer.py``), pasted; a test runs every snippet and
compares with the page.
"""

from __future__ import annotations

from posviz.ui.transformer_xl.settings import TransformerXlSettings

TXL_PARTS = ("terms", "r", "shift", "memory")

POSITIONAL_EMBEDDING = '''\
def positional_embedding(pos_seq, d_model):
    """PositionalEmbedding: [sin | cos] halves (not interleaved) of each distance in pos_seq."""
    inv_freq = 1 / (10000 ** (torch.arange(0.0, d_model, 2.0, dtype=torch.float64) / d_model))
    sinusoid_inp = torch.ger(pos_seq, inv_freq)
    return torch.cat([sinusoid_inp.sin(), sinusoid_inp.cos()], dim=-1)
'''

REL_SHIFT = '''\
def _rel_shift(x):
    """mem_transformer.py's _rel_shift (zero_triu=False): column r (distance k_len - 1 - r) moves to its key."""
    zero_pad = torch.zeros((x.size(0), 1, *x.size()[2:]), device=x.device, dtype=x.dtype)
    x_padded = torch.cat([zero_pad, x], dim=1)
    x_padded = x_padded.view(x.size(1) + 1, x.size(0), *x.size()[2:])
    x = x_padded[1:].view_as(x)
    return x
'''


def txl_snippet(*, part: str, seq_len: int, mem_len: int, dim: int, seed: int) -> str:
    """Code for one figure.

    Args:
        part: ``"terms"`` (``AC``-``BD`` split: ``content``, ``position``, ``content_bias``, ``position_bias``,
            each (q_len, k_len)), ``"r"`` (``R``, (k_len, 2 dim)), ``"shift"`` (``BD_raw`` and ``BD``, (q_len,
            k_len)) or ``"memory"`` (``attn_prob``, (q_len, k_len), 0 where masked).
        seq_len: the segment's queries; mem_len: the memory; dim: d_head (``d_model = 2 dim``); seed: toy weights.
    """
    if part not in TXL_PARTS:
        raise ValueError(f"part must be one of {TXL_PARTS}; got {part!r}")
    lines = ["import torch", "", "", POSITIONAL_EMBEDDING, ""]
    lines += [
        f"q_len, mem_len, d_head = {seq_len}, {mem_len}, {dim}",
        "k_len, d_model = mem_len + q_len, 2 * d_head  # keys: [memory | segment]",
        "pos_seq = torch.arange(k_len - 1, -1, -1.0, dtype=torch.float64)  # descending distances k_len - 1 .. 0",
        "R = positional_embedding(pos_seq, d_model)  # (k_len, d_model): row r is distance k_len - 1 - r",
    ]
    if part == "r":
        return "\n".join(lines) + "\n"
    lines = ["import math", "", *lines[:5], REL_SHIFT, "", *lines[5:]]
    lines += [
        "",
        "# one head with seeded toy weights (illustrative), drawn in this order",
        f"g = torch.Generator().manual_seed({seed})",
        "q = torch.randn(q_len, d_head, generator=g).double()  # the segment's queries",
        "k = torch.randn(k_len, d_head, generator=g).double()  # keys of the memory, then of the segment",
        "W_R = torch.randn(d_head, d_model, generator=g).double() / math.sqrt(d_model)  # r_net, no bias",
        "u = torch.randn(d_head, generator=g).double()  # r_w_bias: global content bias",
        "v = torch.randn(d_head, generator=g).double()  # r_r_bias: global position bias",
        "r_head_k = R @ W_R.T  # (k_len, d_head)",
        "",
        "# the reference's two products (its einsums, one head, no batch)",
        "AC = (q + u) @ k.T  # (q_len, k_len): (a) + (c)",
        "BD_raw = (q + v) @ r_head_k.T  # (q_len, k_len): column r holds distance k_len - 1 - r",
        "BD = _rel_shift(BD_raw)  # (q_len, k_len): distance (mem_len + i) - j; garbage where j > mem_len + i",
    ]
    if part == "shift":
        return "\n".join(lines) + "\n"
    if part == "terms":
        lines += [
            "",
            "# the four terms apart: (a) + (c) = AC and (b) + (d) = BD",
            "content = q @ k.T  # (a)",
            "content_bias = (u @ k.T).expand(q_len, k_len)  # (c): the same in every row",
            "position = _rel_shift(q @ r_head_k.T)  # (b)",
            "position_bias = _rel_shift((v @ r_head_k.T).expand(q_len, k_len).contiguous())  # (d)",
            "mask = torch.triu(torch.ones(q_len, k_len), diagonal=1 + mem_len).bool()  # dec_attn_mask",
            "# the page leaves the masked cells (key after the query) blank",
        ]
        return "\n".join(lines) + "\n"
    lines += [
        "",
        "attn_score = (AC + BD) * (1 / d_head**0.5)",
        "dec_attn_mask = torch.triu(torch.ones(q_len, k_len), diagonal=1 + mem_len).bool()  # keys after the query",
        "attn_score = attn_score.masked_fill(dec_attn_mask, -float('inf'))",
        "attn_prob = torch.softmax(attn_score, dim=1)  # (q_len, k_len): the memory figure",
    ]
    return "\n".join(lines) + "\n"


def page_snippets(s: TransformerXlSettings) -> dict[str, str]:
    """The code of each figure of the page, by the figure's export name."""
    head = dict(seq_len=s.seq_len, mem_len=s.mem_len, dim=s.dim, seed=s.seed)
    return {f"txl_{part}": txl_snippet(part=part, **head) for part in TXL_PARTS}

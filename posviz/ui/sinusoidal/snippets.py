"""PyTorch code that reproduces the sinusoidal page's figures.

Plain text generation. The snippets write the paper's formula
out (``div_term`` as in the Annotated Transformer and PyTorch's tutorial); a
test executes them and compares their tensors with the page's.
"""

from __future__ import annotations

from posviz.ui.code import SHOWN_FN
from posviz.ui.sinusoidal.settings import SinusoidalSettings

SINUSOIDAL_PARTS = ("table", "similarity", "learned")


def sinusoidal_snippet(s: SinusoidalSettings, *, part: str, stride: int = 1) -> str:
    """Code for one figure.

    Args:
        part: ``"table"`` (``pe``, (seq_len, dim), and ``shown_pe``: its rows
            at the positions drawn), ``"similarity"`` (also ``sim``: ``pe @ pe.T`` averaged over the blocks
            on those rows) or ``"learned"`` (``learned``, the seeded table, and
            ``learned_cos``, the cosine similarity of its shown rows).
        stride: the stride of the positions drawn (1: all).
    """
    if part not in SINUSOIDAL_PARTS:
        raise ValueError(f"part must be one of {SINUSOIDAL_PARTS}; got {part!r}")
    lines = ["import math", "", "import torch", "", "", SHOWN_FN, ""]
    if part == "learned":
        lines += [
            f"n, dim, seed = {s.learned_len}, {s.dim}, {s.seed}  # positions of the table, vector size",
            "g = torch.Generator().manual_seed(seed)",
            "learned = torch.randn(n, dim, generator=g) * 0.02  # nn.Embedding at init, initializer_range = 0.02",
            f"rows = learned[shown(n, {stride})]  # (shown, dim)",
            "unit = rows / rows.norm(dim=-1, keepdim=True)",
            "learned_cos = unit @ unit.T  # (shown, shown) cosine similarity: no structure",
        ]
        return "\n".join(lines) + "\n"
    lines += [
        f"seq_len, dim, base = {s.seq_len}, {s.dim}, {s.base!r}",
        "position = torch.arange(seq_len, dtype=torch.float64)[:, None]  # (seq_len, 1)",
        "div_term = torch.exp(torch.arange(0, dim, 2, dtype=torch.float64) * (-math.log(base) / dim))  # θ_k",
        "pe = torch.zeros(seq_len, dim, dtype=torch.float64)",
    ]
    if s.layout == "interleaved":
        lines += [
            "pe[:, 0::2] = torch.sin(position * div_term)  # even components: sin (the paper)",
            "pe[:, 1::2] = torch.cos(position * div_term)  # odd components: cos",
        ]
    else:
        lines += [
            "pe = torch.cat([torch.sin(position * div_term), torch.cos(position * div_term)], dim=-1)"
            "  # [sin | cos], Transformer-XL",
        ]
    lines += [f"shown_pe = pe[shown(seq_len, {stride})]  # (shown, dim): the rows drawn"]
    if part == "similarity":  # each shown position stands for the block up to the next: a block mean cannot alias
        lines += [
            f"edges = torch.cat([shown(seq_len, {stride}), torch.tensor([seq_len])])",
            "block_pe = torch.stack([pe[a:b].mean(0) for a, b in zip(edges[:-1], edges[1:])])  # (shown, dim)",
            "sim = block_pe @ block_pe.T  # (shown, shown): the mean of PE_i . PE_j over each block; j - i only",
        ]
    return "\n".join(lines) + "\n"

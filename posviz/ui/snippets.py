"""PyTorch code that reproduces what a figure shows, generated from the settings.

Plain text generation, no streamlit: a test executes every snippet and
compares its tensors with the package's.
"""

from __future__ import annotations

from dataclasses import dataclass

T5_BUCKET_FN = '''\
def relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    """Hugging Face T5Attention._relative_position_bucket."""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    relative_position_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    relative_position_if_large = torch.min(
        relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
    )
    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets
'''

SHOWN_FN = '''\
def shown(length, stride):
    """Every stride-th position and the last: the positions the figure draws."""
    pos = torch.arange(0, length, stride)
    return pos if pos[-1] == length - 1 else torch.cat([pos, torch.tensor([length - 1])])
'''


@dataclass(frozen=True)
class T5Settings:
    """Everything that determines the T5 page's tensors."""

    q_len: int = 128
    k_len: int = 128
    align: str = "start"
    num_buckets: int = 32
    max_distance: int = 128
    bidirectional: bool = True
    heads: int = 8
    scale: float = 1.0
    seed: int = 0
    head: int = 0

    @property
    def offset(self) -> int:
        return self.k_len - self.q_len if self.align == "end" else 0


def _table_lines(s: T5Settings, table: list[list[float]] | None) -> list[str]:
    lines = [
        "g = torch.Generator().manual_seed(seed)",
        "table = torch.randn(num_buckets, heads, generator=g)  # as nn.Embedding(num_buckets, heads) at init: N(0, 1)",
    ]
    if table is not None:
        rows = ",\n    ".join("[" + ", ".join(repr(float(v)) for v in row) + "]" for row in table)
        lines.append(f"table = torch.tensor([\n    {rows},\n])  # the edited or uploaded table")
    return lines


def t5_snippet(
    s: T5Settings,
    *,
    part: str,
    q_stride: int = 1,
    k_stride: int = 1,
    table: list[list[float]] | None = None,
    toy_dim: int = 32,
) -> str:
    """Code that rebuilds one of the T5 page's tensors.

    Args:
        part: ``"bucket"`` (defines ``rel_pos`` and ``bucket``), ``"bias"``
            (also ``bias``, (1, heads, q, k)) or ``"attention"`` (``weights``
            and ``weights_no_bias``, the rows and columns shown).
        q_stride, k_stride: the strides of the figure's positions (1: all).
        table: the bias table when it is not the seeded one.
    """
    lines = ["import math", "", "import torch", "", "", T5_BUCKET_FN, "", SHOWN_FN, ""]
    lines += [
        f"q_len, k_len, offset = {s.q_len}, {s.k_len}, {s.offset}  # queries at the {s.align} of the keys",
        f"num_buckets, max_distance, bidirectional = {s.num_buckets}, {s.max_distance}, {s.bidirectional}",
        f"heads, scale, seed = {s.heads}, {s.scale!r}, {s.seed}",
        "",
    ]
    lines += _table_lines(s, table)
    lines += [
        f"q_pos = shown(q_len, {q_stride}) + offset  # query positions i",
        f"k_pos = shown(k_len, {k_stride})  # key positions j",
        "rel_pos = k_pos[None, :] - q_pos[:, None]  # (q, k): r = j - i",
        "bucket = relative_position_bucket(rel_pos, bidirectional, num_buckets, max_distance)  # (q, k)",
    ]
    if part == "bias":
        lines.append("bias = table[bucket].permute(2, 0, 1).unsqueeze(0) * scale  # (1, heads, q, k)")
    if part == "attention":
        lines += [
            "",
            f"d, head = {toy_dim}, {s.head}",
            "q = torch.randn(q_len, d, generator=g)  # toy queries, drawn after the table",
            "k = torch.randn(k_len, d, generator=g)  # toy keys",
            "k_all = torch.arange(k_len)",
            "r_all = k_all[None, :] - q_pos[:, None]  # (q shown, every key)",
            "b = table[relative_position_bucket(r_all, bidirectional, num_buckets, max_distance), head] * scale",
            "logits = q[q_pos - offset] @ k.T / math.sqrt(d)  # (q shown, k_len)",
        ]
        if not s.bidirectional:
            lines += [
                "future = k_all[None, :] > q_pos[:, None]  # the decoder cannot see these",
                "logits = logits.masked_fill(future, float('-inf'))",
            ]
        lines += [
            "weights_no_bias = torch.softmax(logits, dim=-1)[:, k_pos]",
            "weights = torch.softmax(logits + b, dim=-1)[:, k_pos]  # (q shown, k shown)",
        ]
    return "\n".join(lines) + "\n"

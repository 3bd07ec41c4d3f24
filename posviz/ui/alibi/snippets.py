"""PyTorch code that reproduces the ALiBi page's figures.

Plain text generation. The slopes are the official
``get_slopes`` (ofirpress/attention_with_linear_biases), pasted; a test runs
every snippet and compares with the page.
"""

from __future__ import annotations

from posviz.figures.axes import Axes
from posviz.ui.alibi.settings import AlibiSettings
from posviz.ui.code import GET_SLOPES, SHOWN_FN, shown_args

ALIBI_PARTS = ("slopes", "bias", "receptive")


def alibi_snippet(
    s: AlibiSettings, *, part: str, axes: Axes | None = None, heads_shown: list[int] | None = None
) -> str:
    """Code for one figure.

    Args:
        part: ``"slopes"`` (``slopes``, (heads,)), ``"bias"`` (also ``bias``,
            (heads shown, queries shown, keys shown)) or ``"receptive"``
            (``weights``, (heads shown, seq_len): softmax over distances).
        axes: the queries and keys drawn (a strided sample or a zoom window; default: every position).
        heads_shown: the 0-based heads drawn (default: all).
    """
    if part not in ALIBI_PARTS:
        raise ValueError(f"part must be one of {ALIBI_PARTS}; got {part!r}")
    shown_heads = list(range(s.heads)) if heads_shown is None else [int(h) for h in heads_shown]
    lines = ["import math", "", "import torch", "", "", GET_SLOPES, "", SHOWN_FN, ""]
    lines += [
        f"heads, seq_len = {s.heads}, {s.seq_len}",
        "slopes = torch.tensor(get_slopes(heads), dtype=torch.float64)  # (heads,)",
    ]
    if part == "slopes":
        return "\n".join(lines) + "\n"
    lines.append(f"h = torch.tensor({shown_heads})  # the heads drawn")
    if part == "bias":
        q_args = shown_args(axes.q_stride, axes.q_from, axes.q_count) if axes else shown_args(1)
        k_args = shown_args(axes.k_stride, axes.k_from, axes.k_count) if axes else shown_args(1)
        lines += [
            f"q_pos = shown(seq_len, {q_args})  # query positions i drawn",
            f"k_pos = shown(seq_len, {k_args})  # key positions j drawn",
            "dist = q_pos[:, None] - k_pos[None, :]  # (i, j): i - j",
            "bias = -slopes[h, None, None] * " + ("dist" if s.causal else "dist.abs()") + "  # (heads shown, i, j)",
        ]
        if s.causal:
            lines.append("# future keys (j > i) are masked before the softmax; the page leaves them blank")
        return "\n".join(lines) + "\n"
    lines += [
        "d = torch.arange(seq_len, dtype=torch.float64)  # distances the last query sees: 0 .. seq_len - 1",
        "weights = torch.softmax(-slopes[h, None] * d[None, :], dim=-1)  # (heads shown, seq_len), equal content",
    ]
    return "\n".join(lines) + "\n"

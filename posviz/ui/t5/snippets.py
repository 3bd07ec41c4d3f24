"""PyTorch code that reproduces what a figure shows, generated from the settings.

Plain text generation, no streamlit: a test executes every snippet and
compares its tensors with the package's.
"""

from __future__ import annotations

from posviz.figures.axes import Axes
from posviz.i18n import _
from posviz.ui.code import SHOWN_FN, T5_BUCKET_FN, shown_lines
from posviz.ui.t5.settings import T5Settings

# The variable that holds each step (1-based, as PIPELINE_STEPS) of the "steps" snippet.
T5_STEP_VARIABLES = ("n", "is_small", "val_if_large_float", "val_if_large_long", "val_if_large", "within")

T5_STEPS = """\

# the bucket pipeline step by step, every intermediate named (steps 1-6 of the figures)
half = num_buckets // 2 if bidirectional else num_buckets  # buckets per direction
if bidirectional:
    direction_offset = (rel_pos > 0).long() * half  # (q, k): future keys (r > 0) use the upper half
    n = rel_pos.abs()  # (q, k) step 1: the distance |r|
else:
    direction_offset = torch.zeros_like(rel_pos)  # (q, k): one direction only
    n = -torch.min(rel_pos, torch.zeros_like(rel_pos))  # (q, k) step 1: max(-r, 0), future keys -> 0
max_exact = half // 2  # distances below it get a bucket each
is_small = n < max_exact  # (q, k) bool, step 2
# float32 as in the reference; log(0) = -inf where n == 0
log_ratio = torch.log(n.float() / max_exact) / math.log(max_distance / max_exact) * (half - max_exact)  # (q, k)
val_if_large_float = max_exact + log_ratio  # (q, k) float32, step 3: -inf where n == 0
val_if_large_long = max_exact + log_ratio.long()  # (q, k) int64, step 4: truncate, then add (as Hugging Face)
# (-inf).long() is int64 min on x86: where n == 0 this holds int64 min + max_exact; torch.where discards it
val_if_large = torch.min(val_if_large_long, torch.full_like(val_if_large_long, half - 1))  # (q, k) step 5
within = torch.where(is_small, n, val_if_large)  # (q, k) step 6: the bucket within its half, 0 .. half - 1
bucket = within + direction_offset  # (q, k): the final bucket, 0 .. num_buckets - 1
"""


# The comment on the lengths, written whole for each alignment so the catalogue holds it (snippet comments translate).
ALIGN_COMMENTS = {"start": "# queries at the start of the keys", "end": "# queries at the end of the keys"}


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
    axes: Axes | None = None,
    table: list[list[float]] | None = None,
    toy_dim: int = 32,
    r_range: tuple[int, int] | None = None,
) -> str:
    """Code that rebuilds one of the T5 page's tensors.

    Args:
        part: ``"bucket"`` (defines ``rel_pos`` and ``bucket``), ``"steps"``
            (the same, walking the pipeline without the Hugging Face function:
            every intermediate named, the steps in ``T5_STEP_VARIABLES``),
            ``"bias"`` (also ``bias``, (1, heads, q, k)) or ``"attention"``
            (``weights`` and ``weights_no_bias``, the rows and columns shown;
            toy queries and keys from their own generator, ``seed + 1``),
            ``"pitfall"`` (``correct`` and ``seeds``: the chosen head reshaped
            by ``permute(2, 0, 1)`` and by ``transpose(0, 2)``) or
            ``"profile"`` (``profile``: the bucket of every ``r`` in ``r_range``).
        axes: the positions the figure draws, strided and zoomed (None: all).
        table: the bias table when it is not the seeded one.
        r_range: first and last ``r`` of the profile.
    """
    steps = part == "steps"
    lines = ["import math", "", "import torch", "", ""] + ([] if steps else [T5_BUCKET_FN, ""]) + [SHOWN_FN, ""]
    lines += [
        f"q_len, k_len, offset = {s.q_len}, {s.k_len}, {s.offset}  " + ALIGN_COMMENTS[s.align],
        f"num_buckets, max_distance, bidirectional = {s.num_buckets}, {s.max_distance}, {s.bidirectional}",
        f"heads, scale, seed = {s.heads}, {s.scale!r}, {s.seed}",
        "",
    ]
    if part == "profile":
        lo, hi = r_range or (-s.max_distance, s.max_distance)
        lines += [
            f"r = torch.arange({lo}, {hi + 1})  # relative positions r = j - i",
            "profile = relative_position_bucket(r, bidirectional, num_buckets, max_distance)  # bucket of each r",
        ]
        return "\n".join(lines) + "\n"
    lines += [] if steps else _table_lines(s, table)
    lines += shown_lines(axes)
    lines += [
        "rel_pos = k_pos[None, :] - q_pos[:, None]  # (q, k): r = j - i",
    ]
    if steps:
        return "\n".join(lines) + "\n" + T5_STEPS
    lines.append("bucket = relative_position_bucket(rel_pos, bidirectional, num_buckets, max_distance)  # (q, k)")
    if part == "bias":
        lines.append("bias = table[bucket].permute(2, 0, 1).unsqueeze(0) * scale  # (1, heads, q, k)")
    if part == "pitfall":
        lines += [
            f"head = {s.head}",
            "values = table[bucket]  # (q, k, heads)",
            "correct = values.permute(2, 0, 1)[head] * scale  # (q, k)",
            "seeds = values.transpose(0, 2)[head] * scale  # (k, q): what gets added at (i, j) when q_len == k_len",
        ]
    if part == "attention":
        lines += [
            "",
            f"d, head = {toy_dim}, {s.head}",
            "# toy queries and keys: their own generator (seed + 1), independent of the table",
            "gq = torch.Generator().manual_seed(seed + 1)",
            "q = torch.randn(q_len, d, generator=gq)  # (q_len, d) toy queries",
            "k = torch.randn(k_len, d, generator=gq)  # (k_len, d) toy keys",
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


def row_line(mid: int, query: int) -> str:
    """The line after the attention snippet that picks the drawn query's row (its comment in the run's language)."""
    return f"row = {mid}  # " + _("query i = {query}: weights_no_bias[row], weights[row]").format(query=query) + "\n"

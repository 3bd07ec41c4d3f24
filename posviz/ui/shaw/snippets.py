"""PyTorch code shown under the Shaw figures; tests run it and compare with the page."""

from __future__ import annotations

from posviz.figures.axes import Axes
from posviz.ui.code import SHOWN_FN, shown_lines
from posviz.ui.shaw.settings import ShawSettings

SHAW_PARTS = ("index", "table", "row", "toy")


# The comment on the lengths, written whole for each alignment so the catalogue holds it (snippet comments translate).
ALIGN_COMMENTS = {"start": "# queries at the start of the keys", "end": "# queries at the end of the keys"}


def shaw_snippet(
    s: ShawSettings,
    *,
    part: str,
    axes: Axes | None = None,
    k_stride: int = 1,
) -> str:
    """Code that rebuilds one of the Shaw page's tensors, the tensor2tensor way.

    Args:
        part: ``"index"`` (``rel`` and ``index`` on the shown cells), ``"table"``
            (``table_k``, ``table_v``), ``"row"`` (``R_row``, (keys shown, dim):
            ``R[i]`` for the chosen query) or ``"toy"`` (``content``, ``relative``,
            ``weights_no_rel``, ``weights`` on the shown cells and ``value_term``).
        axes: the positions the figure draws, strided and zoomed (None: all).
        k_stride: ``"row"``: the stride of the row figure's keys (1: all).
    """
    if part not in SHAW_PARTS:
        raise ValueError(f"part must be one of {SHAW_PARTS}; got {part!r}")
    toy = part == "toy"
    q_len, k_len = (s.toy_q_len, s.toy_k_len) if toy else (s.q_len, s.k_len)
    offset = k_len - q_len if s.align == "end" else 0
    lines = ["import torch", "", "", SHOWN_FN, ""]
    lines += [
        f"q_len, k_len, offset = {q_len}, {k_len}, {offset}  " + ALIGN_COMMENTS[s.align],
        f"clip, dim, seed = {s.clip}, {s.dim}, {s.seed}  # K: the table has 2K + 1 rows",
        "",
        "g = torch.Generator().manual_seed(seed)",
        "table_k = torch.nn.init.xavier_normal_(torch.empty(2 * clip + 1, dim), generator=g)  # a^K",
        "table_v = torch.nn.init.xavier_normal_(torch.empty(2 * clip + 1, dim), generator=g)  # a^V"
        if s.separate
        else "table_v = table_k  # one table shared by keys and values",
    ]
    if part == "table":
        return "\n".join(lines) + "\n"
    if part == "row":
        lines += [
            f"i = {s.shown_row} + offset  # the chosen query's position",
            f"k_pos = shown(k_len, {k_stride})  # key positions j",
            "index = (k_pos - i).clamp(-clip, clip) + clip  # (keys shown,) table rows",
            "R_row = table_k[index]  # (keys shown, dim): R[i] = table[index[i]]",
        ]
        return "\n".join(lines) + "\n"
    lines += shown_lines(axes)
    lines += [
        "rel = k_pos[None, :] - q_pos[:, None]  # (q, k): r = j - i, as tensor2tensor (key minus query)",
        "index = rel.clamp(-clip, clip) + clip  # (q, k): the table row of each pair",
    ]
    if part == "index":
        return "\n".join(lines) + "\n"
    lines += [
        "",
        "# toy content from its own generator (seed + 1), independent of the tables",
        "gq = torch.Generator().manual_seed(seed + 1)",
        "q = torch.randn(q_len, dim, generator=gq)",
        "k = torch.randn(k_len, dim, generator=gq)",
        "v = torch.randn(k_len, dim, generator=gq)",
        "q_rows = q[q_pos - offset]  # (q shown, dim): only the rows drawn",
        "index_all = (torch.arange(k_len)[None, :] - q_pos[:, None]).clamp(-clip, clip) + clip  # (q shown, k_len)",
        "R = table_k[index_all]  # (q shown, k_len, dim): the O(L^2 d) tensor (the page gathers instead)",
        "content_all = q_rows @ k.T  # (q shown, k_len): Q K^T",
        "relative_all = torch.einsum('qd,qkd->qk', q_rows, R)  # Q R^T",
        "weights_all = torch.softmax((content_all + relative_all) / dim**0.5, dim=-1)",
        "content, relative = content_all[:, k_pos], relative_all[:, k_pos]",
        "weights_no_rel = torch.softmax(content_all / dim**0.5, dim=-1)[:, k_pos]",
        "weights = weights_all[:, k_pos]  # (q shown, k shown)",
        "value_term = torch.einsum('qk,qkd->qd', weights_all, table_v[index_all])  # sum_j w_ij a^V[index_ij]",
    ]
    return "\n".join(lines) + "\n"

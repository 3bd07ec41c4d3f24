"""PyTorch code that rebuilds the CoPE page's tensors, generated from the settings.

Plain text generation, no streamlit: a test executes every snippet and
compares its tensors with the page's.
"""

from __future__ import annotations

from posviz.encodings.positions import display_stride
from posviz.encodings.tokens import SENTENCE_ENDS, TOKEN_PATTERN
from posviz.figures.cope import ATTN_POINTS, COPE_MAX_TOKENS, MAIN_POINTS
from posviz.figures.cope_pitfall import PITFALL_POINTS
from posviz.ui.code import SHOWN_FN
from posviz.ui.cope.settings import CopeSettings

_GATES = {
    "count-tokens": [
        "gates = torch.ones(len(rows), n).masked_fill(future, 0.0)  # (rows, n): every earlier token counts",
    ],
    "count-sentences": [
        f"fires = torch.tensor([float(t in {''.join(sorted(SENTENCE_ENDS))!r}) for t in tokens])  # (n,) sentence ends",
        "gates = fires.expand(len(rows), n).masked_fill(future, 0.0)  # (rows, n): only sentence ends count",
    ],
    "custom": [
        "gates = fires.expand(len(rows), n).masked_fill(future, 0.0)  # (rows, n): the table's gate of each key",
    ],
    "random": [
        "logits = q[rows] @ k.T / temperature  # (rows, n)",
        "# the mask goes BEFORE the gates: sigmoid(-inf) = 0 exactly",
        'gates = torch.sigmoid(logits.masked_fill(future, float("-inf")))  # (rows, n)',
    ],
}

_UNMASKED = {
    "count-tokens": "gates_unmasked = torch.ones(len(rows), n)  # (rows, n): the future counts too",
    "count-sentences": "gates_unmasked = fires.expand(len(rows), n)  # (rows, n): future sentence ends too",
    "custom": "gates_unmasked = fires.expand(len(rows), n)  # (rows, n): future keys' gates too",
    "random": "gates_unmasked = torch.sigmoid(q[rows] @ k.T / temperature)  # (rows, n): no mask yet",
}

_POSITIONS = """\
# the paper's CoPE: reverse cumulative sum, clamp, interpolate
raw = gates.flip(-1).cumsum(dim=-1).flip(-1)  # (rows, n): p_ij = sum over t = j .. i of g_it
pos = raw.clamp(max=npos_max - 1)  # (rows, n)
logits_int = q[rows] @ pos_emb  # (rows, npos_max): z_i[p] = q_i . e[p] for integer p
pos_ceil, pos_floor = pos.ceil().long(), pos.floor().long()
w = pos - pos_floor  # weight of the upper integer position
pos_logits = logits_int.gather(-1, pos_ceil) * w + logits_int.gather(-1, pos_floor) * (1 - w)  # (rows, n)
"""

_ATTENTION = """\
# toy attention: the paper's SelfAttn adds the position term to q . k / sqrt(d)
content = q[rows] @ k.T / math.sqrt(dim)  # (rows, n)
distance = (rows[:, None] - torch.arange(n)[None, :]).clamp(0, npos_max - 1)  # (rows, n): i - j
relative = logits_int.gather(-1, distance)  # (rows, n): q_i . e[i - j], the relative baseline


def attend(x):
    return torch.softmax(x.masked_fill(future, float("-inf")), dim=-1)


weights_none = attend(content)[:, cols]  # (rows, cols shown)
weights_relative = attend(content + relative)[:, cols]
weights_cope = attend(content + pos_logits)[:, cols]
"""


POINTS = {"matrices": MAIN_POINTS, "attention": ATTN_POINTS, "pitfall": PITFALL_POINTS}  # shown rows per part


def cope_snippet(s: CopeSettings, *, part: str, n: int = 1, custom: list[float] | None = None) -> str:
    """Code that rebuilds one of the CoPE page's tensors.

    Args:
        part: ``"matrices"`` (``gates``, ``pos``, ``pos_logits`` on the shown
            rows and all keys; the figure shows ``[:, cols]``),
            ``"attention"`` (also ``weights_none``, ``weights_relative``,
            ``weights_cope``, (rows, cols)), ``"row"`` (the inspected query
            alone: ``pos[0]``, ``logits_int[0]`` and the pair ``(query, key)``)
            or ``"pitfall"`` (also ``pos_wrong``: the mask applied after the gates).
        n: the text's tokens (as the page reads them): the shown rows and columns are those of its figure.
        custom: the table's gate per token, in custom mode.
    """
    lines = ["import math", "import re", "", "import torch", "", "", SHOWN_FN, ""]
    lines += [
        f"text = {s.text!r}",
        f"tokens = re.findall({TOKEN_PATTERN!r}, text)[:{COPE_MAX_TOKENS}]  # words and punctuation marks",
        "n = len(tokens)",
        f"npos_max, dim, seed, temperature = {s.npos_max}, {s.dim}, {s.seed}, {s.temperature!r}",
        "",
        "g = torch.Generator().manual_seed(seed)",
        "q = torch.randn(n, dim, generator=g)  # (n, dim) toy queries",
        "k = torch.randn(n, dim, generator=g)  # (n, dim) toy keys",
        "# column p is e[p]; scaled so that z_i[p] = q_i . e[p] has about unit variance",
        "pos_emb = torch.randn(dim, npos_max, generator=torch.Generator().manual_seed(seed + 1)) / math.sqrt(dim)",
        "",
    ]
    if s.mode == "custom":
        values = ", ".join(repr(float(v)) for v in (custom or []))
        lines.append(f"fires = torch.tensor([{values}])  # (n,) the gate table")
    if part == "row":
        lines += [f"query, key = {s.query}, {s.key}", "rows = torch.tensor([query])  # the inspected query"]
    else:
        stride = display_stride(n, POINTS[part])
        lines += [f"rows = shown(n, {stride})  # the query rows drawn", f"cols = shown(n, {stride})  # the keys drawn"]
    lines.append("future = torch.arange(n)[None, :] > rows[:, None]  # (rows, n): keys j > i")
    lines += _GATES[s.mode]
    code = "\n".join(lines) + "\n" + _POSITIONS
    if part == "attention":
        code += _ATTENTION
    if part == "row":
        code += (
            "p = pos[0, key]  # p_ij of the pair\n"
            "floor, ceil = int(p.floor()), int(p.ceil())\n"
            "z_pair = (p - floor) * logits_int[0, ceil] + (1 - (p - floor)) * logits_int[0, floor]"
            "  # = pos_logits[0, key]\n"
        )
    if part == "pitfall":
        code += (
            "\n# the pitfall: gates first, mask afterwards\n"
            + _UNMASKED[s.mode]
            + "\npos_wrong = gates_unmasked.flip(-1).cumsum(dim=-1).flip(-1).clamp(max=npos_max - 1)\n"
            "pos_wrong = pos_wrong.masked_fill(future, 0.0)  # the mask, applied too late\n"
            "leak = pos_wrong - pos  # (rows, n): row i shifted by its future gates\n"
        )
    return code

"""PyTorch code that reproduces the stick-breaking page's figures.

Plain text generation, no streamlit. ``stickbreaking`` is the lines of shawntan/stickbreaking-attention's
``sb_ref.py``, pasted; a test runs every snippet and compares with the page.
"""

from __future__ import annotations

from posviz.ui.stickbreaking.settings import StickbreakingSettings

SB_PARTS = ("weights", "row", "recency")

SB_REF = '''\
def stickbreaking(q, k, v, mask, cum_weight):
    """sb_ref.py's reference: log A_ij = logsigmoid(z_ij) + sum_(j<k<i) logsigmoid(-z_ik), and the stick left."""
    logits = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    original_dtype = logits.dtype
    log_z = F.logsigmoid(logits).masked_fill(mask, -1e5).to(original_dtype)
    log_beta = F.logsigmoid(-logits).masked_fill(mask, 0).to(original_dtype)
    re_cum_log_beta = torch.einsum(
        "bhij,jk->bhik", log_beta, cum_weight.to(log_beta))
    log_att = log_z + re_cum_log_beta
    att = log_att.exp()
    return att @ v, 1 - att.sum(dim=-1)
'''

HEADER = ["import math", "", "import torch", "import torch.nn.functional as F", "", "", SB_REF, ""]


def _masks(length: str) -> list[str]:
    return [
        f"mask = torch.ones({length}, {length}).triu(0).bool()  # keys j >= i take no share (attend_current=False)",
        f"cum_weight = torch.ones({length}, {length}).tril(-1)  # sums over the keys between j and i",
    ]


def stickbreaking_snippet(*, part: str, seq_len: int = 24, dim: int = 16, seed: int = 0, query: int = 1,
                          scores: tuple[float, ...] = (), recency_len: int = 33) -> str:  # fmt: skip
    """Code for one figure.

    Args:
        part: ``"weights"`` (``A`` and ``softmax``, (L, L)), ``"row"`` (``shares``, (query,), and ``left``,
            a float) or ``"recency"`` (``curves``: score -> (recency_len - 1,) the last query's weight of the
            key 1, 2, ... positions back).
        seq_len, dim, seed: the toy queries and keys; query: the query of ``"row"``.
        scores, recency_len: the equal scores of ``"recency"`` and its sequence length.
    """
    if part not in SB_PARTS:
        raise ValueError(f"part must be one of {SB_PARTS}; got {part!r}")
    lines = list(HEADER)
    if part == "recency":
        lines += [
            f"L = {recency_len}",
            *_masks("L"),
            "curves = {}",
            f"for score in {list(scores)}:",
            "    # d = 1: every scaled score q_i . k_j / sqrt(d) equals `score`",
            "    q = torch.full((1, 1, L, 1), score, dtype=torch.float64)",
            "    k = torch.ones(1, 1, L, 1, dtype=torch.float64)",
            "    v = torch.eye(L, dtype=torch.float64)[None, None]  # one-hot values: output row i is A_i itself",
            "    A, rem = stickbreaking(q, k, v, mask, cum_weight)",
            "    curves[score] = A[0, 0, -1, :-1].flip(0)  # the last query's weights, 1, 2, ... keys back",
        ]
        return "\n".join(lines) + "\n"
    lines += [
        f"L, d = {seq_len}, {dim}",
        f"g = torch.Generator().manual_seed({seed})",
        "q = torch.randn(L, d, generator=g).double()  # toy queries (L, d)",
        "k = torch.randn(L, d, generator=g).double()  # toy keys (L, d)",
        *_masks("L"),
        "v = torch.eye(L, dtype=torch.float64)  # one-hot values: output row i is A_i itself",
        "A, rem = stickbreaking(q[None, None], k[None, None], v[None, None], mask, cum_weight)",
        "A, rem = A[0, 0], rem[0, 0]  # (L, L) weights, keys j < i only; (L,) what no key took",
    ]
    if part == "weights":
        lines += [
            "",
            "# causal softmax of the same scores, keys j <= i",
            "z = q @ k.T / math.sqrt(d)",
            "softmax = torch.softmax(z.masked_fill(torch.ones(L, L).triu(1).bool(), -math.inf), dim=-1)  # (L, L)",
        ]
        return "\n".join(lines) + "\n"
    lines += [
        f"i = {query}  # the query whose stick is drawn",
        "shares = A[i, :i]  # (i,) the share each earlier key took",
        "left = float(rem[i])  # what is left over; the reference's tests give it to the query's own value",
    ]
    return "\n".join(lines) + "\n"


def page_snippets(s: StickbreakingSettings, *, scores: tuple[float, ...], recency_len: int) -> dict[str, str]:
    """The code of each figure of the page, by the figure's export name; ``scores`` and ``recency_len``: the
    recency figure's equal scores and length."""
    toy = dict(seq_len=s.seq_len, dim=s.dim, seed=s.seed)
    return {
        "stickbreaking_weights": stickbreaking_snippet(part="weights", **toy),
        "stickbreaking_row": stickbreaking_snippet(part="row", query=min(max(s.query, 1), s.seq_len - 1), **toy),
        "stickbreaking_recency": stickbreaking_snippet(part="recency", scores=scores, recency_len=recency_len),
    }

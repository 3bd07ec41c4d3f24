"""PyTorch code that reproduces the xPos page's figures.

Plain text generation, no streamlit. The check against torchscale's ``XPOS`` pastes its module
(``torchscale/component/xpos_relative_position.py``, MIT); a test runs every snippet and compares with the page.
"""

from __future__ import annotations

from posviz.ui.code import CURVE_FN
from posviz.ui.xpos.settings import XposSettings

XPOS_PARTS = ("decay", "scores")

# The distances (or positions) a curve figure draws: every one up to `dense`, then log-spaced.

TORCHSCALE_XPOS = '''\
# torchscale/component/xpos_relative_position.py (Microsoft, MIT licence), pasted
def fixed_pos_embedding(x):
    seq_len, dim = x.shape
    inv_freq = 1.0 / (10000 ** (torch.arange(0, dim) / dim))
    sinusoid_inp = (
        torch.einsum("i , j -> i j", torch.arange(0, seq_len, dtype=torch.float), inv_freq).to(x)
    )
    return torch.sin(sinusoid_inp), torch.cos(sinusoid_inp)

def rotate_every_two(x):
    x1 = x[:, :, ::2]
    x2 = x[:, :, 1::2]
    x = torch.stack((-x2, x1), dim=-1)
    return x.flatten(-2)  # in einsum notation: rearrange(x, '... d j -> ... (d j)')\\

def duplicate_interleave(m):
    """
    A simple version of `torch.repeat_interleave` for duplicating a matrix while interleaving the copy.
    """
    dim0 = m.shape[0]
    m = m.view(-1, 1)  # flatten the matrix
    m = m.repeat(1, 2)  # repeat all elements into the 2nd dimension
    m = m.view(dim0, -1)  # reshape into a matrix, interleaving the copy
    return m

def apply_rotary_pos_emb(x, sin, cos, scale=1):
    sin, cos = map(lambda t: duplicate_interleave(t * scale), (sin, cos))
    # einsum notation for lambda t: repeat(t[offset:x.shape[1]+offset,:], "n d -> () n () (d j)", j=2)
    return (x * cos) + (rotate_every_two(x) * sin)


class XPOS(nn.Module):
    def __init__(
        self, head_dim, scale_base=512
    ):
        super().__init__()
        self.head_dim = head_dim
        self.scale_base = scale_base
        self.register_buffer(
            "scale", (torch.arange(0, head_dim, 2) + 0.4 * head_dim) / (1.4 * head_dim)
        )

    def forward(self, x, offset=0, downscale=False):
        length = x.shape[1]
        min_pos = -(length + offset) // 2
        max_pos = length + offset + min_pos
        scale = self.scale ** torch.arange(min_pos, max_pos, 1).to(self.scale).div(self.scale_base)[:, None]
        sin, cos = fixed_pos_embedding(scale)

        if scale.shape[0] > length:
            scale = scale[-length:]
            sin = sin[-length:]
            cos = cos[-length:]

        if downscale:
            scale = 1 / scale

        x = apply_rotary_pos_emb(x, sin, cos, scale)
        return x
'''

CHECK_LEN = 64  # torchscale's check runs on the first positions only: its float32 scale under/overflows far out


def xpos_snippet(*, part: str, dim: int, scale_base: float, seq_len: int, seed: int = 0,
                 pairs: list[int] | None = None) -> str:  # fmt: skip
    """Code for one figure.

    Args:
        part: ``"decay"`` (``factors``, (r, pairs shown): ``zeta_k ** (r / scale_base)``) or ``"scores"``
            (``rope`` and ``xpos``, (r,): one query and one key scored at each distance ``r``).
        pairs: the pairs ``"decay"`` draws (default: all).
    """
    if part not in XPOS_PARTS:
        raise ValueError(f"part must be one of {XPOS_PARTS}; got {part!r}")
    shown = list(range(dim // 2)) if pairs is None else [int(p) for p in pairs]
    lines = ["import math", "", "import torch"]
    lines += ["from torch import nn"] if part == "scores" else []
    lines += ["", "", CURVE_FN, ""]
    lines += [
        f"dim, scale_base, seq_len = {dim}, {float(scale_base)!r}, {seq_len}",
        "r = curve_positions(max(seq_len - 1, 1), dense=128, points=400)  # the distances n - m drawn",
        "# each pair's zeta_k: torchscale's `scale` buffer, in float64",
        "zeta = (torch.arange(0, dim, 2, dtype=torch.float64) + 0.4 * dim) / (1.4 * dim)  # (dim/2,)",
    ]
    if part == "decay":
        lines += [
            f"pairs = torch.tensor({shown})  # the pairs drawn",
            "factors = zeta[pairs] ** (r.double()[:, None] / scale_base)  # (r, pairs): the factor on pair k's score",
        ]
        return "\n".join(lines) + "\n"
    lines.insert(6, TORCHSCALE_XPOS + "\n")
    lines += [
        "theta = 10000.0 ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)  # (dim/2,) RoPE's speeds",
        "",
        f"g = torch.Generator().manual_seed({seed})",
        "q, k = torch.randn(dim, generator=g), torch.randn(dim, generator=g)  # one query, one key",
        "q1, q2, k1, k2 = q[0::2].double(), q[1::2].double(), k[0::2].double(), k[1::2].double()  # interleaved pairs",
        "# pair k of (R_n q) . (R_m k) depends on r = n - m only",
        "angles = r.double()[:, None] * theta[None, :]  # (r, dim/2)",
        "per_pair = torch.cos(angles) * (q1 * k1 + q2 * k2) + torch.sin(angles) * (q1 * k2 - q2 * k1)  # (r, dim/2)",
        "rope = per_pair.sum(-1)  # (r,) RoPE alone",
        "xpos = (per_pair * zeta ** (r.double()[:, None] / scale_base)).sum(-1)  # (r,) each pair decayed",
        "",
        "# the same scores from torchscale's XPOS, on a query at position n and keys 0 .. n;",
        "# its vectors are centred differently, the scores agree",
        f"n = min(seq_len, {CHECK_LEN}) - 1",
        "xp = XPOS(dim, scale_base=scale_base)",
        "keys = xp(k.expand(1, n + 1, dim), downscale=True)  # (1, n + 1, dim), offset 0",
        "query = xp(q.expand(1, 1, dim), offset=n)  # (1, 1, dim), at position n",
        "check = (query[0, 0] @ keys[0].T).flip(0)  # (n + 1,) distance 0 .. n",
        "torch.testing.assert_close(check.double(), xpos[: n + 1], rtol=1e-4, atol=1e-4)",
    ]
    return "\n".join(lines) + "\n"


def page_snippets(s: XposSettings, *, pairs: list[int]) -> dict[str, str]:
    """The code of each figure of the page, by the figure's export name; ``pairs``: the pairs the decay draws."""
    common = dict(dim=s.dim, scale_base=s.scale_base, seq_len=s.seq_len)
    return {
        "xpos_decay": xpos_snippet(part="decay", pairs=pairs, **common),
        "xpos_scores": xpos_snippet(part="scores", seed=s.seed, **common),
    }

"""PyTorch code that reproduces the FIRE page's figures.

Plain text generation, no streamlit. The normalised distance is the lines of the ``FIRE`` module of
mcleish7/arithmetic (``cramming/architectures/embeddings.py``), pasted; a test runs every snippet and
compares with the page.
"""

from __future__ import annotations

from posviz.ui.code import CURVE_FN
from posviz.ui.fire.settings import FireSettings

# The distances (or positions) a curve figure draws: every one up to `dense`, then log-spaced.


FIRE_PARTS = ("interpolation", "normalized", "mlp")

DISPLAY_FN = '''\
def display_positions(length, max_points):
    """At most max_points evenly strided positions of 0 .. length - 1, the last one always included."""
    if length <= max_points:
        return torch.arange(length)
    stride = -(-(length - 1) // (max_points - 1))
    while -(-length // stride) + ((length - 1) % stride != 0) > max_points:
        stride += 1
    pos = torch.arange(0, length, stride)
    return pos if pos[-1] == length - 1 else torch.cat([pos, torch.tensor([length - 1])])
'''

FIRE_LINES = """\
relative_distances = positions[:, None] - positions[None, :]
threshold = torch.abs(L_multiplier * init_L)
position_normalizer = torch.max(positions, threshold)[:, None]
relative_distances = torch.log(torch.abs(c * relative_distances) + 1)
position_normalizer = torch.log(torch.abs(c * position_normalizer) + 1)
normalized_distances = relative_distances / (position_normalizer + eps)
"""


def fire_snippet(*, part: str, c: float = 0.1, threshold: float = 512.0, seq_len: int = 8192, heads: int = 4,
                 seed: int = 0, distances: tuple[int, ...] = (16, 64, 256, 1024), grid_points: int = 64,
                 mlp_points: int = 101) -> str:  # fmt: skip
    """Code for one figure.

    Args:
        part: ``"interpolation"`` (``curves``: distance -> ``(query positions, u)``), ``"normalized"``
            (``normalized_distances``, (n, n) on the ``positions`` drawn; keys after the query left blank) or
            ``"mlp"`` (``bias``, (heads, mlp_points) at ``u``).
        distances: the distances followed as the query moves on; grid_points: the heatmap's positions per axis.
    """
    if part not in FIRE_PARTS:
        raise ValueError(f"part must be one of {FIRE_PARTS}; got {part!r}")
    if part == "mlp":
        lines = ["import torch", "", f"heads, width = {heads}, 32"]
        lines += [
            "# illustrative weights, drawn as torch.nn.Linear initialises them (uniform in +-1/sqrt(fan_in))",
            f"g = torch.Generator().manual_seed({seed})",
            "",
            "",
            "def uniform(*shape, fan_in):",
            "    return (2 * torch.rand(*shape, generator=g, dtype=torch.float64) - 1) / fan_in**0.5",
            "",
            "",
            "linear1, linear2 = torch.nn.Linear(1, width), torch.nn.Linear(width, heads)",
            "mlp = torch.nn.Sequential(linear1, torch.nn.ReLU(), linear2).double()  # FIRE's MLP",
            "with torch.no_grad():",
            "    mlp[0].weight.copy_(uniform(width, 1, fan_in=1))",
            "    mlp[0].bias.copy_(uniform(width, fan_in=1))",
            "    mlp[2].weight.copy_(uniform(heads, width, fan_in=width))",
            "    mlp[2].bias.copy_(uniform(heads, fan_in=width))",
            "",
            f"u = torch.linspace(0, 1, {mlp_points}, dtype=torch.float64)  # the normalised distances drawn",
            "with torch.no_grad():",
            "    bias = mlp(u[:, None]).T  # (heads, points): the bias each head adds at u",
        ]
        return "\n".join(lines) + "\n"
    lines = ["import math", "", "import torch", "", ""]
    lines += [CURVE_FN, ""] if part == "interpolation" else [DISPLAY_FN, ""]
    lines += [
        f"c = torch.tensor({float(c)!r}, dtype=torch.float64)  # learned scale inside psi (init 0.1)",
        "init_L = torch.tensor(512.0, dtype=torch.float64)  # frozen",
        f"L_multiplier = torch.tensor({float(threshold) / 512.0!r}, dtype=torch.float64)  # learned (init 1)",
        "eps = 1e-6",
    ]
    if part == "normalized":
        lines += [
            f"seq_len = {seq_len}",
            f"positions = display_positions(seq_len, {grid_points}).double()  # the positions drawn",
            "# FIRE.forward at evaluation, on those positions",
            FIRE_LINES,
            "normalized_distances[positions[None, :] > positions[:, None]] = math.nan  # keys after the query: blank",
        ]
        return "\n".join(lines) + "\n"
    lines += [
        f"seq_len = {seq_len}",
        "queries = curve_positions(max(seq_len - 1, 1), dense=64, points=300)  # the query positions drawn",
        f"followed = [r for r in {list(distances)} if r < seq_len] or [max(seq_len // 2, 1)]",
        "curves = {}",
        "for r in followed:",
        "    i = queries[queries >= r].double()  # queries that have a key r back",
        "    # FIRE's lines, for the pairs (i, i - r) only",
        "    threshold = torch.abs(L_multiplier * init_L)",
        "    position_normalizer = torch.max(i, threshold)",
        "    relative_distances = torch.log(torch.abs(c * r) + 1)",
        "    position_normalizer = torch.log(torch.abs(c * position_normalizer) + 1)",
        "    curves[r] = (i, relative_distances / (position_normalizer + eps))  # u falls once i passes L",
    ]
    return "\n".join(lines) + "\n"


def page_snippets(s: FireSettings) -> dict[str, str]:
    """The code of each figure of the page, by the figure's export name."""
    normal = dict(c=s.c, threshold=s.threshold, seq_len=s.seq_len)
    return {
        "fire_interpolation": fire_snippet(part="interpolation", **normal),
        "fire_normalized": fire_snippet(part="normalized", **normal),
        "fire_mlp": fire_snippet(part="mlp", heads=s.heads, seed=s.seed),
    }

"""PyTorch code shown under the skew figures; tests run it and compare with the page."""

from __future__ import annotations

from posviz.ui.skew.settings import SkewSettings

SKEW_STEPS_CODE = {
    "masked": """\
rel = q @ Er.T  # (L, L) step 1: column c holds r = c - (L - 1)
padded = torch.nn.functional.pad(rel, (1, 0))  # (L, L + 1) step 2: one zero column on the left
reshaped = padded.reshape(L + 1, L)  # (L + 1, L) step 3: the same memory, rows of L
S = reshaped[1:]  # (L, L) step 4: drop the first row; S[i, j] = q_i . Er[j - i + L - 1] for j <= i
""",
    "unmasked": """\
rel = q @ Er.T  # (L, 2L - 1) step 1: column c holds r = c - (L - 1)
padded = torch.nn.functional.pad(rel, (0, 1))  # (L, 2L) step 2: one zero column on the right
flat = torch.nn.functional.pad(padded.reshape(-1), (0, L - 1))  # append L - 1 zeros
reshaped = flat.reshape(L + 1, 2 * L - 1)  # (L + 1, 2L - 1) step 3
S = reshaped[:L, L - 1:]  # (L, L) step 4: S[i, j] = q_i . Er[j - i + L - 1] for every i, j
""",
    "rel_shift": """\
rel = q @ Er.T  # (L, K) step 1 (Transformer-XL's BD): column c holds i - j = K - 1 - c
zero_pad = torch.zeros(L, 1)
padded = torch.cat([zero_pad, rel], dim=1)  # (L, K + 1) step 2
reshaped = padded.view(K + 1, L)  # (K + 1, L) step 3
S = reshaped[1:].view_as(rel)  # (L, K) step 4: S[i, j] = q_i . Er[j - i + L - 1] for j <= i + mem_len
""",
}


def skew_snippet(s: SkewSettings) -> str:
    """Code that runs the page's skew (``S``) and the direct gather (``gather``, ``valid``, ``max_diff``)."""
    both = s.variant == "unmasked"
    lines = [
        "import torch",
        "",
        f"L, dim, seed, mem_len = {s.seq_len}, {s.dim}, {s.seed}, {s.memory}",
        "K = L + mem_len  # keys: the memory, then the queries",
        "rows = 2 * L - 1  # relative positions -(L - 1) .. L - 1"
        if both
        else "rows = K  # distances i - j = K - 1 .. 0",
        "Er = torch.randn(rows, dim, generator=torch.Generator().manual_seed(seed)) * dim**-0.5  # tensor2tensor init",
        "q = torch.randn(L, dim, generator=torch.Generator().manual_seed(seed + 1))  # toy queries",
        "",
        SKEW_STEPS_CODE[s.variant],
        "# the direct way: one embedding per pair, O(L^2 d)",
        "i = torch.arange(L)[:, None] + mem_len  # query positions",
        "j = torch.arange(K)[None, :]  # key positions",
        f"row = {'j - i + L - 1' if both else 'rows - 1 - (i - j)'}  # the row of Er each pair needs",
        "valid = (row >= 0) & (row < rows)",
        "gather = (Er[row.clamp(0, rows - 1)] * q[:, None, :]).sum(-1) * valid",
        "max_diff = (S - gather).abs()[valid].max()  # float32 rounding",
    ]
    return "\n".join(lines) + "\n"

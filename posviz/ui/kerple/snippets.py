"""PyTorch code that reproduces the KERPLE page's figure.

Plain text generation, no streamlit. The kernels are the lines of chijames/KERPLE's
``megatron/mpu/layers.py``, ALiBi's slopes the official ``get_slopes`` and T5's buckets Hugging Face's
``_relative_position_bucket``, pasted; a test runs the snippet and compares with the page.
"""

from __future__ import annotations

from posviz.ui.code import CURVE_FN, GET_SLOPES, T5_BUCKET_FN
from posviz.ui.kerple.settings import KerpleSettings

# The distances (or positions) a curve figure draws: every one up to `dense`, then log-spaced.

# ALiBi's official get_slopes (ofirpress/attention_with_linear_biases)

# Hugging Face's T5Attention._relative_position_bucket


def kerple_snippet(*, heads: int, seq_len: int, seed: int) -> str:
    """Code for the family figure: ``alibi``, ``log_kernel``, ``power_kernel`` and ``t5``, each (heads, r), the
    bias of the key ``r`` positions before the query, for the distances ``r`` drawn."""
    lines = ["import math", "", "import torch", "", "", GET_SLOPES, "", T5_BUCKET_FN, "", CURVE_FN, ""]
    lines += [
        f"heads, seq_len = {heads}, {seq_len}",
        "r = curve_positions(max(seq_len - 1, 1), dense=128, points=300)  # the distances i - j drawn",
        "diff = r.double()[None, :]  # (1, r): the reference's tril(i - j), for one query and its keys",
        "",
        "# illustrative parameters, drawn as the reference initialises them (U(0, 2) and U(0, 1)), in this order",
        f"g = torch.Generator().manual_seed({seed})",
        "bias_p = (2 * torch.rand(heads, generator=g, dtype=torch.float64))[:, None]  # (heads, 1)",
        "bias_a = torch.rand(heads, generator=g, dtype=torch.float64)[:, None]  # (heads, 1)",
        "table = torch.randn(32, heads, generator=g).double()  # T5's (buckets, heads) table, as nn.Embedding starts",
        "",
        "# ALiBi: -m * (i - j)",
        "alibi = -torch.tensor(get_slopes(heads), dtype=torch.float64)[:, None] * diff  # (heads, r)",
        "",
        "# ParallelKerpleLog (the names swap: p multiplies, a sits inside the log)",
        "eps = 1e-2",
        "bias_p.data = bias_p.data.clamp(min=eps)",
        "bias_a.data = bias_a.data.clamp(min=eps)",
        "log_kernel = -bias_p*torch.log(1+bias_a*diff) # log kernel",
        "",
        "# ParallelKerplePower, with the same numbers (a multiplies, p is the exponent)",
        "bias_p.data = bias_p.data.clamp(min=eps, max=2)",
        "bias = diff.pow(bias_p)",
        "bias = -bias*bias_a",
        "power_kernel = bias  # (heads, r)",
        "",
        "# T5: one learned scalar per bucket, causal (decoder) buckets of r = j - i",
        "buckets = relative_position_bucket(-r, bidirectional=False, num_buckets=32, max_distance=128)  # (r,)",
        "t5 = table[buckets].T  # (heads, r)",
    ]
    return "\n".join(lines) + "\n"


def page_snippets(s: KerpleSettings) -> dict[str, str]:
    """The code of each figure of the page, by the figure's export name."""
    return {"kerple_family": kerple_snippet(heads=s.heads, seq_len=s.seq_len, seed=s.seed)}

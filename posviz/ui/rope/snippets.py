"""PyTorch code that reproduces each of the RoPE page's figures.

Plain text generation (no streamlit calls). The snippets use the reference forms, not
``posviz``: Meta LLaMA's complex numbers for the interleaved layout, Hugging
Face's ``rotate_half`` for the half-split one, and the chosen scaling method's
own function, as the registry (``ROPE_SCALING``) holds it. A test executes
every snippet and compares its tensors with the page's.
"""

from __future__ import annotations

from posviz.encodings.rope_scaling import ROPE_SCALING, method_source
from posviz.figures.rope_scores import DECAY_SAMPLES, SCORE_LEN, TOY_LEN
from posviz.ui.rope.settings import RopeSettings, scaling_options

ROPE_INTERLEAVED = '''\
def rope(x, pos):
    """Meta LLaMA apply_rotary_emb: pairs (x[2k], x[2k+1]) as complex numbers times e^(i pos theta_k)."""
    angles = torch.outer(pos.double(), inv_freq)  # (seq, d/2), float64
    cis = torch.polar(torch.ones_like(angles), angles)  # (seq, d/2) complex: precompute_freqs_cis
    xc = torch.view_as_complex(x.double().reshape(*x.shape[:-1], -1, 2).contiguous())  # (..., seq, d/2)
    return torch.view_as_real(xc * cis).flatten(-2)  # (..., seq, d)
'''

ROPE_HALF = '''\
def rope(x, pos):
    """Hugging Face / GPT-NeoX: x * cos + rotate_half(x) * sin, pairs (x[k], x[k + d/2])."""
    freqs = torch.outer(pos.double(), inv_freq)  # (seq, d/2), float64
    emb = torch.cat((freqs, freqs), dim=-1)  # (seq, d)
    x = x.double()
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return x * emb.cos() + torch.cat((-x2, x1), dim=-1) * emb.sin()  # (..., seq, d)
'''


def _frequency_lines(s: RopeSettings) -> list[str]:
    """The default frequencies, then the chosen method's function (its source, from the registry) applied."""
    lines = [
        "default_inv_freq = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)  # (d/2,) theta_k",
        "",
    ]
    args = ["default_inv_freq", "dim=d", "base=base", "factor=factor", "original_max_position=original_max_position"]
    options = dict(scaling_options(s))
    args += [f"{o.name}={options[o.name]!r}" for o in ROPE_SCALING[s.method].options]  # in Hugging Face's order
    lines += method_source(s.method).splitlines()
    lines += ["", "", f"inv_freq, attention_factor = {ROPE_SCALING[s.method].compute.__name__}("]
    lines += [f"    {arg}," for arg in args] + [")"]
    return lines


def rope_snippet(
    s: RopeSettings,
    *,
    part: str,
    pairs: list[int] | None = None,
    distances: list[int] | None = None,
    shifts: list[int] | None = None,
    score_len: int = SCORE_LEN,
    positions: list[int] | None = None,
    toy_len: int = TOY_LEN,
) -> str:
    """Code that rebuilds one of the RoPE page's tensors.

    Args:
        part: ``"freq"`` (``inv_freq``, ``default_inv_freq``, ``attention_factor``,
            ``wavelength``), ``"matrix"`` (``R_m``, ``perm``, ``P``), ``"circles"``
            (``at_zero``, ``at_m``, ``at_n``: (pairs, 2), unit length), ``"relative"``
            (``scores`` (score_len, score_len), ``shifted`` per shift, ``gap`` = max
            ``|R_m^T R_n - R_{n-m}|``), ``"decay"`` (``bound``, ``aligned``,
            ``independent`` at ``distances``), ``"angles"`` (``default_angles``,
            ``scaled_angles`` (positions, pairs)), ``"attention"`` (``weights``
            (3, toy_len, toy_len)).
        pairs: the pair indices a figure shows.
    """
    lines = ["import math", "", "import torch", "", ""]
    lines += [ROPE_INTERLEAVED if s.layout == "interleaved" else ROPE_HALF, ""]
    lines += [
        f"d, base, seed = {s.dim}, {s.base!r}, {s.seed}",
        f"m, n = {s.m}, {s.n}",
        f"factor, original_max_position = {s.factor!r}, {s.original_max_position}",
        "",
    ]
    lines += _frequency_lines(s)
    if part == "freq":
        lines.append("wavelength = 2 * math.pi / inv_freq  # (d/2,) tokens per turn")
    elif part == "matrix":
        lines += [
            "R_m = rope(torch.eye(d), torch.full((d,), m)).T  # (d, d): rope(x) = x @ R_m.T",
            "perm = torch.cat([torch.arange(0, d, 2), torch.arange(1, d, 2)])  # interleaved -> half-split",
            "P = torch.eye(d)[perm]  # (d, d): R_half = P R_interleaved P^T",
        ]
    elif part == "circles":
        first = "2 * k" if s.layout == "interleaved" else "k"
        second = "2 * k + 1" if s.layout == "interleaved" else "k + d // 2"
        lines += [
            "g = torch.Generator().manual_seed(seed)",
            "q = torch.randn(d, generator=g)  # the chosen vector",
            f"k = torch.tensor({pairs})  # the pairs shown",
            "",
            "def pairs_at(pos):",
            "    x = rope(q[None].expand(1, d), torch.tensor([pos]))[0]  # (d,)",
            f"    xy = torch.stack([x[{first}], x[{second}]], dim=-1)  # (pairs, 2)",
            "    return xy / xy.norm(dim=-1, keepdim=True)  # unit length",
            "",
            "at_zero, at_m, at_n = pairs_at(0), pairs_at(m), pairs_at(n)",
        ]
    elif part == "relative":
        lines += [
            "g = torch.Generator().manual_seed(seed)",
            "q, k = torch.randn(d, generator=g), torch.randn(d, generator=g)",
            f"pos = torch.arange({score_len})",
            f"rq, rk = rope(q.expand({score_len}, d), pos), rope(k.expand({score_len}, d), pos)  # (P, d) each",
            "scores = rq @ rk.T  # (P, P): (R_i q) . (R_j k)",
            f"t = torch.tensor({shifts})",
            "shifted = (rope(q.expand(len(t), d), m + t) * rope(k.expand(len(t), d), n + t)).sum(-1)",
            "",
            "def R(pos):",
            "    return rope(torch.eye(d), torch.full((d,), pos)).T  # (d, d)",
            "",
            "gap = (R(m).T @ R(n) - R(n - m)).abs().max()  # float64",
        ]
    elif part == "decay":
        lines += [
            f"r = torch.tensor({distances})  # distances n - m",
            "S = torch.polar(torch.ones(len(r), d // 2, dtype=torch.float64), torch.outer(r.double(), inv_freq))",
            "bound = S.cumsum(-1).abs().mean(-1)  # (1/(d/2)) sum_j |S_j|, S_j = sum_{k<j} e^(i r theta_k)",
            "g = torch.Generator().manual_seed(seed + 1)",
            f"qs = torch.randn({DECAY_SAMPLES}, d, generator=g)",
            f"ks = torch.randn({DECAY_SAMPLES}, d, generator=g)",
            "",
            "def mean_abs_score(a, b):",
            "    # (R_0 a) . (R_r b) = a . R_r b, averaged over the samples, for every r",
            "    rows = [(a.double() * rope(b, torch.full((len(b),), int(x)))).sum(-1) for x in r]  # (samples,) each",
            "    return torch.stack(rows).abs().mean(-1)",
            "",
            "aligned = mean_abs_score(qs, qs)  # k = q",
            "independent = mean_abs_score(qs, ks)",
        ]
    elif part == "angles":
        lines += [
            f"k = torch.tensor({pairs})  # fast, middle and slow pairs",
            f"pos = torch.tensor({positions})  # log-spaced positions",
            "default_angles = torch.outer(pos.double(), default_inv_freq[k])  # (positions, pairs) radians",
            "scaled_angles = torch.outer(pos.double(), inv_freq[k])",
        ]
    elif part == "attention":
        lines += [
            "g = torch.Generator().manual_seed(seed + 2)",
            f"L = {toy_len}",
            "pos = torch.arange(L)",
            "token = torch.randn(d, generator=g).expand(L, d)  # the same token at every position",
            "q_rand, k_rand = torch.randn(L, d, generator=g), torch.randn(L, d, generator=g)",
            "mask = torch.ones(L, L, dtype=torch.bool).tril()  # causal",
            "",
            "def attend(q, k):",
            "    logits = (q.double() @ k.double().T) / math.sqrt(d)",
            "    return torch.softmax(logits.masked_fill(~mask, float('-inf')), dim=-1)",
            "",
            "# Hugging Face multiplies cos and sin by attention_factor: q.k grows by its square",
            "af = attention_factor",
            "weights = torch.stack([",
            "    attend(token, token),  # no RoPE: uniform over the past",
            "    attend(af * rope(token, pos), af * rope(token, pos)),",
            "    attend(af * rope(q_rand, pos), af * rope(k_rand, pos)),",
            "])  # (3, L, L)",
        ]
    else:
        raise ValueError(f"unknown snippet part {part!r}")
    return "\n".join(lines) + "\n"

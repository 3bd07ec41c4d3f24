"""The compare page: one toy sequence through every scheme, cached by scalar settings.

Every scheme gets the same seeded ``q``, ``k`` (identity projections, so the
absolute schemes add their vectors to ``q`` and ``k`` directly) and the same
mask. Its *position term* is what it changes in the logits: ``logits -
q k^T / sqrt(d)``. Time and memory are measured here, on this sequence.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

import numpy as np
import pandas as pd
import streamlit as st
import torch

from posviz.encodings.alibi import alibi_bias, alibi_slopes
from posviz.encodings.attention import causal_mask
from posviz.encodings.cope import causal_logits, cope_gates, cope_position_logits, cope_positions
from posviz.encodings.rope import apply_rope, rope_inv_freq
from posviz.encodings.shaw import shaw_index, shaw_scores, shaw_table
from posviz.encodings.sinusoidal import learned_table, sinusoidal_table, sinusoidal_wavelengths
from posviz.encodings.t5 import t5_bias, t5_bucket
from posviz.ui.controls import control

MAX_SEQ_LEN = 64  # every cell of eight panels is drawn, twice: about 300 KB per grid at 64
MAX_DIM = 128
CACHE = 64
REPEATS = 5  # timing: median of these runs
# Fixed per-scheme settings, each the scheme's usual default.
T5_BUCKETS, T5_MAX_DISTANCE, T5_HEADS = 32, 128, 8
SHAW_CLIP = 8
ALIBI_HEADS, ALIBI_HEAD = 8, 2  # head 3 of 8: m = 1/8
COPE_NPOS = 16

SCHEMES = ("none", "sinusoidal", "learned absolute", "T5", "Shaw", "ALiBi", "RoPE", "CoPE")


@dataclass(frozen=True)
class CompareSettings:
    seq_len: int = 32
    dim: int = 64
    base: float = 10000.0
    seed: int = 0
    causal: bool = True


DEFAULTS = CompareSettings()


def compare_controls() -> CompareSettings:
    st.sidebar.subheader("The shared toy sequence")
    return CompareSettings(
        seq_len=control("seq_len", default=DEFAULTS.seq_len, max_value=MAX_SEQ_LEN),
        dim=control("dim", default=DEFAULTS.dim, max_value=MAX_DIM),
        base=control("base", default=DEFAULTS.base),
        seed=control("seed"),
        causal=control("causal"),
    )


@dataclass(frozen=True)
class Toy:
    q: torch.Tensor  # (L, d)
    k: torch.Tensor  # (L, d)
    pos: torch.Tensor  # (L,)
    content: torch.Tensor  # (L, L) q k^T / sqrt(d)
    s: CompareSettings


def toy(s: CompareSettings) -> Toy:
    g = torch.Generator().manual_seed(s.seed)
    q = torch.randn(s.seq_len, s.dim, generator=g)
    k = torch.randn(s.seq_len, s.dim, generator=g)
    return Toy(q=q, k=k, pos=torch.arange(s.seq_len), content=q @ k.T / math.sqrt(s.dim), s=s)


def _gen(s: CompareSettings, offset: int) -> torch.Generator:
    return torch.Generator().manual_seed(s.seed + offset)


# Each scheme: toy -> (logits (L, L), the position tensors it built). Parameters are made inside, as a
# model would hold them, so the time includes building them.
def _none(t: Toy) -> tuple[torch.Tensor, list[torch.Tensor]]:
    return t.q @ t.k.T / math.sqrt(t.s.dim), []


def _added(t: Toy, pe: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor]]:
    q, k = t.q + pe, t.k + pe  # (L, d): the vector added to each token
    return q @ k.T / math.sqrt(t.s.dim), [pe]


def _sinusoidal(t: Toy):
    return _added(t, sinusoidal_table(t.pos, t.s.dim, base=t.s.base))


def _learned(t: Toy):
    # std sqrt(1/2): the same expected norm sqrt(d/2) as a sinusoidal row, so the two compare fairly
    return _added(t, learned_table(t.s.seq_len, t.s.dim, generator=_gen(t.s, 1), std=math.sqrt(0.5)))


def _t5_table(s: CompareSettings) -> torch.Tensor:
    return torch.randn(T5_BUCKETS, T5_HEADS, generator=_gen(s, 2))  # nn.Embedding at init: N(0, 1)


def _t5(t: Toy):
    table = _t5_table(t.s)
    bias = t5_bias(table, t.pos, t.pos, bidirectional=not t.s.causal, max_distance=T5_MAX_DISTANCE)[0]  # head 0
    return t.q @ t.k.T / math.sqrt(t.s.dim) + bias, [table, bias]


def _shaw(t: Toy):
    table = shaw_table(SHAW_CLIP, t.s.dim, generator=_gen(t.s, 3))  # a^K
    index = shaw_index(t.pos, t.pos, clip=SHAW_CLIP)
    rel = shaw_scores(t.q, table, index)  # (L, L) q_i . a^K[index_ij]
    return (t.q @ t.k.T + rel) / math.sqrt(t.s.dim), [table, index, rel]


def _alibi(t: Toy):
    bias = alibi_bias(t.pos, t.pos, ALIBI_HEADS, causal=t.s.causal)[ALIBI_HEAD]
    return t.q @ t.k.T / math.sqrt(t.s.dim) + bias, [bias]


def _rope(t: Toy):
    q, k = apply_rope(t.q, t.pos, base=t.s.base), apply_rope(t.k, t.pos, base=t.s.base)
    return q @ k.T / math.sqrt(t.s.dim), [q, k]


def _cope_emb(s: CompareSettings) -> torch.Tensor:
    return torch.randn(s.dim, COPE_NPOS, generator=_gen(s, 4)) / math.sqrt(s.dim)  # e[p] as columns


def _cope(t: Toy):
    emb = _cope_emb(t.s)
    content = t.q @ t.k.T / math.sqrt(t.s.dim)
    gates = cope_gates(causal_logits(content, t.pos, t.pos))  # always causal: counts keys up to the query
    positions = cope_positions(gates, npos_max=COPE_NPOS)
    z = cope_position_logits(t.q, emb, positions)  # (L, L) interpolated q_i . e[p_ij]
    return content + z, [emb, gates, positions, z]


RUNNERS: dict[str, Callable[[Toy], tuple[torch.Tensor, list[torch.Tensor]]]] = dict(
    zip(SCHEMES, (_none, _sinusoidal, _learned, _t5, _shaw, _alibi, _rope, _cope), strict=True)
)


def t5_saturation(causal: bool) -> int:
    """The smallest distance from which every farther key (in the past) shares one T5 bucket."""
    d = torch.arange(0, 4 * T5_MAX_DISTANCE)
    bucket = t5_bucket(-d, bidirectional=not causal, num_buckets=T5_BUCKETS, max_distance=T5_MAX_DISTANCE)
    last = bucket[-1]
    return int(d[~(bucket == last)].max()) + 1


@dataclass(frozen=True)
class CompareView:
    names: tuple[str, ...]
    positions: np.ndarray  # (L,)
    terms: np.ndarray  # (schemes, L, L) float32, logits - content; NaN where masked
    weights: np.ndarray  # (schemes, L, L) float32
    mask: np.ndarray  # (L, L) bool, True where masked
    table: pd.DataFrame
    term_scale: float  # max |term| over every scheme, the shared colour bound


@st.cache_data(max_entries=CACHE, show_spinner=False)
def compare_view(seq_len: int, dim: int, base: float, seed: int, causal: bool) -> CompareView:
    s = CompareSettings(seq_len=seq_len, dim=dim, base=base, seed=seed, causal=causal)
    t = toy(s)
    masked = ~causal_mask(t.pos, t.pos) if causal else torch.zeros(seq_len, seq_len, dtype=torch.bool)
    cope_masked = ~causal_mask(t.pos, t.pos)
    terms, weights, seconds, nbytes = [], [], [], []
    for name in SCHEMES:
        runner = RUNNERS[name]
        runner(t)  # warm-up: first-call costs (kernels, allocator) are not the scheme's
        times = []
        for _ in range(REPEATS):
            start = time.perf_counter()
            logits, built = runner(t)
            mask = cope_masked if name == "CoPE" else masked
            w = torch.softmax(logits.masked_fill(mask, float("-inf")), dim=-1)
            times.append(time.perf_counter() - start)
        seconds.append(statistics.median(times))
        nbytes.append(sum(x.untyped_storage().nbytes() for x in built))
        terms.append((logits - t.content).masked_fill(mask, float("nan")))
        weights.append(w)
    terms_t = torch.stack(terms).float()
    finite = terms_t[torch.isfinite(terms_t)]
    return CompareView(
        names=SCHEMES,
        positions=t.pos.numpy(),
        terms=terms_t.numpy(),
        weights=torch.stack(weights).float().numpy(),
        mask=masked.numpy(),
        table=properties(s, seconds, nbytes),
        term_scale=float(finite.abs().max()) if finite.numel() else 1.0,
    )


def properties(s: CompareSettings, seconds: list[float], nbytes: list[int]) -> pd.DataFrame:
    """The properties table, computed from the settings; time and bytes as measured."""
    d, n = s.dim, s.seq_len
    slowest = float(sinusoidal_wavelengths(d, base=s.base)[-1])
    rope_slowest = float(2 * math.pi / rope_inv_freq(d, base=s.base)[-1])
    m = float(alibi_slopes(ALIBI_HEADS)[ALIBI_HEAD])
    rows = [
        ("none", "—", "fixed", 0, "never sees distance: attention is a function of the set of tokens"),
        ("sinusoidal", "absolute, added to the input", "fixed", 0, f"no limit; slowest period {slowest:,.0f} tokens"),
        (
            "learned absolute",
            "absolute, added to the input",
            "learned",
            n * d,
            f"no row past position {n - 1}: longer inputs are impossible",
        ),
        (
            "T5",
            "relative, bias on the logits",
            "learned",
            T5_BUCKETS * T5_HEADS,
            f"distance {t5_saturation(s.causal)}: every farther key shares the last bucket",
        ),
        (
            "Shaw",
            "relative, vector in q·k",
            "learned",
            2 * (2 * SHAW_CLIP + 1) * d,
            f"distance {SHAW_CLIP} (K): every farther key reads the edge row",
        ),
        (
            "ALiBi",
            "relative, bias on the logits",
            "fixed",
            0,
            f"never (linear); this head loses 1/e per {1 / m:.0f} tokens",
        ),
        ("RoPE", "relative, rotation of q and k", "fixed", 0, f"no limit; slowest period {rope_slowest:,.0f} tokens"),
        (
            "CoPE",
            "contextual, counts gated keys",
            "learned",
            COPE_NPOS * d,
            f"contextual position {COPE_NPOS - 1}: positions are clamped",
        ),
    ]
    return pd.DataFrame(
        {
            "scheme": [r[0] for r in rows],
            "kind": [r[1] for r in rows],
            "learned or fixed": [r[2] for r in rows],
            "parameters": [r[3] for r in rows],
            "stops distinguishing distances at": [r[4] for r in rows],
            "time (µs, median)": [round(x * 1e6, 1) for x in seconds],
            "position tensors (bytes)": nbytes,
        }
    )


def page_links(s: CompareSettings) -> list[tuple[str, str, dict[str, str]]]:
    """``(scheme, url path, query params)``: each scheme's own page with the shared settings in the link."""
    seq = str(s.seq_len)
    common = {"dim": str(s.dim), "seed": str(s.seed)}
    sinus = {"seq_len": seq, "base": f"{s.base:g}", **common}
    return [
        ("none", "", {}),
        ("sinusoidal", "sinusoidal", sinus),
        ("learned absolute", "sinusoidal", sinus),
        (
            "T5",
            "t5",
            {"q_len": seq, "k_len": seq, "seed": str(s.seed), "bidirectional": str(not s.causal).lower()},
        ),
        ("Shaw", "shaw", {"q_len": seq, "k_len": seq, **common}),
        ("ALiBi", "alibi", {"seq_len": seq, "heads": str(ALIBI_HEADS), "causal": str(s.causal).lower()}),
        ("RoPE", "rope", {"seq_len": seq, "base": f"{s.base:g}", **common}),
        ("CoPE", "cope", {"mode": "random", "npos_max": str(COPE_NPOS), **common}),
    ]


def link_markdown(s: CompareSettings) -> str:
    """A markdown list of links, one per scheme, to its page with these settings (they open in a new tab).

    Built from numbers and fixed names only, never from user text. ``st.page_link`` with
    ``query_params`` switches pages inside the session and, with URL-bound widgets, loses the
    parameters on the way (Streamlit 1.67); a plain link opens the page as a shared link would.
    """
    lines = []
    for name, path, params in page_links(s):
        url = (path or "./") + ("?" + urlencode(params) if params else "")
        what = f"the {name} page with these settings"
        if not path:
            what = "the home page: why attention needs position"
        elif name == "learned absolute":
            what = "the sinusoidal page (section 5) with these settings"
        lines.append(f"- **{name}**: [{what}]({url})")
    return "\n".join(lines)

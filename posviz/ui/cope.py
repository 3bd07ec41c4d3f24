"""The CoPE page's settings, its token table, and its cached backend calls (keyed by scalars).

Cost follows what is shown: gates and positions are computed for the drawn
query rows only (each against every key, since a position sums a whole row),
never for the full ``n x n`` matrix of a long pasted text.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import streamlit as st
import torch

from posviz.encodings.attention import toy_qk
from posviz.encodings.cope import (
    causal_logits,
    cope_attention,
    cope_gates,
    cope_integer_logits,
    cope_interpolation,
    cope_position_logits,
    cope_positions,
    cope_raw_positions,
    gate_logits,
    key_gates,
    relative_position_logits,
    scaled_content,
)
from posviz.encodings.positions import display_positions, display_stride
from posviz.encodings.tokens import count_tokens, is_sentence_end, is_word, tokenize
from posviz.ui.controls import control
from posviz.ui.cope_snippets import CopeSettings
from posviz.ui.params import COPE_MAX_CHARS, COPE_MAX_TOKENS

MAIN_POINTS = 160  # per axis for the gate, position and logit heatmaps
ATTN_POINTS = 96  # per axis for each of the three attention panels
PITFALL_POINTS = 112  # per axis for the pitfall panels
BAR_POINTS = 400  # keys in the counting bar chart
CACHE = 16  # max entries per cached call (a view is about 1 MB)


def cope_controls() -> CopeSettings:
    """The sidebar controls that do not depend on the text, in reading order."""
    st.sidebar.subheader("Gates")
    mode = control("mode")
    temperature = control("temperature")
    st.sidebar.subheader("Positions")
    npos_max = control("npos_max")
    st.sidebar.subheader("Toy queries, keys, embeddings")
    dim = control("dim")
    seed = control("seed")
    return CopeSettings(mode=mode, temperature=temperature, npos_max=npos_max, dim=dim, seed=seed)


@dataclass(frozen=True)
class Tokens:
    """The tokens the page reads, and how many the text has."""

    tokens: list[str]
    total: int  # tokens in the whole text (more than len(tokens) when cut)


def text_control(s: CopeSettings, where) -> tuple[CopeSettings, Tokens]:
    """The text box (bound to ``text``) and its tokens, at most ``COPE_MAX_TOKENS``."""
    text = control("text", where=where)
    tokens = tokenize(text, limit=COPE_MAX_TOKENS)
    total = len(tokens) if len(tokens) < COPE_MAX_TOKENS else count_tokens(text)
    return replace(s, text=text), Tokens(tokens=tokens, total=total)


def allowance_note(tok: Tokens) -> str:
    """What the page allows, and what it does with this text."""
    n = len(tok.tokens)
    shown = len(display_positions(n, MAIN_POINTS)) if n else 0
    parts = [f"{n} tokens. The page reads up to {COPE_MAX_CHARS} characters and {COPE_MAX_TOKENS} tokens"]
    if shown < n:
        parts.append(
            f"heatmaps draw {shown} of the {n} query rows and keys (every {display_stride(n, MAIN_POINTS)}th, "
            "plus the last); only those rows are computed, each against every key"
        )
    return "; ".join(parts) + "."


def inspect_controls(s: CopeSettings, n: int) -> CopeSettings:
    """The inspected query ``i`` (default: the last token) and key ``j <= i``."""
    st.sidebar.subheader("Inspect")
    query = control("query", max_value=n - 1, default=n - 1) if n > 1 else 0
    key = control("key", max_value=query, default=query // 2) if query > 0 else 0
    return replace(s, query=query, key=key)


def default_custom_gates(tokens: list[str]) -> np.ndarray:
    """(n,) float32: 1 on words, 0 on punctuation (CoPE that counts words)."""
    return np.array([1.0 if is_word(t) else 0.0 for t in tokens], dtype=np.float32)


def custom_gate_table(s: CopeSettings, tokens: list[str]) -> np.ndarray:
    """The per-token gate table (``st.data_editor``); returns (n,) float32 in [0, 1]."""
    frame = pd.DataFrame(
        {"token": tokens, "gate": default_custom_gates(tokens)}, index=pd.RangeIndex(len(tokens), name="j")
    )
    digest = hashlib.sha1(s.text.encode("utf-8", "replace")).hexdigest()[:16]
    st.caption(
        "Custom gates: one value in [0, 1] per key token, the same for every query (it starts at 1 on words, "
        "0 on punctuation, so CoPE counts words). Click a gate to edit it; edits are not part of the link."
    )
    edited = st.data_editor(
        frame,
        key=f"cope_gates_{digest}",
        disabled=["token"],
        height=min(420, 38 + 35 * len(tokens)),
        column_config={
            "token": st.column_config.TextColumn("token"),
            "gate": st.column_config.NumberColumn("gate", min_value=0.0, max_value=1.0, step=0.05, format="%.2f"),
        },
    )
    gates = pd.to_numeric(edited["gate"], errors="coerce").fillna(0.0).clip(0.0, 1.0)
    return gates.to_numpy(np.float32)


def token_frame(tokens: list[str], gates: np.ndarray | None, query: int) -> pd.DataFrame:
    """The tokens as read, with the inspected query's gate of each key (0 for future keys)."""
    frame = pd.DataFrame({"token": tokens}, index=pd.RangeIndex(len(tokens), name="j"))
    if gates is not None:
        frame[f"gate g_ij for i = {query}"] = np.round(gates.astype(np.float64), 4)
    return frame


# --- the computation ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Inputs:
    """Toy tensors of one setting: tokens, queries, keys, embeddings and key-only gates."""

    tokens: list[str]
    q: torch.Tensor  # (n, dim)
    k: torch.Tensor  # (n, dim)
    pos_emb: torch.Tensor  # (dim, npos_max), column p is e[p]
    values: torch.Tensor | None  # (n,) gate of each key; None in random mode (gates from q . k)
    temperature: float
    npos_max: int

    @property
    def n(self) -> int:
        return len(self.tokens)


def gate_values(mode: str, tokens: list[str], custom: bytes) -> np.ndarray | None:
    """(n,) float32 key-only gates of a counting or custom mode; None in random mode."""
    if mode == "random":
        return None
    if mode == "count-tokens":
        return np.ones(len(tokens), dtype=np.float32)
    if mode == "count-sentences":
        return np.array([float(is_sentence_end(t)) for t in tokens], dtype=np.float32)
    table = np.frombuffer(custom, dtype=np.float32)
    return table.copy() if len(table) == len(tokens) else default_custom_gates(tokens)


def inputs(text: str, mode: str, npos_max: int, dim: int, seed: int, temperature: float, custom: bytes = b"") -> Inputs:
    tokens = tokenize(text, limit=COPE_MAX_TOKENS)
    q, k = toy_qk(len(tokens), len(tokens), dim, generator=torch.Generator().manual_seed(seed))
    # Unit-variance position logits z_i[p] = q_i . e[p], comparable to q . k / sqrt(d).
    pos_emb = torch.randn(dim, npos_max, generator=torch.Generator().manual_seed(seed + 1)) / math.sqrt(dim)
    values = gate_values(mode, tokens, custom)
    return Inputs(
        tokens=tokens,
        q=q,
        k=k,
        pos_emb=pos_emb,
        values=None if values is None else torch.from_numpy(values),
        temperature=temperature,
        npos_max=npos_max,
    )


def gate_rows(inp: Inputs, rows: torch.Tensor, *, masked: bool = True) -> torch.Tensor:
    """(len(rows), n) gates of the query rows ``rows`` against every key; ``masked=False``: the pitfall."""
    k_pos = torch.arange(inp.n)
    if inp.values is None:
        logits = gate_logits(inp.q[rows], inp.k, temperature=inp.temperature)  # (rows, n)
        return cope_gates(causal_logits(logits, rows, k_pos) if masked else logits)
    if masked:
        return key_gates(inp.values, rows, k_pos)
    return key_gates(inp.values, torch.full_like(rows, inp.n - 1), k_pos)  # nothing is in the future of the last


@dataclass(frozen=True)
class CopeView:
    """The matrices drawn on the page: shown rows and keys only."""

    n: int
    q_pos: np.ndarray  # (rows,) int64
    k_pos: np.ndarray  # (cols,) int64
    gates: np.ndarray  # (rows, cols)
    positions: np.ndarray  # (rows, cols), clamped
    clamped: np.ndarray  # (rows, cols) bool: the raw sum exceeded npos_max - 1
    pos_logits: np.ndarray  # (rows, cols) z_i[p_ij]
    attn_q: np.ndarray  # (ra,) rows of the attention panels
    attn_k: np.ndarray  # (ca,)
    attention: tuple[np.ndarray, np.ndarray, np.ndarray]  # none, relative, CoPE: (ra, ca) each

    @property
    def future(self) -> np.ndarray:
        """(rows, cols) bool: keys after their query, masked."""
        return self.k_pos[None, :] > self.q_pos[:, None]


@st.cache_data(max_entries=CACHE, show_spinner=False)
def cope_view(
    text: str, mode: str, npos_max: int, dim: int, seed: int, temperature: float, custom: bytes = b""
) -> CopeView:
    inp = inputs(text, mode, npos_max, dim, seed, temperature, custom)
    n = inp.n
    rows = display_positions(n, MAIN_POINTS)  # the shown queries; keys are shown at the same positions
    gates = gate_rows(inp, rows)  # (rows, n)
    raw = cope_raw_positions(gates)  # (rows, n)
    pos = cope_positions(gates, npos_max=npos_max)
    z = cope_position_logits(inp.q[rows], inp.pos_emb, pos)  # (rows, n)

    arows = display_positions(n, ATTN_POINTS)
    k_pos = torch.arange(n)
    content = scaled_content(inp.q[arows], inp.k)  # (ra, n)
    a_pos = cope_positions(gate_rows(inp, arows), npos_max=npos_max)
    za = cope_position_logits(inp.q[arows], inp.pos_emb, a_pos)
    rel = relative_position_logits(inp.q[arows], inp.pos_emb, arows, k_pos)
    attention = tuple(
        cope_attention(content, term, arows, k_pos)[:, arows].numpy() for term in (None, rel, za)
    )  # keys shown at the same positions as the rows
    return CopeView(
        n=n,
        q_pos=rows.numpy(),
        k_pos=rows.numpy(),
        gates=gates[:, rows].numpy(),
        positions=pos[:, rows].numpy(),
        clamped=(raw[:, rows] > npos_max - 1).numpy(),
        pos_logits=z[:, rows].numpy(),
        attn_q=arows.numpy(),
        attn_k=arows.numpy(),
        attention=attention,
    )


@dataclass(frozen=True)
class RowView:
    """The inspected query ``i``: its whole row, and the pair ``(i, j)``."""

    gates: np.ndarray  # (n,) g_ij for every key (0 for j > i)
    positions: np.ndarray  # (n,) clamped p_ij
    raw: np.ndarray  # (n,) before the clamp
    z_row: np.ndarray  # (npos_max,) z_i[p] at every integer p
    bar_j: np.ndarray  # (m,) the keys j <= i of the bar chart (strided when i is large)
    p: float  # p_ij of the pair
    floor: int
    ceil: int
    w: float
    value: float  # z_i[p_ij], interpolated
    future_sum: float  # the sum of row i's gates over j > i with no mask: what the pitfall adds
    query: int

    @property
    def bar_distance(self) -> np.ndarray:
        """(m,) token distance i - j of the bar chart's keys."""
        return self.query - self.bar_j

    @property
    def bar_positions(self) -> np.ndarray:
        return self.positions[self.bar_j]


@st.cache_data(max_entries=CACHE * 4, show_spinner=False)
def row_view(
    text: str,
    mode: str,
    npos_max: int,
    dim: int,
    seed: int,
    temperature: float,
    custom: bytes,
    query: int,
    key: int,
) -> RowView:
    inp = inputs(text, mode, npos_max, dim, seed, temperature, custom)
    rows = torch.tensor([query])
    gates = gate_rows(inp, rows)  # (1, n)
    raw = cope_raw_positions(gates)[0]
    pos = cope_positions(gates, npos_max=npos_max)  # (1, n)
    z = cope_position_logits(inp.q[rows], inp.pos_emb, pos)[0]  # (n,)
    at = cope_interpolation(pos[0, key])
    unmasked = gate_rows(inp, rows, masked=False)[0]
    return RowView(
        gates=gates[0].numpy(),
        positions=pos[0].numpy(),
        raw=raw.numpy(),
        z_row=cope_integer_logits(inp.q[rows], inp.pos_emb)[0].numpy(),
        bar_j=display_positions(query + 1, BAR_POINTS).numpy(),
        p=float(pos[0, key]),
        floor=int(at.floor),
        ceil=int(at.ceil),
        w=float(at.w),
        value=float(z[key]),
        future_sum=float(unmasked[query + 1 :].sum()),
        query=query,
    )


@dataclass(frozen=True)
class PitfallView:
    pos: np.ndarray  # (p,) shown rows and keys
    right: np.ndarray  # (p, p) mask before the gates
    wrong: np.ndarray  # (p, p) mask after the gates (future cells 0)

    @property
    def diff(self) -> np.ndarray:
        """(p, p) wrong minus right: the leak."""
        return self.wrong - self.right


@st.cache_data(max_entries=CACHE, show_spinner=False)
def pitfall_view(
    text: str, mode: str, npos_max: int, dim: int, seed: int, temperature: float, custom: bytes = b""
) -> PitfallView:
    inp = inputs(text, mode, npos_max, dim, seed, temperature, custom)
    rows = display_positions(inp.n, PITFALL_POINTS)
    future = torch.arange(inp.n)[None, :] > rows[:, None]  # (rows, n)
    right = cope_positions(gate_rows(inp, rows), npos_max=npos_max)
    wrong = cope_positions(gate_rows(inp, rows, masked=False), npos_max=npos_max).masked_fill(future, 0.0)
    return PitfallView(pos=rows.numpy(), right=right[:, rows].numpy(), wrong=wrong[:, rows].numpy())


def gates_subtitle(mode: str, temperature: float) -> str:
    return {
        "count-tokens": "count-tokens: every gate is 1, so p_ij = i − j + 1, a plain relative position",
        "count-sentences": "count-sentences: gates are 1 on . ! ? and 0 elsewhere, so positions count sentences",
        "random": f"random: sigmoid(q_i · k_j / {temperature:g}) with toy q, k",
        "custom": "custom: the table's gate of each key, the same for every query",
    }[mode]


def leak_note(s: CopeSettings, row: RowView) -> str:
    """What the pitfall does to the inspected query's row."""
    if row.future_sum == 0:
        return (
            f"Query i = {s.query} has no future gates that fire (it is the last token, or no later key's gate "
            "is above 0): its row is unchanged. Pick an earlier query to see its positions shift."
        )
    return (
        f"Query i = {s.query}: its future keys' gates sum to {row.future_sum:.3g}, so with the mask after the "
        f"gates each of its positions is that much too large (up to the clamp at {s.npos_max - 1})."
    )

"""The CoPE page's cached views: a settings key and the gate table's bytes in, arrays out.

Cost follows what is shown: gates and positions are computed for the drawn
query rows only (each against every key, since a position sums a whole row),
never for the full ``n x n`` matrix of a long pasted text.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from posviz.encodings.attention import causal_mask, toy_qk
from posviz.encodings.cope import (
    cope_attention,
    cope_integer_logits,
    cope_interpolation,
    cope_position_logits,
    cope_positions,
    cope_raw_positions,
    query_gates,
    relative_position_logits,
    scaled_content,
    toy_position_embeddings,
)
from posviz.encodings.positions import all_positions, display_positions
from posviz.encodings.tokens import is_sentence_end, is_word, tokenize
from posviz.ui.cache import cached_view
from posviz.ui.cope.settings import (
    ATTN_POINTS,
    BAR_POINTS,
    COPE_MAX_TOKENS,
    MAIN_POINTS,
    PITFALL_POINTS,
    PairKey,
    RowKey,
    ViewKey,
)
from posviz.ui.settings import project


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


def default_custom_gates(tokens: list[str]) -> np.ndarray:
    """(n,) float32: 1 on words, 0 on punctuation (CoPE that counts words)."""
    return np.array([1.0 if is_word(t) else 0.0 for t in tokens], dtype=np.float32)


def gate_values(mode: str, tokens: list[str], table: bytes) -> np.ndarray | None:
    """(n,) float32 key-only gates of a counting or custom mode; None in random mode."""
    if mode == "random":
        return None
    if mode == "count-tokens":
        return np.ones(len(tokens), dtype=np.float32)
    if mode == "count-sentences":
        return np.array([float(is_sentence_end(t)) for t in tokens], dtype=np.float32)
    gates = np.frombuffer(table, dtype=np.float32)
    return gates.copy() if len(gates) == len(tokens) else default_custom_gates(tokens)


def inputs(k: ViewKey, table: bytes = b"") -> Inputs:
    """The toy tensors of ``k``; ``table`` holds the custom gates (float32 bytes, one per token)."""
    tokens = tokenize(k.text, limit=COPE_MAX_TOKENS)
    q, kk = toy_qk(len(tokens), len(tokens), k.dim, generator=torch.Generator().manual_seed(k.seed))
    pos_emb = toy_position_embeddings(k.dim, k.npos_max, generator=torch.Generator().manual_seed(k.seed + 1))
    values = gate_values(k.mode, tokens, table)
    return Inputs(
        tokens=tokens,
        q=q,
        k=kk,
        pos_emb=pos_emb,
        values=None if values is None else torch.as_tensor(values),
        temperature=k.temperature,
        npos_max=k.npos_max,
    )


def gate_rows(inp: Inputs, rows: torch.Tensor, *, masked: bool = True) -> torch.Tensor:
    """(len(rows), n) gates of the query rows ``rows`` against every key; ``masked=False``: the pitfall."""
    return query_gates(inp.q, inp.k, rows, temperature=inp.temperature, values=inp.values, masked=masked)


def stride(pos: np.ndarray) -> int:
    """Stride of shown positions (1 when all are shown)."""
    return int(pos[1] - pos[0]) if len(pos) > 1 else 1


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


@cached_view  # about 1 MB an entry
def cope_view(k: ViewKey, table: bytes) -> CopeView:
    inp = inputs(k, table)
    n = inp.n
    rows = display_positions(n, MAIN_POINTS)  # the shown queries; keys are shown at the same positions
    gates = gate_rows(inp, rows)  # (rows, n)
    raw = cope_raw_positions(gates)  # (rows, n)
    pos = cope_positions(gates, npos_max=k.npos_max)
    z = cope_position_logits(inp.q[rows], inp.pos_emb, pos)  # (rows, n)

    arows = display_positions(n, ATTN_POINTS)
    k_pos = all_positions(n)
    content = scaled_content(inp.q[arows], inp.k)  # (ra, n)
    a_pos = cope_positions(gate_rows(inp, arows), npos_max=k.npos_max)
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
        clamped=(raw[:, rows] > k.npos_max - 1).numpy(),
        pos_logits=z[:, rows].numpy(),
        attn_q=arows.numpy(),
        attn_k=arows.numpy(),
        attention=attention,
    )


@dataclass(frozen=True)
class RowView:
    """The inspected query ``i``: its whole row."""

    gates: np.ndarray  # (n,) g_ij for every key (0 for j > i)
    positions: np.ndarray  # (n,) clamped p_ij
    raw: np.ndarray  # (n,) before the clamp
    pos_logits: np.ndarray  # (n,) z_i[p_ij], interpolated
    z_row: np.ndarray  # (npos_max,) z_i[p] at every integer p
    bar_j: np.ndarray  # (m,) the keys j <= i of the bar chart (strided when i is large)
    future_sum: float  # the sum of row i's gates over j > i with no mask: what the pitfall adds
    query: int

    @property
    def bar_distance(self) -> np.ndarray:
        """(m,) token distance i - j of the bar chart's keys."""
        return self.query - self.bar_j

    @property
    def bar_positions(self) -> np.ndarray:
        return self.positions[self.bar_j]


@cached_view(max_entries=64)
def row_view(k: RowKey, table: bytes) -> RowView:
    inp = inputs(k, table)
    rows = torch.tensor([k.query])
    gates = gate_rows(inp, rows)  # (1, n)
    pos = cope_positions(gates, npos_max=k.npos_max)  # (1, n)
    unmasked = gate_rows(inp, rows, masked=False)[0]
    return RowView(
        gates=gates[0].numpy(),
        positions=pos[0].numpy(),
        raw=cope_raw_positions(gates)[0].numpy(),
        pos_logits=cope_position_logits(inp.q[rows], inp.pos_emb, pos)[0].numpy(),
        z_row=cope_integer_logits(inp.q[rows], inp.pos_emb)[0].numpy(),
        bar_j=display_positions(k.query + 1, BAR_POINTS).numpy(),
        future_sum=float(unmasked[k.query + 1 :].sum()),
        query=k.query,
    )


@dataclass(frozen=True)
class PairView:
    """The inspected pair ``(i, j)``: its position and how it is interpolated."""

    query: int
    key: int
    p: float  # p_ij
    floor: int
    ceil: int
    w: float
    value: float  # z_i[p_ij], interpolated
    z_row: np.ndarray  # (npos_max,) z_i[p] at every integer p

    @property
    def z_floor(self) -> float:
        return float(self.z_row[self.floor])

    @property
    def z_ceil(self) -> float:
        return float(self.z_row[self.ceil])


def pair_view(k: PairKey, table: bytes) -> PairView:
    """The pair, read off its query's (cached) row."""
    row = row_view(project(k, RowKey), table)
    at = cope_interpolation(torch.as_tensor(row.positions)[k.key])
    return PairView(
        query=k.query,
        key=k.key,
        p=float(row.positions[k.key]),
        floor=int(at.floor),
        ceil=int(at.ceil),
        w=float(at.w),
        value=float(row.pos_logits[k.key]),
        z_row=row.z_row,
    )


@dataclass(frozen=True)
class PitfallView:
    n: int
    pos: np.ndarray  # (p,) shown rows and keys
    right: np.ndarray  # (p, p) mask before the gates
    wrong: np.ndarray  # (p, p) mask after the gates (future cells 0)

    @property
    def diff(self) -> np.ndarray:
        """(p, p) wrong minus right: the leak."""
        return self.wrong - self.right


@cached_view
def pitfall_view(k: ViewKey, table: bytes) -> PitfallView:
    inp = inputs(k, table)
    rows = display_positions(inp.n, PITFALL_POINTS)
    future = ~causal_mask(rows, all_positions(inp.n))  # (rows, n)
    right = cope_positions(gate_rows(inp, rows), npos_max=k.npos_max)
    wrong = cope_positions(gate_rows(inp, rows, masked=False), npos_max=k.npos_max).masked_fill(future, 0.0)
    return PitfallView(n=inp.n, pos=rows.numpy(), right=right[:, rows].numpy(), wrong=wrong[:, rows].numpy())

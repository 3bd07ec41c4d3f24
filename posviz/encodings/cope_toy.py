"""CoPE on a text with toy tensors: the matrices, one query's row and the masking pitfall.

A text's tokens (:mod:`posviz.encodings.tokens`) get seeded standard-normal queries and
keys, toy position embeddings, and gates from one of four sources (``MODES``): every
gate 1 (relative positions), 1 on sentence ends only, ``sigmoid(q . k / temperature)``,
or a hand-made gate per key. Everything is computed for chosen query rows only, each
against every key (a position sums its whole row), never for the full ``n x n``
matrix of a long text.

Notation: ``n`` tokens; ``r`` chosen query rows; ``npos_max`` position embeddings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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
from posviz.encodings.positions import all_positions
from posviz.encodings.tokens import is_sentence_end, is_word
from posviz.i18n import _

MODES = ("count-tokens", "count-sentences", "random", "custom")  # where the gates come from


def word_gates(tokens: Sequence[str]) -> torch.Tensor:
    """(n,) float32: 1 on words, 0 on punctuation (CoPE that counts words; the custom table's default)."""
    return torch.tensor([1.0 if is_word(t) else 0.0 for t in tokens], dtype=torch.float32)


def gate_values(mode: str, tokens: Sequence[str], custom: bytes = b"") -> torch.Tensor | None:
    """(n,) float32 gates that depend on the key only, for a counting or custom ``mode``; None for ``"random"``.

    ``custom``: the custom mode's table as float32 bytes, one gate per token; a table of another length
    (or none) gives :func:`word_gates`.
    """
    if mode not in MODES:
        raise ValueError(_("mode must be one of {modes}, got {mode!r}.").format(modes=MODES, mode=mode))
    if mode == "random":
        return None
    if mode == "count-tokens":
        return torch.ones(len(tokens), dtype=torch.float32)
    if mode == "count-sentences":
        return torch.tensor([float(is_sentence_end(t)) for t in tokens], dtype=torch.float32)
    if len(custom) != 4 * len(tokens):
        return word_gates(tokens)
    return torch.frombuffer(bytearray(custom), dtype=torch.float32)


@dataclass(frozen=True)
class CopeToy:
    """The toy tensors of one text and setting."""

    q: torch.Tensor  # (n, dim) queries
    k: torch.Tensor  # (n, dim) keys
    pos_emb: torch.Tensor  # (dim, npos_max), column p is e[p]
    values: torch.Tensor | None  # (n,) gate of each key; None: sigmoid(q . k / temperature)
    temperature: float
    npos_max: int

    @property
    def n(self) -> int:
        return self.k.shape[0]

    def gates(self, rows: torch.Tensor, *, masked: bool = True) -> torch.Tensor:
        """(r, n) gates of the query rows ``rows`` against every key; ``masked=False``: the pitfall."""
        return query_gates(self.q, self.k, rows, temperature=self.temperature, values=self.values, masked=masked)


def cope_toy(
    tokens: Sequence[str], *, mode: str, dim: int, seed: int, npos_max: int, temperature: float, custom: bytes = b""
) -> CopeToy:
    """Seeded toy queries and keys (``seed``), position embeddings (``seed + 1``) and the gates' source."""
    q, k = toy_qk(len(tokens), len(tokens), dim, generator=torch.Generator().manual_seed(seed))
    pos_emb = toy_position_embeddings(dim, npos_max, generator=torch.Generator().manual_seed(seed + 1))
    return CopeToy(q, k, pos_emb, gate_values(mode, tokens, custom), temperature, npos_max)


@dataclass(frozen=True)
class CopeRows:
    """The matrices of the query rows ``rows``, each ``(r, n)``."""

    gates: torch.Tensor  # g_ij, 0 for future keys
    positions: torch.Tensor  # p_ij, clamped to npos_max - 1
    clamped: torch.Tensor  # bool: the raw sum exceeded npos_max - 1
    pos_logits: torch.Tensor  # z_i[p_ij], interpolated


def cope_rows(toy: CopeToy, rows: torch.Tensor) -> CopeRows:
    """The gates, positions and position logits of the query rows ``rows``."""
    gates = toy.gates(rows)  # (r, n)
    pos = cope_positions(gates, npos_max=toy.npos_max)
    clamped = cope_raw_positions(gates) > toy.npos_max - 1
    return CopeRows(gates, pos, clamped, cope_position_logits(toy.q[rows], toy.pos_emb, pos))


def cope_attention_panels(toy: CopeToy, rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Causal attention of the rows ``rows`` with no position term, relative positions ``q_i . e[i - j]``, and
    CoPE ``z_i[p_ij]``, each added to ``q k^T / sqrt(d)``.

    Returns:
        three (r, n) float tensors, rows summing to 1.
    """
    k_pos = all_positions(toy.n)
    content = scaled_content(toy.q[rows], toy.k)  # (r, n)
    pos = cope_positions(toy.gates(rows), npos_max=toy.npos_max)
    cope = cope_position_logits(toy.q[rows], toy.pos_emb, pos)
    relative = relative_position_logits(toy.q[rows], toy.pos_emb, rows, k_pos)
    return tuple(cope_attention(content, term, rows, k_pos) for term in (None, relative, cope))  # type: ignore[return-value]


@dataclass(frozen=True)
class CopeRow:
    """One query ``i``'s whole row, and its integer position logits."""

    gates: torch.Tensor  # (n,) g_ij (0 for j > i)
    positions: torch.Tensor  # (n,) clamped p_ij
    pos_logits: torch.Tensor  # (n,) z_i[p_ij], interpolated
    z_row: torch.Tensor  # (npos_max,) z_i[p] at every integer p
    future_sum: float  # the sum of the row's gates over j > i with no mask: what the pitfall adds


def cope_row(toy: CopeToy, query: int) -> CopeRow:
    """The row of query ``query`` against every key."""
    rows = torch.tensor([query])
    gates = toy.gates(rows)  # (1, n)
    pos = cope_positions(gates, npos_max=toy.npos_max)
    unmasked = toy.gates(rows, masked=False)[0]  # (n,)
    return CopeRow(
        gates=gates[0],
        positions=pos[0],
        pos_logits=cope_position_logits(toy.q[rows], toy.pos_emb, pos)[0],
        z_row=cope_integer_logits(toy.q[rows], toy.pos_emb)[0],
        future_sum=float(unmasked[query + 1 :].sum()),
    )


@dataclass(frozen=True)
class CopePair:
    """The pair ``(query, key)``: its position ``p`` and how ``z_i[p]`` interpolates between two integers."""

    query: int
    key: int
    p: float  # p_ij
    floor: int
    ceil: int
    w: float  # p - floor, the weight of z_i[ceil]
    value: float  # z_i[p_ij], interpolated
    z_floor: float
    z_ceil: float


def cope_pair(row: CopeRow, query: int, key: int) -> CopePair:
    """The pair ``(query, key)`` read off its query's row."""
    at = cope_interpolation(row.positions[key])
    floor, ceil = int(at.floor), int(at.ceil)
    return CopePair(
        query=query,
        key=key,
        p=float(row.positions[key]),
        floor=floor,
        ceil=ceil,
        w=float(at.w),
        value=float(row.pos_logits[key]),
        z_floor=float(row.z_row[floor]),
        z_ceil=float(row.z_row[ceil]),
    )


def cope_counting(row: CopeRow, query: int, keys: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """What query ``query`` counted over the earlier keys ``keys`` (``j <= query``).

    Returns:
        distance ``i - j`` (m,) int64 and position ``p_ij`` (m,) float.
    """
    return query - keys, row.positions[keys]


@dataclass(frozen=True)
class CopePitfall:
    """Positions of the rows ``rows`` with the causal mask before the gates (right) and after them (wrong)."""

    right: torch.Tensor  # (r, n)
    wrong: torch.Tensor  # (r, n), future cells 0
    leak: torch.Tensor  # (r, n) wrong - right: each row shifted by its future gates' sum (up to the clamp)


def cope_pitfall(toy: CopeToy, rows: torch.Tensor) -> CopePitfall:
    """The masking pitfall on the rows ``rows``: gates computed before the mask leak into every position."""
    future = ~causal_mask(rows, all_positions(toy.n))  # (r, n)
    right = cope_positions(toy.gates(rows), npos_max=toy.npos_max)
    wrong = cope_positions(toy.gates(rows, masked=False), npos_max=toy.npos_max).masked_fill(future, 0.0)
    return CopePitfall(right, wrong, wrong - right)

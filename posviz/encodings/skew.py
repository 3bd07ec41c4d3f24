"""Music Transformer skew (Huang et al. 2018) and its relatives.

``Er`` holds one vector per relative position ``-(L-1) .. 0`` (row ``L - 1``
is "self"). ``rel = Q Er^T`` is ``(L, L)`` with column ``c`` holding relative
position ``c - (L - 1)``; the skew turns it into ``S`` indexed by key::

    S[i, j] = rel[i, j - i + L - 1] = q_i . Er[j - i + L - 1]   for j <= i

by padding one zero column on the left, reshaping ``(L, L + 1)`` to
``(L + 1, L)`` and dropping the first row: ``O(L d)`` memory instead of
Shaw's ``O(L^2 d)``. Cells above the diagonal are garbage (row ``i + 1``'s
values and the pad) that the causal mask removes.

Canonical code: tensor2tensor ``_relative_position_to_absolute_position_masked``
(and ``_unmasked`` for ``2L - 1`` relative columns), Transformer-XL
``_rel_shift``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from posviz.encodings.attention import content_scores, toy_normal
from posviz.i18n import _

VARIANTS = ("masked", "unmasked", "rel_shift")


@dataclass(frozen=True)
class SkewSteps:
    """Every intermediate of one skew, for display.

    Shapes for the ``masked`` variant (``L`` queries); see :func:`skew_steps`.
    """

    rel: torch.Tensor  # (..., L, W) input, W relative columns
    padded: torch.Tensor  # (..., L, W + 1) one zero column added
    reshaped: torch.Tensor  # (..., R, C) the same memory read with another row length
    sliced: torch.Tensor  # (..., L, K) the result, indexed by key


def _check_square(rel_logits: torch.Tensor) -> int:
    if rel_logits.dim() < 2:
        raise ValueError(
            _("The skew needs (..., L, L) relative logits; got shape {shape}.").format(shape=tuple(rel_logits.shape))
        )
    length, width = rel_logits.shape[-2:]
    if length != width:
        raise ValueError(
            _(
                "The masked skew needs one relative column per query ((L, L)); got ({length}, {width}). "
                "Use the unmasked variant for 2L - 1 columns."
            ).format(length=length, width=width)
        )
    return length


def skew_steps(rel_logits: torch.Tensor) -> SkewSteps:
    """The masked skew, step by step (tensor2tensor ``..._masked``).

    Args:
        rel_logits: (..., L, L), column ``c`` = relative position ``c - (L-1)``.

    Returns:
        padded (..., L, L + 1), reshaped (..., L + 1, L), sliced (..., L, L).
    """
    length = _check_square(rel_logits)
    padded = F.pad(rel_logits, (1, 0))  # one zero column on the left
    reshaped = padded.reshape(*rel_logits.shape[:-2], length + 1, length)
    sliced = reshaped[..., 1:, :]  # drop the first row
    return SkewSteps(rel=rel_logits, padded=padded, reshaped=reshaped, sliced=sliced)


def skew(rel_logits: torch.Tensor) -> torch.Tensor:
    """Music Transformer skew: ``(..., L, L)`` relative -> absolute, valid for ``j <= i``."""
    return skew_steps(rel_logits).sliced


def unskew(logits: torch.Tensor) -> torch.Tensor:
    """The inverse on the causal part (tensor2tensor ``_absolute_position_to_relative_position_masked``).

    Args:
        logits: (..., L, L) indexed by key.

    Returns:
        (..., L, L) indexed by relative column: ``out[i, j - i + L - 1] = logits[i, j]``
        for ``j <= i``; the other cells are undefined.
    """
    length = _check_square(logits)
    padded = F.pad(logits, (0, 0, 1, 0))  # one zero row on top: (..., L + 1, L)
    reshaped = padded.reshape(*logits.shape[:-2], length, length + 1)
    return reshaped[..., 1:]


def skew_unmasked_steps(rel_logits: torch.Tensor) -> SkewSteps:
    """The skew for ``2L - 1`` relative columns, every cell valid (tensor2tensor ``..._unmasked``).

    Args:
        rel_logits: (..., L, 2L - 1), column ``c`` = relative position ``c - (L-1)``.

    Returns:
        padded (..., L, 2L): one zero column on the right;
        reshaped (..., L + 1, 2L - 1): flattened, ``L - 1`` zeros appended, read in rows of ``2L - 1``;
        sliced (..., L, L): rows ``:L``, columns ``L - 1:``.
    """
    if rel_logits.dim() < 2 or rel_logits.shape[-1] != 2 * rel_logits.shape[-2] - 1:
        raise ValueError(
            _("The unmasked skew needs (..., L, 2L - 1) relative logits; got {shape}.").format(
                shape=tuple(rel_logits.shape)
            )
        )
    length = rel_logits.shape[-2]
    lead = rel_logits.shape[:-2]
    padded = F.pad(rel_logits, (0, 1))  # (..., L, 2L)
    flat = F.pad(padded.reshape(*lead, 2 * length * length), (0, length - 1))  # (..., (L + 1)(2L - 1))
    reshaped = flat.reshape(*lead, length + 1, 2 * length - 1)
    sliced = reshaped[..., :length, length - 1 :]
    return SkewSteps(rel=rel_logits, padded=padded, reshaped=reshaped, sliced=sliced)


def skew_unmasked(rel_logits: torch.Tensor) -> torch.Tensor:
    """``(..., L, 2L - 1)`` relative -> ``(..., L, L)``: ``out[i, j] = rel[i, j - i + L - 1]`` for all ``i, j``."""
    return skew_unmasked_steps(rel_logits).sliced


def rel_shift_steps(x: torch.Tensor) -> SkewSteps:
    """Transformer-XL ``_rel_shift`` on ``(q_len, k_len, ...)``, step by step.

    Keys are ``mem_len = k_len - q_len`` memory positions followed by the
    queries; column ``c`` of ``x`` holds the distance ``i - j = k_len - 1 - c``
    (``pos_seq`` runs from ``k_len - 1`` down to 0).

    Returns:
        padded (q_len, k_len + 1, ...): a zero column in front (``torch.cat``);
        reshaped (k_len + 1, q_len, ...): the ``view``;
        sliced (q_len, k_len, ...): ``x_padded[1:].view_as(x)``, where
        ``out[i, j] = x[i, j - i + q_len - 1]`` for keys ``j <= i + mem_len``.
    """
    if x.dim() < 2 or x.shape[1] < x.shape[0]:
        raise ValueError(
            _("_rel_shift needs (q_len, k_len, ...) with k_len >= q_len; got {shape}.").format(shape=tuple(x.shape))
        )
    zero_pad = torch.zeros((x.size(0), 1, *x.size()[2:]), dtype=x.dtype, device=x.device)
    padded = torch.cat([zero_pad, x], dim=1)
    reshaped = padded.view(x.size(1) + 1, x.size(0), *x.size()[2:])
    sliced = reshaped[1:].view_as(x)
    return SkewSteps(rel=x, padded=padded, reshaped=reshaped, sliced=sliced)


def rel_shift(x: torch.Tensor, *, zero_triu: bool = False) -> torch.Tensor:
    """Transformer-XL ``_rel_shift``; ``zero_triu`` zeroes keys past ``i + mem_len`` as the original does."""
    out = rel_shift_steps(x).sliced
    if zero_triu:
        keep = torch.tril(torch.ones(x.size(0), x.size(1)), x.size(1) - x.size(0))
        out = out * keep.view(*keep.shape, *([1] * (x.dim() - 2))).to(out.dtype)
    return out


def relative_gather(
    q: torch.Tensor, er: torch.Tensor, *, mem_len: int = 0, both_ways: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    """The direct computation the skew replaces: ``q_i . Er[j - i + L - 1]``, pair by pair.

    Args:
        q: (L, d) queries, at positions ``mem_len .. mem_len + L - 1``.
        er: (W, d) relative embeddings. Left-only: row ``W - 1 - t`` is distance
            ``i - j = t`` (``W = L + mem_len``). Both ways: ``W = 2L - 1`` rows for
            relative positions ``-(L-1) .. L-1``.
        mem_len: memory keys before the first query (left-only).
        both_ways: ``er`` also has rows for future keys (the unmasked skew).

    Returns:
        ``(scores, valid)``: (L, K) float with ``K = L + mem_len``, and the (L, K)
        bool of pairs that have a row in ``er`` (0 where not valid).
    """
    length = q.shape[0]
    keys = length + mem_len
    i = torch.arange(length)[:, None] + mem_len  # absolute query positions
    j = torch.arange(keys)[None, :]
    row = j - i + length - 1 if both_ways else er.shape[0] - 1 - (i - j)  # (L, K) row of er per pair
    valid = (row >= 0) & (row < er.shape[0])
    picked = er[row.clamp(0, er.shape[0] - 1)]  # (L, K, d): the O(L^2 d) way, for checking
    scores = (picked * q[:, None, :]).sum(-1)
    return scores.masked_fill(~valid, 0.0), valid


def relative_embeddings_left(table: torch.Tensor, length: int) -> torch.Tensor:
    """The ``L`` rows of ``Er`` a sequence of ``length`` uses (tensor2tensor ``get_relative_embeddings_left``).

    Args:
        table: (M, d), row ``M - 1`` = distance 0, row 0 = distance ``M - 1``.
        length: ``L``.

    Returns:
        (L, d): the last ``L`` rows when ``L <= M``; otherwise the table with
        ``L - M`` zero rows in front, so pairs farther than ``M - 1`` add 0
        (unlike Shaw's clipping, which repeats the edge row).
    """
    rows = table.shape[0]
    pad = max(length - rows, 0)
    start = max(rows - length, 0)
    return F.pad(table, (0, 0, pad, 0))[start : start + length]


def skew_embeddings(rows: int, dim: int, *, generator: torch.Generator) -> torch.Tensor:
    """A relative embedding table ``Er`` as tensor2tensor initialises it: normal with std ``dim ** -0.5``.

    Returns:
        (rows, dim) float32.
    """
    return torch.randn(rows, dim, generator=generator) * dim**-0.5


def skew_er_bytes(length: int, dim: int, *, device: str = "meta") -> int:
    """Bytes of the ``Er`` the skew needs, ``(L, dim)``, from the real tensor (``meta``: not allocated)."""
    table = torch.zeros(length, dim, device=device)
    return relative_embeddings_left(table, length).untyped_storage().nbytes()


def skew_steps_for(variant: str, rel_logits: torch.Tensor) -> SkewSteps:
    """The steps of ``variant`` in :data:`VARIANTS` on a 2-D input."""
    if variant == "masked":
        return skew_steps(rel_logits)
    if variant == "unmasked":
        return skew_unmasked_steps(rel_logits)
    if variant == "rel_shift":
        return rel_shift_steps(rel_logits)
    raise ValueError(
        _("variant must be one of {variants}; got {variant}.").format(
            variants=", ".join(VARIANTS), variant=repr(variant)
        )
    )


def cell_sources(variant: str, rows: int, cols: int) -> SkewSteps:
    """Where every cell of every step comes from: the same steps run on cell ids.

    Returns:
        SkewSteps of int64 ids ``i * cols + c`` of the input cell ``(i, c)``;
        ``-1`` for a zero that the padding put there.
    """
    ids = torch.arange(1, rows * cols + 1, dtype=torch.float64).reshape(rows, cols)
    steps = skew_steps_for(variant, ids)  # exact in float64: ids stay whole numbers
    as_ids = {name: getattr(steps, name).long() - 1 for name in ("rel", "padded", "reshaped", "sliced")}
    return SkewSteps(**as_ids)


def skew_er_rows(variant: str, seq_len: int, mem_len: int = 0) -> int:
    """Rows of the ``Er`` that ``variant`` reads: ``L`` looking back (masked), ``2L - 1`` both ways
    (unmasked), ``L + mem_len`` with Transformer-XL's memory (``rel_shift``; the others have none)."""
    if variant == "unmasked":
        return 2 * seq_len - 1
    return seq_len + (mem_len if variant == "rel_shift" else 0)


def skew_toy(seq_len: int, dim: int, *, seed: int, variant: str, mem_len: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Toy queries ``(L, dim)`` (standard normal, generator ``seed + 1``) and ``Er (rows, dim)``
    (:func:`skew_embeddings`, generator ``seed``; rows from :func:`skew_er_rows`)."""
    er = skew_embeddings(skew_er_rows(variant, seq_len, mem_len), dim, generator=torch.Generator().manual_seed(seed))
    q = toy_normal(seq_len, dim, generator=torch.Generator().manual_seed(seed + 1))
    return q, er


@dataclass(frozen=True)
class SkewWalkthrough:
    """One skew run on toy data, checked against the direct gather."""

    steps: SkewSteps  # rel (L, W), padded, reshaped, sliced (L, K)
    sources: SkewSteps  # int64, the same shapes: where each cell came from (:func:`cell_sources`)
    gather: torch.Tensor  # (L, K) the direct q_i . Er[...], 0 where not valid
    valid: torch.Tensor  # (L, K) bool: the pairs Er has a row for
    valid_pairs: int  # how many
    max_diff: float  # largest |skew - gather| on the valid pairs (float32 rounding)


def skew_walkthrough(seq_len: int, dim: int, *, seed: int, variant: str, mem_len: int = 0) -> SkewWalkthrough:
    """The skew of ``variant`` on :func:`skew_toy`'s ``rel = Q Er^T``, step by step, and its check.

    ``mem_len`` counts for ``rel_shift`` only (memory keys before the first query).
    The gather builds ``(L, K, dim)``: the ``O(L^2 d)`` way, for checking.
    """
    memory = mem_len if variant == "rel_shift" else 0
    q, er = skew_toy(seq_len, dim, seed=seed, variant=variant, mem_len=memory)
    steps = skew_steps_for(variant, content_scores(q, er))  # rel = Q Er^T
    gather, valid = relative_gather(q, er, mem_len=memory, both_ways=variant == "unmasked")
    diff = (steps.sliced - gather).abs()[valid]
    return SkewWalkthrough(
        steps=steps,
        sources=cell_sources(variant, seq_len, er.shape[0]),
        gather=gather,
        valid=valid,
        valid_pairs=int(valid.sum()),
        max_diff=float(diff.max()) if diff.numel() else 0.0,
    )

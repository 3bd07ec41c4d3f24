"""The skew page's cached views: settings (or a narrower key) in, arrays out."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from posviz.encodings.attention import content_scores, logits_bytes, toy_normal
from posviz.encodings.shaw import shaw_relations_bytes
from posviz.encodings.skew import (
    SkewSteps,
    cell_sources,
    relative_gather,
    skew_embeddings,
    skew_er_bytes,
    skew_steps_for,
)
from posviz.ui.cache import cached_view
from posviz.ui.skew.settings import ALLOCATE_UP_TO, MEMORY_LENGTHS, BytesKey, SkewKey


def toy_q_er(k: SkewKey) -> tuple[torch.Tensor, torch.Tensor]:
    """Queries ``(L, dim)`` (generator ``seed + 1``) and ``Er (er_rows, dim)`` (generator ``seed``).

    ``Er`` is drawn as tensor2tensor initialises it, normal with std ``dim ** -0.5``;
    its row ``c`` holds relative position ``c - (L - 1)`` (``i - j = er_rows - 1 - c``
    for Transformer-XL).
    """
    er = skew_embeddings(k.er_rows, k.dim, generator=torch.Generator().manual_seed(k.seed))
    q = toy_normal(k.seq_len, k.dim, generator=torch.Generator().manual_seed(k.seed + 1))
    return q, er


@dataclass(frozen=True)
class SkewView:
    steps: SkewSteps  # numpy arrays: rel, padded, reshaped, sliced
    sources: SkewSteps  # numpy int64: where each cell came from (-1: a padded zero)
    gather: np.ndarray  # (L, K) the direct q_i . Er[...] (0 where not valid)
    valid: np.ndarray  # (L, K) bool
    max_diff: float  # largest |skew - gather| on the valid entries


def _numpy(steps: SkewSteps) -> SkewSteps:
    return SkewSteps(**{k: getattr(steps, k).numpy() for k in ("rel", "padded", "reshaped", "sliced")})


@cached_view(max_entries=64)
def skew_view(k: SkewKey) -> SkewView:
    q, er = toy_q_er(k)
    steps = skew_steps_for(k.variant, content_scores(q, er))  # rel = Q Er^T
    gather, valid = relative_gather(q, er, mem_len=k.memory, both_ways=k.variant == "unmasked")
    diff = (steps.sliced - gather).abs()[valid]
    return SkewView(
        steps=_numpy(steps),
        sources=_numpy(cell_sources(k.variant, k.seq_len, k.er_rows)),
        gather=gather.numpy(),
        valid=valid.numpy(),
        max_diff=float(diff.max()) if diff.numel() else 0.0,
    )


@dataclass(frozen=True)
class MemoryView:
    lengths: np.ndarray
    shaw_r: np.ndarray  # bytes of R (L, L, dim)
    skew_er: np.ndarray  # bytes of Er (L, dim)
    logits: np.ndarray  # bytes of the (L, L) logits both need
    allocated: np.ndarray  # bool: really allocated and measured (else the meta device)


@cached_view
def memory_view(k: BytesKey) -> MemoryView:
    """Bytes of Shaw's ``R`` against the skew's ``Er`` for ``MEMORY_LENGTHS``, from the real operations."""
    rows = []
    for n in MEMORY_LENGTHS:
        device = "cpu" if n * n * k.dim * 4 <= ALLOCATE_UP_TO else "meta"
        logits = logits_bytes(n, n, device=device)
        rows.append(
            (shaw_relations_bytes(n, n, k.dim, clip=n, device=device), skew_er_bytes(n, k.dim, device=device), logits)
        )
    r, er, lg = (np.array(col) for col in zip(*rows, strict=True))
    allocated = np.array([n * n * k.dim * 4 <= ALLOCATE_UP_TO for n in MEMORY_LENGTHS])
    return MemoryView(np.array(MEMORY_LENGTHS), r, er, lg, allocated)

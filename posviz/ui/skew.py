"""The skew page's settings and its cached backend calls (keyed by scalars)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st
import torch

from posviz.encodings.shaw import shaw_relations_bytes
from posviz.encodings.skew import SkewSteps, cell_sources, relative_gather, skew_er_bytes, skew_steps_for
from posviz.ui.controls import control

MAX_SEQ_LEN = 512  # every cell of every step is drawn: 512 x 513 cells per figure
MAX_DIM = 256
MEMORY_LENGTHS = tuple(2**p for p in range(4, 15))  # 16 .. 16384
ALLOCATE_UP_TO = 64 * 2**20  # bytes: below this the memory chart allocates the tensors for real
CACHE = 64


@dataclass(frozen=True)
class SkewSettings:
    """Everything that determines the skew page's tensors."""

    seq_len: int = 8
    dim: int = 64
    seed: int = 0
    variant: str = "masked"
    mem_len: int = 3
    colour: str = "distance"

    @property
    def memory(self) -> int:
        """Memory keys in front of the queries: only Transformer-XL has them."""
        return self.mem_len if self.variant == "rel_shift" else 0

    @property
    def er_rows(self) -> int:
        """Rows of ``Er``: ``L`` looking back, ``2L - 1`` both ways, ``k_len`` with a memory."""
        if self.variant == "unmasked":
            return 2 * self.seq_len - 1
        return self.seq_len + self.memory


DEFAULTS = SkewSettings()


def skew_controls() -> SkewSettings:
    """The sidebar controls of the skew page, in reading order."""
    st.sidebar.subheader("Sequence")
    seq_len = control("seq_len", max_value=MAX_SEQ_LEN, default=DEFAULTS.seq_len)
    dim = control("dim", max_value=MAX_DIM, default=DEFAULTS.dim)
    seed = control("seed")
    st.sidebar.subheader("Skew")
    variant = control("variant")
    mem_len = control("mem_len") if variant == "rel_shift" else DEFAULTS.mem_len
    colour = control("colour")
    return SkewSettings(seq_len=seq_len, dim=dim, seed=seed, variant=variant, mem_len=mem_len, colour=colour)


def toy_q_er(s: SkewSettings) -> tuple[torch.Tensor, torch.Tensor]:
    """Queries ``(L, dim)`` (generator ``seed + 1``) and ``Er (er_rows, dim)`` (generator ``seed``).

    ``Er`` is drawn as tensor2tensor initialises it, normal with std ``dim ** -0.5``;
    its row ``c`` holds relative position ``c - (L - 1)`` (``i - j = er_rows - 1 - c``
    for Transformer-XL).
    """
    er = torch.randn(s.er_rows, s.dim, generator=torch.Generator().manual_seed(s.seed)) * s.dim**-0.5
    q = torch.randn(s.seq_len, s.dim, generator=torch.Generator().manual_seed(s.seed + 1))
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


@st.cache_data(max_entries=CACHE, show_spinner=False)
def skew_view(seq_len: int, dim: int, seed: int, variant: str, mem_len: int) -> SkewView:
    s = SkewSettings(seq_len=seq_len, dim=dim, seed=seed, variant=variant, mem_len=mem_len)
    q, er = toy_q_er(s)
    steps = skew_steps_for(variant, q @ er.T)
    gather, valid = relative_gather(q, er, mem_len=s.memory, both_ways=variant == "unmasked")
    diff = (steps.sliced - gather).abs()[valid]
    return SkewView(
        steps=_numpy(steps),
        sources=_numpy(cell_sources(variant, seq_len, s.er_rows)),
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


@st.cache_data(max_entries=CACHE, show_spinner=False)
def memory_view(dim: int) -> MemoryView:
    """Bytes of Shaw's ``R`` against the skew's ``Er`` for ``MEMORY_LENGTHS``, from the real operations."""
    rows = []
    for n in MEMORY_LENGTHS:
        device = "cpu" if n * n * dim * 4 <= ALLOCATE_UP_TO else "meta"
        logits = torch.empty(n, n, device=device).untyped_storage().nbytes()
        rows.append(
            (shaw_relations_bytes(n, n, dim, clip=n, device=device), skew_er_bytes(n, dim, device=device), logits)
        )
    r, er, lg = (np.array(col) for col in zip(*rows, strict=True))
    allocated = np.array([n * n * dim * 4 <= ALLOCATE_UP_TO for n in MEMORY_LENGTHS])
    return MemoryView(np.array(MEMORY_LENGTHS), r, er, lg, allocated)

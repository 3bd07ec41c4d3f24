"""Sinusoidal absolute positions (Vaswani et al. 2017, "Attention Is All You
Need", section 3.5) and, for contrast, a learned absolute table (BERT, GPT).

``PE(p, 2k) = sin(p theta_k)``, ``PE(p, 2k + 1) = cos(p theta_k)`` with
``theta_k = base ** (-2k / dim)``, added to the token embeddings. Two layouts:
    interleaved   ``[sin_0, cos_0, sin_1, cos_1, ...]``: the paper
    concat        ``[sin_0, sin_1, ..., cos_0, cos_1, ...]``: Transformer-XL
                  (tensor2tensor and fairseq also space the frequencies with
                  ``dim/2 - 1`` instead of ``dim/2``)
They are a fixed permutation of each other (:func:`concat_permutation`).

Since ``sin a sin b + cos a cos b = cos(a - b)``, ``PE(p) . PE(p + r) =
sum_k cos(r theta_k)`` depends on ``r`` only, and ``|PE(p)|^2 = dim / 2``.
Angles are computed in float64, so phases stay exact at large positions.

Notation: ``p`` position; ``k`` frequency index ``0 .. dim/2 - 1``; ``r`` distance.
"""

from __future__ import annotations

import math

import torch

from posviz.encodings.checks import check_base, check_even_dim, check_layout
from posviz.i18n import N_, _

LAYOUTS = ("interleaved", "concat")
LEARNED_STD = 0.02  # BERT's and GPT-2's initializer_range: nn.Embedding weights ~ N(0, 0.02^2)
PAIRS = N_("sin and cos come in pairs")  # why dim is even (the checks' message, in the run's language)


def sinusoidal_inv_freq(dim: int, *, base: float = 10000.0) -> torch.Tensor:
    """Angular frequency of each sin/cos pair, ``theta_k = base ** (-2k / dim)``.

    Returns:
        (dim/2,) float64, from 1 (k = 0) down to ``base ** (-(dim - 2) / dim)``.
    """
    check_even_dim(dim, why=_(PAIRS))
    check_base(base)
    return 1.0 / base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)


def sinusoidal_table(
    positions: torch.Tensor,
    dim: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    dtype: torch.dtype = torch.float32,
) -> torch.Tensor:
    """The sinusoidal encoding of each position.

    Args:
        positions: (n,) positions (integers or floats).
        dim: even model dimension.
        base: 10000 in the paper.
        layout: ``"interleaved"`` (sin at even, cos at odd components) or
            ``"concat"`` (every sin, then every cos).

    Returns:
        (n, dim) ``dtype`` in ``[-1, 1]``; each row has norm ``sqrt(dim / 2)``.
    """
    check_layout(layout, LAYOUTS)
    if positions.dim() != 1:
        raise ValueError(f"positions must be 1-D (n,), got shape {tuple(positions.shape)}.")
    inv_freq = sinusoidal_inv_freq(dim, base=base)  # (dim/2,)
    angles = positions.to(torch.float64)[:, None] * inv_freq[None, :]  # (n, dim/2)
    sin, cos = torch.sin(angles), torch.cos(angles)
    if layout == "concat":
        return torch.cat([sin, cos], dim=-1).to(dtype)  # (n, dim): every sin, then every cos
    return torch.stack([sin, cos], dim=-1).flatten(-2).to(dtype)  # (n, dim/2, 2) -> (n, dim)


def concat_permutation(dim: int) -> torch.Tensor:
    """``perm`` with ``table_concat == table_interleaved[:, perm]``.

    Returns:
        (dim,) int64, ``[0, 2, ..., dim - 2, 1, 3, ..., dim - 1]``: every sin, then every cos.
    """
    check_even_dim(dim, why=_(PAIRS))
    return torch.cat([torch.arange(0, dim, 2), torch.arange(1, dim, 2)])


def sinusoidal_similarity(distances: torch.Tensor, dim: int, *, base: float = 10000.0) -> torch.Tensor:
    """``PE(p) . PE(p + r)`` in closed form, ``sum_k cos(r theta_k)``: the same for every ``p`` and both layouts.

    Args:
        distances: (r,) distances (any sign: the profile is even).

    Returns:
        (r,) float64, ``dim / 2`` at ``r = 0``.
    """
    inv_freq = sinusoidal_inv_freq(dim, base=base)  # (dim/2,)
    return torch.cos(distances.to(torch.float64)[:, None] * inv_freq[None, :]).sum(-1)  # (r,)


def sinusoidal_similarity_from(
    start: int, distances: torch.Tensor, dim: int, *, base: float = 10000.0, layout: str = "interleaved", length: int
) -> torch.Tensor:
    """``PE(start) . PE(start + r)`` measured from the table, NaN where ``start + r`` is past a sequence of ``length``.

    Equals :func:`sinusoidal_similarity` up to rounding wherever it is defined.

    Returns:
        (r,) float64.
    """
    ends = sinusoidal_table(  # (1 + r, dim): row 0 at start, then start + r
        torch.cat([torch.tensor([start]), start + distances]), dim, base=base, layout=layout, dtype=torch.float64
    )
    dots = ends[1:] @ ends[0]  # (r,)
    return torch.where(start + distances <= length - 1, dots, torch.nan)


def sinusoidal_wavelengths(dim: int, *, base: float = 10000.0) -> torch.Tensor:
    """``2 pi / theta_k``: tokens per full period of each pair.

    Returns:
        (dim/2,) float64, from 2 pi to about 2 pi base.
    """
    return 2 * math.pi / sinusoidal_inv_freq(dim, base=base)


def sinusoidal_component_wavelengths(
    components: torch.Tensor, dim: int, *, base: float = 10000.0, layout: str = "interleaved"
) -> torch.Tensor:
    """Tokens per period, ``2 pi base^(2k / dim)``, of each component: its pair ``k`` depends on the layout.

    Args:
        components: (c,) component indices in ``0 .. dim - 1``.

    Returns:
        (c,) float64.
    """
    check_layout(layout, LAYOUTS)
    check_even_dim(dim, why=_(PAIRS))
    check_base(base)
    comps = components.to(torch.int64)
    pair = comps // 2 if layout == "interleaved" else comps % (dim // 2)  # (c,)
    return 2 * math.pi * base ** (2.0 * pair.to(torch.float64) / dim)


def sinusoidal_unfinished_pairs(length: int, dim: int, *, base: float = 10000.0) -> int:
    """How many pairs do not complete one period within ``length`` tokens (wavelength above ``length``)."""
    return int((sinusoidal_wavelengths(dim, base=base) > length).sum())


def sinusoidal_profile_gap(
    starts: tuple[int, ...],
    distances: torch.Tensor,
    dim: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    length: int,
) -> float:
    """``max |PE(p) . PE(p + r) - sum_k cos(r theta_k)|`` over the ``starts`` p and the distances (r,) that stay
    inside a sequence of ``length``: how far the table's dot products are from the closed form (0 if none is inside).
    """
    closed = sinusoidal_similarity(distances, dim, base=base)  # (r,)
    gap = 0.0
    for p in starts:
        dots = sinusoidal_similarity_from(p, distances, dim, base=base, layout=layout, length=length)  # (r,)
        inside = ~torch.isnan(dots)
        if inside.any():
            gap = max(gap, float((dots - closed)[inside].abs().max()))
    return gap


def learned_table(
    num_positions: int, dim: int, *, generator: torch.Generator, std: float = LEARNED_STD
) -> torch.Tensor:
    """A learned absolute table as at initialisation (BERT ``position_embeddings``, GPT-2 ``wpe``).

    Both initialise ``nn.Embedding(max_position_embeddings, hidden_size)`` from
    ``N(0, initializer_range^2)`` with ``initializer_range = 0.02``. Positions
    ``>= num_positions`` have no row: the model cannot take longer inputs.

    Returns:
        (num_positions, dim) float32.
    """
    if num_positions < 1:
        raise ValueError(f"num_positions must be at least 1, got {num_positions}.")
    if dim < 1:
        raise ValueError(f"dim must be at least 1, got {dim}.")
    if not std > 0:
        raise ValueError(f"std must be positive, got {std}.")
    return torch.randn(num_positions, dim, generator=generator) * std

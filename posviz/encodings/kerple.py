"""KERPLE (Chi et al. 2022, "KERPLE: Kernelized Relative Positional Embedding for Length Extrapolation").

Each head adds a learned, conditionally positive definite kernel of the distance to its logits, after
the ``1 / sqrt(d)`` scaling. Semantics follow ``chijames/KERPLE``, ``megatron/mpu/layers.py``:

    log kernel    (ParallelKerpleLog)    b_h[i, j] = -p_h log(1 + a_h (i - j))
    power kernel  (ParallelKerplePower)  b_h[i, j] = -a_h (i - j) ** p_h

on the causal distance ``tril(i - j)`` (0 above the diagonal, where the causal mask applies anyway). The
names swap between the two: in the log kernel ``p`` multiplies and ``a`` sits inside the log; in the
power kernel ``a`` multiplies and ``p`` is the exponent. The reference clamps both to at least 0.01
(and the exponent to at most 2) inside ``forward``; here a value outside that range is refused.

Notation: ``h`` head, ``i`` query, ``j`` key; biases are ``(heads, q_len, k_len)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from posviz.i18n import _

if TYPE_CHECKING:
    from posviz.encodings.compare import Toy

EPS = 0.01  # the reference's lower clamp of every parameter
MAX_POWER = 2.0  # the power kernel's exponent stays conditionally positive definite up to 2
COMPARE_HEADS, COMPARE_HEAD = 8, 0  # the compare page's: the first of 8 heads, the log kernel


def causal_distance(q_pos: torch.Tensor, k_pos: torch.Tensor) -> torch.Tensor:
    """``max(i - j, 0)``: the reference's ``tril(i - j)``.

    Returns:
        (q_len, k_len) float64.
    """
    return (q_pos.to(torch.float64)[:, None] - k_pos.to(torch.float64)[None, :]).clamp(min=0)


def _parameters(name: str, values: torch.Tensor, *, high: float | None = None) -> torch.Tensor:
    values = torch.as_tensor(values, dtype=torch.float64).reshape(-1)
    if not torch.isfinite(values).all() or (values < EPS).any() or (high is not None and (values > high).any()):
        if high is not None:
            message = _("KERPLE's {name} must be from {low} to {high} for every head (the reference clamps it there).")
        else:
            message = _("KERPLE's {name} must be at least {low} for every head (the reference clamps it there).")
        raise ValueError(message.format(name=name, low=EPS, high=high))
    return values


def kerple_log_bias(q_pos: torch.Tensor, k_pos: torch.Tensor, *, p: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    """The log kernel ``-p_h log(1 + a_h (i - j))``.

    Args:
        q_pos, k_pos: (q_len,), (k_len,) positions.
        p, a: (heads,) each head's multiplier ``p`` and its scale inside the log ``a``, each >= 0.01.

    Returns:
        (heads, q_len, k_len) float64; 0 on and above the diagonal.
    """
    p, a = _parameters("p", p), _parameters("a", a)
    if p.shape != a.shape:
        raise ValueError(_("p and a need one value per head each, got {p} and {a}.").format(p=p.numel(), a=a.numel()))
    d = causal_distance(q_pos, k_pos)[None]
    return -p[:, None, None] * torch.log1p(a[:, None, None] * d)


def kerple_power_bias(q_pos: torch.Tensor, k_pos: torch.Tensor, *, a: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    """The power kernel ``-a_h (i - j) ** p_h``.

    Args:
        q_pos, k_pos: (q_len,), (k_len,) positions.
        a: (heads,) each head's multiplier, >= 0.01; p: (heads,) its exponent, from 0.01 to 2.

    Returns:
        (heads, q_len, k_len) float64; 0 on and above the diagonal.
    """
    a, p = _parameters("a", a), _parameters("p", p, high=MAX_POWER)
    if p.shape != a.shape:
        raise ValueError(_("a and p need one value per head each, got {a} and {p}.").format(a=a.numel(), p=p.numel()))
    d = causal_distance(q_pos, k_pos)[None]
    return -a[:, None, None] * d ** p[:, None, None]


def kerple_parameters(heads: int, *, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Illustrative parameters drawn as the reference initialises them: ``p ~ U(0, 2)``, ``a ~ U(0, 1)``,
    clamped to at least 0.01.

    Returns:
        ``(p, a)``, (heads,) float64 each.
    """
    if isinstance(heads, bool) or not isinstance(heads, int) or heads < 1:
        raise ValueError(_("heads must be a whole number of at least 1, got {heads!r}.").format(heads=heads))
    p = (2 * torch.rand(heads, generator=generator, dtype=torch.float64)).clamp(min=EPS)
    a = torch.rand(heads, generator=generator, dtype=torch.float64).clamp(min=EPS)
    return p, a


def compare_run(t: Toy) -> tuple[torch.Tensor, list[torch.Tensor]]:
    """The compare page's run: head ``COMPARE_HEAD`` of ``COMPARE_HEADS``' log kernel, its ``p`` and ``a`` drawn by
    :func:`kerple_parameters` from the toy's seed (as the KERPLE page draws them with that seed and 8 heads),
    added to the scaled content scores. Causal only: the kernel reads ``max(i - j, 0)``.

    Returns:
        logits (L, L) float64, and what it built: ``[p, a]`` (heads,) and the bias (heads, L, L).
    """
    p, a = kerple_parameters(COMPARE_HEADS, generator=torch.Generator().manual_seed(t.s.seed))
    bias = kerple_log_bias(t.pos, t.pos, p=p, a=a)  # (heads, L, L)
    return t.content + bias[COMPARE_HEAD], [p, a, bias]

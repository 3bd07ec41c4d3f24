"""Argument checks shared by the schemes built on sin/cos pairs (sinusoidal, RoPE).

Each raises ``ValueError`` with a sentence a user can act on.
"""

from __future__ import annotations

import math
import numbers

from posviz.i18n import _


def check_even_dim(dim: int, *, why: str) -> None:
    """``dim`` is a whole number, even and at least 2; ``why`` says what comes in pairs."""
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral) or dim < 2 or dim % 2:
        raise ValueError(
            _("{why}: dim must be an even whole number of at least 2, got {dim}.").format(why=why, dim=repr(dim))
        )


def check_base(base: float) -> None:
    """The frequencies ``base ** (-2k / dim)`` fall from the first pair to the last only for ``base > 1``."""
    if not math.isfinite(base) or base <= 1:
        raise ValueError(
            _(
                "base must be a finite number greater than 1, got {base}: with base <= 1 the pairs do not "
                "slow down from first to last (10000 in the papers, 500000 in Llama 3)."
            ).format(base=base)
        )


def check_layout(layout: str, allowed: tuple[str, ...]) -> None:
    """``layout`` is one of ``allowed`` (each scheme names its own layouts)."""
    if layout not in allowed:
        raise ValueError(
            _("layout must be one of {allowed}, got {layout}.").format(allowed=allowed, layout=repr(layout))
        )

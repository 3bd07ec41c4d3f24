"""Settings objects: one frozen dataclass per scheme, read from URL-bound controls.

A scheme declares its settings once::

    @dataclass(frozen=True)
    class T5Settings:
        q_len: int = setting(Q_LEN, section="Sequence")
        num_buckets: int = setting(NUM_BUCKETS, section="Buckets")
        head: int = setting(HEAD, bounds=lambda v: (0, v["heads"] - 1), when=lambda v: v["heads"] > 1)

Each field names its URL parameter (:class:`posviz.ui.params.Param`), so its
default is written once, in the parameter or as this page's own default.
:func:`read_settings` draws the controls in field order and returns the
object; the page hands each figure function the plain values it depends on.
Shared machinery: this module knows no scheme.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, field, fields
from typing import Any, TypeVar

import streamlit as st

from posviz.i18n import _
from posviz.ui.controls import control
from posviz.ui.params import Param, narrowed

T = TypeVar("T")
Values = Mapping[str, Any]  # the values read so far, by field name


def setting(
    param: Param,
    *,
    default: Any = MISSING,
    options: tuple[str, ...] | None = None,
    section: str | None = None,
    bounds: Callable[[Values], tuple[float, float]] | tuple[float | None, float | None] | None = None,
    when: Callable[[Values], bool] | None = None,
) -> Any:
    """A settings field bound to the URL key ``param.key``.

    Args:
        param: the parameter (label, kind, range, help, and the default unless ``default`` is given).
        default: this page's default when it differs from the parameter's (``seq_len`` is 8 on the
            skew walk-through and 16384 on RoPE's curves).
        options: this page's choices when it offers fewer than the parameter.
        section: a sidebar subheader drawn before this field.
        bounds: ``(lo, hi)`` narrowing the parameter's range (None keeps a side), or a function of the
            fields read before this one (``head < heads``).
        when: the control is drawn only when this is true of the fields read before; otherwise the
            field keeps its default (RoPE's YaRN options appear only for YaRN).
    """
    p = narrowed(param, default=None if default is MISSING else default, options=options)
    return field(default=p.default, metadata={"param": p, "section": section, "bounds": bounds, "when": when})


def params_of(cls: type) -> dict[str, Param]:
    """Field name -> the parameter behind it (with this settings class's default and options)."""
    return {f.name: f.metadata["param"] for f in fields(cls) if "param" in f.metadata}


def read_settings(cls: type[T], *, where: Any = None) -> T:
    """Draw every field's control (in field order, in the sidebar) and return the settings."""
    where = st.sidebar if where is None else where
    values: dict[str, Any] = {}
    for f in fields(cls):
        meta = f.metadata
        if "param" not in meta:
            continue
        if meta["when"] is not None and not meta["when"](values):
            values[f.name] = f.default
            continue
        if meta["section"]:
            where.subheader(_(meta["section"]))
        lo, hi = None, None
        if meta["bounds"] is not None:
            lo, hi = meta["bounds"](values) if callable(meta["bounds"]) else meta["bounds"]
        p: Param = meta["param"]
        values[f.name] = control(p, min_value=lo, max_value=hi, where=where)
    return cls(**values)

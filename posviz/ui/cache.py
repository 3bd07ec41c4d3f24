"""The process-wide caches: a figure function or a table function, keyed by the function and its arguments.

A class opening one link builds each figure once per process. The key is the function (Streamlit keys a
cache by the function's module, name and source) and its plain keyword arguments (numbers, strings,
tuples, bytes), so no page declares a key by hand and a figure can only be reused for exactly the
arguments it was built from.

A text a figure or table shows is in the run's language (:mod:`posviz.i18n`): both caches key by the
language too, and compute under it.

Both caches are bounded per function (``max_entries``), so memory stays flat under many sessions.
Figures (:func:`chart`) are shared (``st.cache_resource``): a :class:`posviz.figures.chart.Chart` is
never mutated, and its JSON and CSV are made once. Tables and numbers (:func:`data`) are copied out
(``st.cache_data``): a page may not change another session's values.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

from posviz.figures.chart import Chart
from posviz.i18n import current, use

D = TypeVar("D")

VIEW_ENTRIES = 16  # per table function: a few views of each page, shared by every session
FIGURE_ENTRIES = 16  # per figure function: specs are a few hundred KB


def _in_language(fn: Callable[..., D]) -> Callable[..., D]:
    """``fn`` with one more argument, ``posviz_lang``: the language its texts are made in (part of the key).

    ``functools.wraps`` gives the wrapper ``fn``'s module, name and (through ``__wrapped__``) source,
    which is what Streamlit keys a cached function by: one cache per figure function, as before.
    """

    @functools.wraps(fn)
    def run(posviz_lang: str, **arguments: Any) -> D:
        with use(posviz_lang):
            return fn(**arguments)

    return run


@functools.cache
def _shared(fn: Callable[..., Chart], max_entries: int) -> Callable[..., Chart]:
    """``fn`` behind one process-wide bounded cache (Streamlit keys it by the function's module, name and source)."""
    return st.cache_resource(max_entries=max_entries, show_spinner=False)(_in_language(fn))


def chart(fn: Callable[..., Chart], /, *, max_entries: int = FIGURE_ENTRIES, **arguments: Any) -> Chart:
    """``fn(**arguments)``: a figure function of :mod:`posviz.figures`, built once per process for exactly
    these arguments in this run's language, and shared by every session (never mutated)."""
    return _shared(fn, max_entries)(posviz_lang=current(), **arguments)


@functools.cache
def _copied(fn: Callable[..., Any], max_entries: int) -> Callable[..., Any]:
    return st.cache_data(max_entries=max_entries, show_spinner=False)(_in_language(fn))


def data(fn: Callable[..., D], /, *, max_entries: int = VIEW_ENTRIES, **arguments: Any) -> D:
    """``fn(**arguments)`` (arrays or a table a page shows beside its figures), computed once per process for
    these arguments in this run's language; each caller gets its own copy."""
    return _copied(fn, max_entries)(posviz_lang=current(), **arguments)

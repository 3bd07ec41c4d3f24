"""Process-wide caches for views and figures, keyed by their arguments.

A class opening one link computes each view and builds each figure once per
process. The keys are the arguments themselves (settings objects, their
projections, lecture mode, the bytes of an edited table), hashed as
``st.cache_data`` hashes them, so no page declares a key by hand and a figure
can only be reused for exactly the arguments it was built from.

Both caches are bounded per function (``max_entries``), so memory stays flat
under many sessions. Views are copied out of the cache (``st.cache_data``): a
page may not corrupt another session's arrays. Figures are shared
(``st.cache_resource``): nothing mutates them, and ``st.plotly_chart`` copies
a ``go.Figure`` without validating it again (a spec dict would be revalidated
on every rerun, tens of milliseconds for a large heatmap). A cached figure is
converted once: its arrays are stored as ``to_dict()`` encodes them, so a rerun
copies strings and does not encode the arrays again.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, TypeVar

import plotly.graph_objects as go
import streamlit as st
import torch

from posviz.figures.chart import Chart as FigureChart
from posviz.figures.plotly_private import figure_of

F = TypeVar("F", bound=Callable[..., Any])

VIEW_ENTRIES = 16  # per view function: a few views of each page, shared by every session
FIGURE_ENTRIES = 16  # per figure function: specs are a few hundred KB


def cached_view(fn: F | None = None, *, max_entries: int = VIEW_ENTRIES) -> F:
    """Cache a view: settings in, arrays out. Use as ``@cached_view`` or ``@cached_view(max_entries=4)``."""
    if fn is None:
        return functools.partial(cached_view, max_entries=max_entries)  # type: ignore[return-value]
    return st.cache_data(max_entries=max_entries, show_spinner=False)(fn)


D = TypeVar("D")


def numpy_fields(obj: D) -> D:
    """A dataclass of tensors (a backend result) with each tensor field as a numpy array.

    A view returns it this way when it keeps many arrays: every cache read unpickles the
    view, and numpy arrays unpickle about ten times faster than tensors (1.3 against 0.14 ms
    for the T5 page's nine 128 x 128 steps). Readers use ``np.asarray`` or ``as_array``.
    """
    tensors = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}  # type: ignore[arg-type]
    return dataclasses.replace(obj, **{k: v.numpy() for k, v in tensors.items() if isinstance(v, torch.Tensor)})


@dataclasses.dataclass(frozen=True)
class Chart:
    """A figure and its CSV: what one cached figure function returns.

    ``csv`` builds the CSV text from the arrays it closes over (the arrays stay with the
    cached figure; no second cached view needed). A cached figure function builds it at most
    once per view: :func:`cached_figure` makes it remember its text.
    """

    figure: go.Figure
    csv: Callable[[], str] | None = None


def _once(csv: Callable[[], str] | None) -> Callable[[], str] | None:
    """``csv``, remembering its text after the first call (shared by every session showing the view)."""
    return None if csv is None else functools.cache(csv)


def cached_figure(fn: F | None = None, *, max_entries: int = FIGURE_ENTRIES) -> F:
    """Cache a figure builder's result, keyed by every argument it was called with.

    ``fn(*args, **kwargs)`` returns a ``go.Figure`` or a :class:`Chart`; the cached
    function returns the same (shared, never mutated) result, the figure's arrays
    encoded once, to every caller with the same arguments. ``fn.uncached`` builds
    without the cache.
    Each decorated function has its own bounded cache (Streamlit makes the
    function's module, name and source part of the key).
    """
    if fn is None:
        return functools.partial(cached_figure, max_entries=max_entries)  # type: ignore[return-value]

    @functools.wraps(fn)
    def encoded(*args: Any, **kwargs: Any) -> go.Figure | Chart:
        out = fn(*args, **kwargs)
        if isinstance(out, Chart):
            return Chart(figure_of(out.figure.to_dict()), _once(out.csv))
        return figure_of(out.to_dict())

    cached = st.cache_resource(max_entries=max_entries, show_spinner=False)(encoded)
    cached.uncached = fn  # type: ignore[attr-defined]
    return cached  # type: ignore[return-value]


@functools.cache
def _shared(fn: Callable[..., FigureChart], max_entries: int) -> Callable[..., FigureChart]:
    """``fn`` behind one process-wide bounded cache (Streamlit keys it by the function's module, name and source)."""
    return st.cache_resource(max_entries=max_entries, show_spinner=False)(fn)


def chart(fn: Callable[..., FigureChart], /, *, max_entries: int = FIGURE_ENTRIES, **arguments: Any) -> FigureChart:
    """``fn(**arguments)``: a figure function of :mod:`posviz.figures`, built once per process for exactly
    these arguments and shared by every session (never mutated)."""
    return _shared(fn, max_entries)(**arguments)


@functools.cache
def _copied(fn: Callable[..., Any], max_entries: int) -> Callable[..., Any]:
    return st.cache_data(max_entries=max_entries, show_spinner=False)(fn)


def data(fn: Callable[..., D], /, *, max_entries: int = VIEW_ENTRIES, **arguments: Any) -> D:
    """``fn(**arguments)`` (arrays or a table a page shows beside its figures), computed once per process for
    these arguments; each caller gets its own copy."""
    return _copied(fn, max_entries)(**arguments)

"""Process-wide caches for views and figures, keyed by their arguments.

A class opening one link computes each view and builds each figure once per
process. The keys are the arguments themselves (settings objects, their
projections, lecture mode, the bytes of an edited table), hashed as
``st.cache_data`` hashes them, so no page declares a key by hand and a figure
can only be reused for exactly the arguments it was built from.

Both caches are bounded per function (``max_entries``), so memory stays flat
under many sessions. Views are copied out of the cache (``st.cache_data``): a
page may not corrupt another session's arrays. Figure specs are shared
(``st.cache_resource``): they are plain dicts that nothing mutates.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import plotly.graph_objects as go
import streamlit as st

F = TypeVar("F", bound=Callable[..., Any])

VIEW_ENTRIES = 16  # per view function: a few views of each page, shared by every session
FIGURE_ENTRIES = 16  # per figure function: specs are a few hundred KB


def cached_view(fn: F | None = None, *, max_entries: int = VIEW_ENTRIES) -> F:
    """Cache a view: settings in, arrays out. Use as ``@cached_view`` or ``@cached_view(max_entries=4)``."""
    if fn is None:
        return functools.partial(cached_view, max_entries=max_entries)  # type: ignore[return-value]
    return st.cache_data(max_entries=max_entries, show_spinner=False)(fn)


def figure_spec(fig: go.Figure | dict) -> dict:
    """The plain spec of a figure (what the browser receives)."""
    return fig if isinstance(fig, dict) else fig.to_dict()


def cached_figure(fn: F | None = None, *, max_entries: int = FIGURE_ENTRIES) -> F:
    """Cache a figure builder's spec, keyed by every argument it was called with.

    ``fn(*args, **kwargs)`` returns a ``go.Figure`` (or a spec dict); the cached
    function returns the spec dict. ``fn.uncached`` builds without the cache.
    Each decorated function has its own bounded cache (``functools.wraps`` keeps
    its name and source, which Streamlit makes part of the key).
    """
    if fn is None:
        return functools.partial(cached_figure, max_entries=max_entries)  # type: ignore[return-value]

    @functools.wraps(fn)
    def spec(*args: Any, **kwargs: Any) -> dict:
        return figure_spec(fn(*args, **kwargs))

    cached = st.cache_resource(max_entries=max_entries, show_spinner=False)(spec)
    cached.uncached = fn  # type: ignore[attr-defined]
    return cached  # type: ignore[return-value]

"""A chart: one figure's Plotly spec and the CSV of what it draws.

Every figure of posviz is one function of plain keyword arguments (numbers, strings,
tuples, ``lecture``) that returns a :class:`Chart`; the app caches each such function
by its arguments (:func:`posviz.ui.cache.chart`), and a notebook calls it directly::

    from posviz.figures import alibi
    alibi.slopes(heads=12)  # shows in Jupyter; .figure() is a plotly go.Figure

No Streamlit here.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.io.json import to_json_plotly

from posviz.figures.plotly_private import encoded_spec, figure_of, plain_spec


@dataclass(frozen=True, eq=False)
class Chart:
    """A figure spec (``{"data", "layout", "frames"}`` with arrays encoded as Plotly's ``to_dict`` encodes
    them) and its CSV.

    Shared by every session that shows the same view and never mutated: its JSON and its CSV text are
    made at most once.
    """

    spec: Mapping[str, Any]
    make_csv: Callable[[], str] | None = field(default=None, repr=False)

    @classmethod
    def of(cls, figure: go.Figure | Mapping[str, Any], csv: Callable[[], str] | None = None) -> Chart:
        """A chart of ``figure`` (a ``go.Figure`` or a plain spec), converted once."""
        plain = plain_spec(figure)  # a finished figure whose view was never built: its spec, not to_dict()
        if plain is None and isinstance(figure, go.Figure):
            spec = figure.to_dict()
        else:
            spec = encoded_spec(typed_arrays(dict(figure if plain is None else plain)))
        return cls(spec, None if csv is None else functools.cache(csv))

    @functools.cached_property
    def json(self) -> str:
        """The spec as JSON, arrays as base64 typed arrays (what the browser's Plotly reads).

        Written straight from the spec, which is already what ``to_dict`` makes: ``pio.to_json`` would
        build a figure of it and convert it back first, two deep copies of every array (about 4 ms of
        a new view's 9 for a grid of eight panels).
        """
        return to_json_plotly(self.spec)

    def csv(self) -> str | None:
        """The CSV of the data drawn, or None when the figure has none."""
        return None if self.make_csv is None else self.make_csv()

    def figure(self) -> go.Figure:
        """The chart as a ``plotly.graph_objects.Figure`` (for ``.show()``, ``.write_html()`` ...)."""
        return figure_of(dict(self.spec))

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> dict[str, Any]:
        """Jupyter shows a chart as its figure."""
        return self.figure()._repr_mimebundle_(include, exclude, **kwargs)

    def _ipython_display_(self) -> None:
        """Jupyter shows a chart as its figure, with Plotly's own renderer."""
        self.figure()._ipython_display_()


# Plotly.js's typed arrays (its JSON format for a numeric array): numpy's dtype name -> the short name.
TYPED = {
    "int8": "i1",
    "uint8": "u1",
    "int16": "i2",
    "uint16": "u2",
    "int32": "i4",
    "uint32": "u4",
    "float32": "f4",
    "float64": "f8",
}
UNTYPED_KEYS = frozenset({"geojson", "layer", "layers", "range"})  # values Plotly leaves as they are
_NARROWER = (np.int8, np.int16, np.int32)  # an int64 array is sent as the first of these that holds it


def typed_arrays(spec: Any) -> Any:
    """``spec`` with its containers copied and each plain numeric array under a dict key written as Plotly's
    typed array (``{"dtype", "bdata", "shape"}``), as ``to_dict`` writes it; anything else left as it is.

    Plotly encodes each array through generic array handling (about 40 µs an array, most of a new
    /compare view's 100 arrays' encoding); these arrays need none of it. What is left (another dtype,
    an empty or a non-native array) is encoded by :func:`encoded_spec` as before, so the result is the
    same either way (``tests/figures/test_chart.py``).
    """
    if isinstance(spec, dict):
        return {
            k: v if k in UNTYPED_KEYS else _typed(v) if type(v) is np.ndarray else typed_arrays(v)
            for k, v in spec.items()
        }
    if isinstance(spec, list):
        return [typed_arrays(v) for v in spec]
    if isinstance(spec, tuple):
        return tuple(typed_arrays(v) for v in spec)
    return spec


def _typed(a: np.ndarray) -> np.ndarray | dict[str, str]:
    """``a`` (any shape) as a typed array, or ``a`` itself when Plotly's own encoding should take it."""
    if a.size == 0 or not a.dtype.isnative:
        return a
    if a.dtype == np.int64:
        low, high = a.min(), a.max()
        narrower = next((t for t in _NARROWER if np.iinfo(t).min <= low and high <= np.iinfo(t).max), None)
        if narrower is None:
            return a
        a = a.astype(narrower)
    short = TYPED.get(a.dtype.name)
    if short is None:
        return a
    typed = {"dtype": short, "bdata": base64.b64encode(np.ascontiguousarray(a)).decode("ascii")}
    if a.ndim > 1:
        typed["shape"] = str(a.shape)[1:-1]
    return typed

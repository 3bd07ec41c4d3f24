"""A chart: one figure's Plotly spec and the CSV of what it draws.

Every figure of posviz is one function of plain keyword arguments (numbers, strings,
tuples, ``lecture``) that returns a :class:`Chart`; the app caches each such function
by its arguments (:func:`posviz.ui.cache.chart`), and a notebook calls it directly::

    from posviz.figures import alibi
    alibi.slopes(heads=12)  # shows in Jupyter; .figure() is a plotly go.Figure

No Streamlit here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import plotly.graph_objects as go
from plotly.io.json import to_json_plotly

from posviz.figures.plotly_private import encoded_spec, figure_of


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
        spec = figure.to_dict() if isinstance(figure, go.Figure) else encoded_spec(dict(figure))
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

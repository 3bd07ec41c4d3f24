"""The one place posviz touches a Plotly private: a figure made from a spec without validating it again.

The figure builders write every trace and layout as plain data, exactly as Plotly's
validators would leave it (``tests/figures/test_plain_specs.py`` and
``tests/app/test_specs.py`` check that with the validators). Building a ``go.Figure``
from such a spec through the validators costs 3 to 5 ms a figure, more than the
rest of a cached page's rerun; ``go.Figure(spec, _validate=False)`` (a private
argument of Plotly's ``BaseFigure``) takes it as it is, in well under 1 ms.

``tests/figures/test_plotly_private.py`` fails if Plotly drops the argument or
starts to change a spec built this way.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

import plotly.graph_objects as go
from _plotly_utils.utils import convert_to_base64


def figure_of(spec: dict[str, Any]) -> go.Figure:
    """``go.Figure(spec)`` for a spec Plotly's validators accept as it is (``data``, ``layout``, ``frames``)."""
    return go.Figure(spec, _validate=False)


_build_lock = threading.Lock()


class SpecFigure(go.Figure):
    """A ``go.Figure`` kept as its spec (plain data) until something reads its object view.

    What :func:`posviz.figures.layout.finish` returns. A figure function of the app hands it to
    :meth:`posviz.figures.chart.Chart.of`, which encodes :attr:`spec` and never builds the view: building
    it (``go.Figure.__init__``, validation or not) and converting it back (``to_dict``, two deep copies of
    every array) cost more than the rest of a new view's figure, 20 ms and more for a grid of panels. A
    notebook or a test that reads the figure (``fig.layout``, ``fig.show()``) builds the view then, once;
    from then on the view is the figure and the spec is stale (:attr:`built`).
    """

    def __init__(self, spec: dict[str, Any]) -> None:
        # No go.Figure.__init__ yet: the object view is built on first use (__getattr__).
        object.__setattr__(self, "_posviz_spec", spec)

    def __getattr__(self, name: str) -> Any:
        # Reached only when normal lookup fails: before the view exists, none of its attributes do.
        if name.startswith("__") or "_data_objs" in self.__dict__:
            raise AttributeError(name)
        with _build_lock:
            if "_data_objs" not in self.__dict__:
                go.Figure.__init__(self, self._posviz_spec, _validate=False)
        return getattr(self, name)

    @property
    def spec(self) -> dict[str, Any]:
        """The plain data the figure was made from (stale once :attr:`built`)."""
        return self._posviz_spec

    @property
    def built(self) -> bool:
        """Whether the object view exists (then it, not the spec, is the figure)."""
        return "_data_objs" in self.__dict__


def lazy_figure(spec: dict[str, Any]) -> SpecFigure:
    """``figure_of(spec)``, built only when its object view is first read (:class:`SpecFigure`)."""
    return SpecFigure(spec)


def plain_spec(fig: Any) -> dict[str, Any] | None:
    """The plain data of a :class:`SpecFigure` whose view is not built, or None for any other figure."""
    return fig.spec if isinstance(fig, SpecFigure) and not fig.built else None


def encoded_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """``figure_of(spec).to_dict()`` without building the figure: what the page sends, made once.

    A figure built from the spec deep-copies every array, and ``to_dict`` copies them again before
    encoding them (about 5 ms for a grid of eight 32 x 32 panels, more than the rest of the grid's
    build). Here the containers are copied, the arrays encoded as ``to_dict`` encodes them (base64
    typed arrays; the arrays themselves are left as they were) and the layout gets the template the
    figure would have added. ``tests/figures/test_plotly_private.py`` checks it against ``to_dict``.
    """
    out = {key: _containers(value) for key, value in spec.items()}
    out.setdefault("data", [])
    layout = out.setdefault("layout", {})
    convert_to_base64(out)
    if "template" not in layout:
        layout["template"] = _default_template()  # shared by every spec: nothing mutates a sent spec
    return out


def _containers(value: Any) -> Any:
    """``value`` with every dict, list and tuple copied; leaves (arrays, strings, numbers) shared."""
    if isinstance(value, dict):
        return {k: _containers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_containers(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_containers(v) for v in value)
    return value


@functools.cache
def _default_template() -> dict[str, Any]:
    return figure_of({"data": [], "layout": {}}).to_dict()["layout"]["template"]

"""Figures frozen for serving: built once per process, then sent to every session that asks.

``st.plotly_chart`` turns a ``go.Figure`` into JSON on every rerun: it calls
``fig.to_dict()``, a deep copy that also encodes every numpy array to base64,
and then ``plotly.io.to_json``. A frozen figure did that conversion once, when
it was built: its ``to_dict()`` returns the stored spec (arrays already
``{"dtype", "bdata"}`` strings), so a rerun skips the copy and the encoding.

Serving reads nothing but ``to_dict()``, so a frozen figure builds its object
view (``.data``, ``.layout``, ...) only when something reads it: a notebook, a
test. Building it costs more than the whole rerun of a cached page (1 to 3 ms
a figure); freezing copies the builder's properties without ``deepcopy`` (the
builder's figure is dropped, and only containers are copied: arrays are
replaced, never changed). A figure the shared builders made as plain data
(:class:`posviz.figures.rebuild.SpecFigure`) is frozen straight from that data:
its object view is never built on the way to the browser.

What leans on other libraries' internals, and only here:

- Streamlit serialises a ``go.Figure`` through its ``to_dict()`` and reads
  nothing else of it;
- Streamlit turns that dict into JSON with ``plotly.io.to_json(spec, validate=False)``:
  :func:`_to_json` takes its place in ``plotly.io`` and answers a frozen spec
  (:class:`FrozenSpec`) with the JSON Plotly made of it the first time, so a
  rerun does not encode the same figure again (1.9 ms a run for ``/t5``'s
  four charts, measured alone);
- ``go.Figure.__init__(spec, _validate=False)`` (a private Plotly argument,
  through ``SpecFigure``) builds the object view of a stored spec; a figure
  keeps its properties in ``_data``, ``_layout`` and ``_frame_objs``,
  ``_plotly_utils.utils.convert_to_base64`` encodes arrays as ``to_dict()``
  does, and ``to_dict()`` adds the default template to a layout without one.

``tests/ui/test_frozen.py`` fails if any of these changes. The stored spec is
shared by every session: nothing may mutate a frozen figure or its ``to_dict()``.
"""

from __future__ import annotations

import functools
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio
from _plotly_utils.utils import convert_to_base64

from posviz.figures.rebuild import SpecFigure


class FrozenSpec(dict):
    """A frozen figure's spec: a dict that keeps the JSON Plotly made of it, once asked for."""

    __slots__ = ("json",)


_plotly_to_json = pio.to_json


def _to_json(
    fig: Any, validate: bool = True, pretty: bool = False, remove_uids: bool = True, engine: Any = None
) -> str:
    """``plotly.io.to_json``, which encodes a :class:`FrozenSpec` only once (for Streamlit's call only).

    Streamlit calls ``plotly.io.to_json(spec, validate=False)``; every other call is Plotly's own.
    """
    if type(fig) is not FrozenSpec or validate or pretty or not remove_uids or engine is not None:
        return _plotly_to_json(fig, validate=validate, pretty=pretty, remove_uids=remove_uids, engine=engine)
    text = getattr(fig, "json", None)
    if text is None:  # two sessions may both get here first: they compute the same string
        text = fig.json = _plotly_to_json(fig, validate=False)
    return text


pio.to_json = _to_json


class FrozenFigure(SpecFigure):
    """A ``go.Figure`` whose serialised spec is computed once. Read it; never mutate it."""

    def to_dict(self) -> dict[str, Any]:
        """The stored spec itself (shared: do not mutate it)."""
        return self._spec

    def to_plotly_json(self) -> dict[str, Any]:
        """The stored spec (what JSON encoders and ``plotly.io`` read)."""
        return self._spec


def _containers(value: Any) -> Any:
    """``value`` with every dict, list and tuple copied; leaves (arrays, strings, numbers) shared."""
    if isinstance(value, dict):
        return {k: _containers(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_containers(v) for v in value]
    return value


def spec_of(fig: go.Figure) -> dict[str, Any]:
    """``fig.to_dict()`` without its deep copy: the same dict, ``fig`` left as it was."""
    spec = {"data": _containers(fig._data), "layout": _containers(fig._layout)}
    frames = [_containers(frame._props) for frame in fig._frame_objs]
    if frames:
        spec["frames"] = frames
    convert_to_base64(spec)  # replaces arrays in the copied containers; the arrays themselves are untouched
    return spec


def plain_spec_of(fig: SpecFigure) -> dict[str, Any]:
    """What ``fig.to_dict()`` would be, straight from the plain data of a figure whose view is not built.

    As :func:`spec_of`, containers are copied and arrays encoded; the layout gets the
    default template as ``to_dict()`` adds it (one shared copy, after the encoding: it holds no arrays).
    """
    spec = fig.spec
    out = {"data": _containers(spec.get("data", [])), "layout": _containers(spec.get("layout", {}))}
    if spec.get("frames"):
        out["frames"] = _containers(spec["frames"])
    convert_to_base64(out)
    if "template" not in out["layout"] and pio.templates.default:
        out["layout"]["template"] = _template(pio.templates.default)
    return out


@functools.cache
def _template(name: str) -> dict[str, Any]:
    return pio.templates[name].to_plotly_json()


def freeze(fig: go.Figure) -> FrozenFigure:
    """``fig``'s spec, encoded once (``fig`` is left as it was)."""
    if isinstance(fig, FrozenFigure):
        return fig
    if isinstance(fig, SpecFigure) and not fig.built:
        return FrozenFigure(FrozenSpec(plain_spec_of(fig)))
    return FrozenFigure(FrozenSpec(spec_of(fig)))

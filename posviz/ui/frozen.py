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
replaced, never changed).

What leans on other libraries' internals, and only here:

- Streamlit serialises a ``go.Figure`` through its ``to_dict()`` and reads
  nothing else of it;
- ``go.Figure.__init__(spec, _validate=False)`` (a private Plotly argument)
  builds the object view of a spec that already came out of a validated
  figure; a figure keeps its properties in ``_data``, ``_layout`` and
  ``_frame_objs``, and ``_plotly_utils.utils.convert_to_base64`` encodes
  arrays as ``to_dict()`` does.

``tests/ui/test_frozen.py`` fails if any of these changes. The stored spec is
shared by every session: nothing may mutate a frozen figure or its ``to_dict()``.
"""

from __future__ import annotations

import threading
from typing import Any

import plotly.graph_objects as go
from _plotly_utils.utils import convert_to_base64

_build_lock = threading.Lock()  # sessions share frozen figures: one builds the object view


class FrozenFigure(go.Figure):
    """A ``go.Figure`` whose serialised spec is computed once. Read it; never mutate it."""

    def __init__(self, spec: dict[str, Any]) -> None:
        # No go.Figure.__init__ yet: the object view is built on first use (__getattr__).
        object.__setattr__(self, "_frozen_spec", spec)

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: before the object view exists, its attributes do not.
        if name.startswith("__") or "_data_objs" in self.__dict__:
            raise AttributeError(name)
        with _build_lock:
            if "_data_objs" not in self.__dict__:
                go.Figure.__init__(self, self._frozen_spec, _validate=False)  # as posviz.figures.rebuild
        return getattr(self, name)

    def to_dict(self) -> dict[str, Any]:
        """The stored spec itself (shared: do not mutate it)."""
        return self._frozen_spec

    def to_plotly_json(self) -> dict[str, Any]:
        """The stored spec (what JSON encoders and ``plotly.io`` read)."""
        return self._frozen_spec


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


def freeze(fig: go.Figure) -> FrozenFigure:
    """``fig``'s spec, encoded once (``fig`` is left as it was)."""
    if isinstance(fig, FrozenFigure):
        return fig
    return FrozenFigure(spec_of(fig))

"""Figures frozen for serving: built once per process, then sent to every session that asks.

``st.plotly_chart`` turns a ``go.Figure`` into JSON on every rerun: it calls
``fig.to_dict()``, a deep copy that also encodes every numpy array to base64,
and then ``plotly.io.to_json``. A frozen figure did that conversion once, when
it was built: its ``to_dict()`` returns the stored spec (arrays already
``{"dtype", "bdata"}`` strings), so a rerun skips the copy and the encoding.

Two things here lean on other libraries' internals, and only here:

- Streamlit serialises a ``go.Figure`` through its ``to_dict()``;
- ``go.Figure(spec, _validate=False)`` (a private Plotly argument) builds the
  object view of a spec that already came out of a validated figure, without
  validating it again (4 to 7 ms a figure).

``tests/ui/test_frozen.py`` fails if either changes. The stored spec is shared
by every session: nothing may mutate a frozen figure or its ``to_dict()``.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go


class FrozenFigure(go.Figure):
    """A ``go.Figure`` whose serialised spec is computed once. Read it; never mutate it."""

    def __init__(self, spec: dict[str, Any]) -> None:
        super().__init__(spec, _validate=False)  # as posviz.figures.rebuild.unvalidated
        self._frozen_spec = spec

    def to_dict(self) -> dict[str, Any]:
        """The stored spec itself (shared: do not mutate it)."""
        return self._frozen_spec


def freeze(fig: go.Figure) -> FrozenFigure:
    """``fig``'s spec, encoded once (``fig`` is left as it was)."""
    if isinstance(fig, FrozenFigure):
        return fig
    return FrozenFigure(fig.to_dict())

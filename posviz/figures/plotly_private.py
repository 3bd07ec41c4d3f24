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

from typing import Any

import plotly.graph_objects as go


def figure_of(spec: dict[str, Any]) -> go.Figure:
    """``go.Figure(spec)`` for a spec Plotly's validators accept as it is (``data``, ``layout``, ``frames``)."""
    return go.Figure(spec, _validate=False)

"""Bytes against sequence length: the figure every O(L^2) versus O(L) comparison uses."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from posviz.figures.data import as_array
from posviz.figures.layout import finish, look, subtitle_lines
from posviz.i18n import _


def human_bytes(n: float) -> str:
    """1536 -> '1.5 KiB'."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.3g} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def bytes_figure(
    lengths,
    series: dict[str, tuple[np.ndarray, np.ndarray]],
    *,
    title: str,
    subtitle: str | None = None,
    current: int | None = None,
    lecture: bool = False,
) -> go.Figure:
    """Bytes against sequence length on log-log axes, one line per tensor.

    Args:
        lengths: (n,) sequence lengths.
        series: name -> ``(bytes (n,), allocated (n,) bool)``; filled markers
            where a real tensor was allocated and measured, open ones where the
            same operation ran on PyTorch's ``meta`` device (sizes, no memory).
        current: a length to mark (the page's setting).
    """
    lk = look(lecture)
    lengths = as_array(lengths).astype(np.int64)
    fig = go.Figure()
    top = 1
    for name, (nbytes, allocated) in series.items():
        nbytes = as_array(nbytes).astype(np.float64)
        top = max(top, float(nbytes.max()))
        fig.add_trace(
            go.Scatter(
                x=lengths,
                y=nbytes,
                mode="lines+markers",
                name=name,
                line=dict(width=lk.line),
                marker=dict(
                    size=lk.font - 2,
                    symbol=["circle" if a else "circle-open" for a in as_array(allocated)],
                    line=dict(width=2),
                ),
                customdata=[human_bytes(b) for b in nbytes],
                hovertemplate=f"{name}<br>L = %{{x}}<br>%{{customdata}}<extra></extra>",
            )
        )
    ticks = [1024.0**p for p in range(0, 7) if 1024.0**p <= top * 4]
    fig.update_xaxes(type="log", title_text=_("sequence length L"))
    fig.update_yaxes(type="log", title_text=_("bytes"), tickvals=ticks, ticktext=[human_bytes(t) for t in ticks])
    # Log axes: ranges and annotations are in log10 units (shapes are not).
    fig.update_xaxes(range=[np.log10(lengths.min()) - 0.1, np.log10(lengths.max()) + 0.1])
    if current is not None:
        fig.add_vline(x=current, line=dict(dash="dot", color="#555"))
        fig.add_annotation(
            x=float(np.log10(current)),
            y=1.0,
            yref="paper",
            text=f"L = {current}",
            showarrow=False,
            xanchor="left",
            font_size=lk.font,
        )
    sub = subtitle_lines(subtitle, _("● allocated and measured here   ○ the same operation on PyTorch's meta device"))
    return finish(fig, title=title, subtitle=sub, lecture=lecture, height=int(lk.height * 0.9))

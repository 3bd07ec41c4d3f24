"""The ALiBi page's figures, cached process-wide by exactly the arguments they are built from.

The slopes figures depend on the number of heads only: moving ``seq_len`` or
``causal`` does not rebuild them.
"""

from __future__ import annotations

import plotly.graph_objects as go

from posviz.figures import alibi as fig
from posviz.ui.alibi.settings import AlibiSettings, ReceptiveKey, SlopesKey
from posviz.ui.alibi.views import bias_view, receptive_view, slopes_view
from posviz.ui.cache import cached_figure
from posviz.ui.exports import columns_csv


@cached_figure
def slopes(k: SlopesKey, lecture: bool) -> go.Figure:
    v = slopes_view(k)
    return fig.slopes_figure(v.slopes, closest=v.closest, lecture=lecture)


@cached_figure
def interleave(k: SlopesKey, lecture: bool) -> go.Figure:
    v = slopes_view(k)
    return fig.interleave_figure(v.base, v.doubled, v.extra, heads=k.heads, lecture=lecture)


@cached_figure
def bias_grid(s: AlibiSettings, lecture: bool) -> go.Figure:
    v = bias_view(s)
    return fig.bias_grid_figure(
        v.bias,
        heads_shown=v.heads_shown,
        slopes=v.slopes,
        q_pos=v.q_pos,
        k_pos=v.k_pos,
        seq_len=s.seq_len,
        causal=s.causal,
        heads=s.heads,
        lecture=lecture,
    )


@cached_figure
def receptive_field(k: ReceptiveKey, lecture: bool) -> go.Figure:
    v = receptive_view(k)
    return fig.receptive_field_figure(
        v.distances,
        v.weights,
        v.reach,
        heads_shown=v.heads_shown,
        slopes=v.slopes,
        seq_len=k.seq_len,
        lecture=lecture,
    )


def bias_csv(s: AlibiSettings) -> str:
    """The bias grid's data: one row per (head, query, key) shown."""
    v = bias_view(s)
    return columns_csv(
        {
            "head": [int(h) + 1 for h in v.heads_shown for _ in range(v.bias[0].size)],
            "query i": [int(i) for _ in v.heads_shown for i in v.q_pos for _ in v.k_pos],
            "key j": [int(j) for _ in v.heads_shown for _ in v.q_pos for j in v.k_pos],
            "bias": v.bias.ravel(),
        }
    )

"""The ALiBi page's figures, each with its CSV: one cached function per figure, keyed by exactly its arguments.

The slopes figures depend on the number of heads only: moving ``seq_len`` or
``causal`` does not rebuild them.
"""

from __future__ import annotations

from posviz.figures import alibi as fig
from posviz.ui.alibi.settings import AlibiSettings, ReceptiveKey, SlopesKey
from posviz.ui.alibi.views import bias_view, receptive_view, slopes_view
from posviz.ui.cache import Chart, cached_figure
from posviz.ui.exports import columns_csv


def _slopes_csv(k: SlopesKey) -> str:
    return columns_csv({"head": range(1, k.heads + 1), "slope": slopes_view(k).slopes})


@cached_figure
def slopes(k: SlopesKey, lecture: bool) -> Chart:
    v = slopes_view(k)
    return Chart(fig.slopes_figure(v.slopes, closest=v.closest, lecture=lecture), lambda: _slopes_csv(k))


@cached_figure
def interleave(k: SlopesKey, lecture: bool) -> Chart:
    v = slopes_view(k)
    figure = fig.interleave_figure(v.base, v.doubled, v.extra, heads=k.heads, lecture=lecture)
    return Chart(figure, lambda: _slopes_csv(k))


@cached_figure
def bias_grid(s: AlibiSettings, lecture: bool) -> Chart:
    v = bias_view(s)
    figure = fig.bias_grid_figure(
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
    return Chart(figure, lambda: bias_csv(s))


@cached_figure
def receptive_field(k: ReceptiveKey, lecture: bool) -> Chart:
    v = receptive_view(k)
    figure = fig.receptive_field_figure(
        v.distances,
        v.weights,
        v.reach,
        heads_shown=v.heads_shown,
        slopes=v.slopes,
        seq_len=k.seq_len,
        lecture=lecture,
    )
    columns = {"distance": v.distances, **{f"head {int(h) + 1}": v.weights[i] for i, h in enumerate(v.heads_shown)}}
    return Chart(figure, lambda: columns_csv(columns))


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

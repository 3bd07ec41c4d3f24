"""A real model's own kind of position, for the bias families: T5's distance buckets, ALiBi's head slopes.

Each function takes what identifies the model (``slug`` and ``upload``, as in :mod:`posviz.figures.model_layers`)
and its ``name`` for the title; the model must have T5 buckets (``t5_buckets``) or ALiBi (``alibi_slopes``).
"""

from __future__ import annotations

import numpy as np

from posviz.encodings.model_bias import bucket_profile, head_slopes
from posviz.encodings.model_load import read_model
from posviz.figures import alibi as alibi_fig
from posviz.figures import t5 as t5_fig
from posviz.figures.chart import Chart
from posviz.figures.common import look
from posviz.figures.csv import columns_csv
from posviz.figures.layout import retitle
from posviz.i18n import _


def t5_buckets(*, slug: str, upload: bytes | None = None, name: str, lecture: bool = False) -> Chart:
    """The encoder's bucket of each distance; the CSV has ``r = j - i`` and its bucket."""
    t = read_model(slug, upload).t5
    v = bucket_profile(t.num_buckets, t.max_distance)
    out = t5_fig.bucket_profile_figure(
        v.r, v.bucket, max_exact=v.max_exact, max_distance=t.max_distance, bidirectional=True, lecture=lecture
    )
    title = _("{model}: encoder bucket of each distance ({buckets} buckets)").format(model=name, buckets=t.num_buckets)
    retitle(out, title, lecture=lecture)
    room = look(lecture).font + 8  # the marks' labels sit above the plot: keep them off the subtitle
    out.update_layout(margin_t=out.layout.margin.t + room, height=out.layout.height + room)
    return Chart.of(out, lambda: columns_csv({"r = j - i": v.r, "bucket": v.bucket}))


def alibi_slopes(*, slug: str, upload: bytes | None = None, name: str, lecture: bool = False) -> Chart:
    """Each head's slope; the CSV has a row per head."""
    v = head_slopes(read_model(slug, upload).alibi.heads)
    out = alibi_fig.slopes_figure(v.slopes, closest=v.closest, lecture=lecture)
    retitle(out, _("{model}: the slopes of its {heads} heads").format(model=name, heads=len(v.slopes)), lecture=lecture)
    return Chart.of(out, lambda: columns_csv({"head": np.arange(1, len(v.slopes) + 1), "slope": v.slopes}))

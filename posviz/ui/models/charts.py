"""The models page's figures, each with its CSV, cached process-wide by exactly the arguments they are built from.

Each takes a key (or a shipped slug), ``lecture``, and ``upload``: the bytes of an uploaded
config.json when the slug is "" (an explicit extra argument, so an upload is part of the key).
Titles name the model, so they can run long: ``finish`` wraps them for the narrowest chart width.
"""

from __future__ import annotations

import numpy as np

from posviz.figures import alibi as alibi_fig
from posviz.figures import models as fig
from posviz.figures import t5 as t5_fig
from posviz.figures.common import look
from posviz.figures.csv import columns_csv
from posviz.figures.layout import retitle
from posviz.ui.cache import Chart, cached_figure
from posviz.ui.models.settings import MaskKey, ReachKey, RopeKey
from posviz.ui.models.views import alibi_view, load, mask_view, reach_view, rope_view, t5_view

TWO_PI = 2 * np.pi


@cached_figure(max_entries=48)
def strip(slug: str, lecture: bool, upload: bytes | None = None) -> Chart:
    m = load(slug, upload)
    figure = fig.layer_strip_figure(m.mp.layers, model=m.name, lecture=lecture)
    return Chart(figure, lambda: strip_csv(slug, upload))


@cached_figure(max_entries=48)
def inv_freq(k: RopeKey, group: int, lecture: bool, upload: bytes | None = None) -> Chart:
    g = rope_view(k, upload)[group]
    out = fig.inv_freq_figure(
        g.inv_freq,
        g.default,
        method=g.spec.rope_type,
        attention=" and ".join(g.kinds),
        model=load(k.slug, upload).name,
        other=g.other,
        other_name=g.other_name,
        lecture=lecture,
    )
    return Chart(out, lambda: rope_csv(k, group, upload))


@cached_figure(max_entries=48)
def wavelength(k: RopeKey, group: int, lecture: bool, upload: bytes | None = None) -> Chart:
    g = rope_view(k, upload)[group]
    out = fig.wavelength_figure(
        g.inv_freq,
        g.default,
        trained=g.spec.trained_context,
        extended=g.spec.extended_context,
        attention=" and ".join(g.kinds),
        model=load(k.slug, upload).name,
        lecture=lecture,
    )
    return Chart(out, lambda: rope_csv(k, group, upload))


@cached_figure(max_entries=48)
def masks(k: MaskKey, near: bool, lecture: bool, upload: bytes | None = None) -> Chart:
    """The strided view of keys 0 .. L, or (``near``) the window of keys just before L."""
    v = mask_view(k, upload)
    rows, keys = (v.near_masks, v.near_k) if near else (v.masks, v.k_pos)
    name = load(k.slug, upload).name
    out = fig.mask_figure(rows, keys, labels=list(v.labels), position=k.position, model=name, lecture=lecture)
    return Chart(out, lambda: mask_csv(k, near, upload))


@cached_figure(max_entries=48)
def reach(k: ReachKey, lecture: bool, upload: bytes | None = None) -> Chart:
    v = reach_view(k, upload)
    name = load(k.slug, upload).name
    out = fig.reach_figure(v.reach, v.layers, position=k.position, model=name, windowed=v.windowed, lecture=lecture)
    return Chart(out, lambda: reach_csv(k, upload))


@cached_figure(max_entries=32)
def t5_buckets(slug: str, lecture: bool, upload: bytes | None = None) -> Chart:
    v, t = t5_view(slug, upload), load(slug, upload).mp.t5
    out = t5_fig.bucket_profile_figure(
        v.r, v.bucket, max_exact=v.max_exact, max_distance=t.max_distance, bidirectional=True, lecture=lecture
    )
    name = load(slug, upload).name
    retitle(out, f"{name}: encoder bucket of each distance ({t.num_buckets} buckets)", lecture=lecture)
    room = look(lecture).font + 8  # the marks' labels sit above the plot: keep them off the subtitle
    out.update_layout(margin_t=out.layout.margin.t + room, height=out.layout.height + room)
    return Chart(out, lambda: t5_csv(slug, upload))


@cached_figure(max_entries=32)
def alibi_slopes(slug: str, lecture: bool, upload: bytes | None = None) -> Chart:
    v = alibi_view(slug, upload)
    out = alibi_fig.slopes_figure(v.slopes, closest=v.closest, lecture=lecture)
    retitle(out, f"{load(slug, upload).name}: the slopes of its {len(v.slopes)} heads", lecture=lecture)
    return Chart(out, lambda: alibi_csv(slug, upload))


# ---------------------------------------------------------------- the data behind each figure


def rope_csv(k: RopeKey, group: int, upload: bytes | None = None) -> str:
    g = rope_view(k, upload)[group]
    columns = {"pair k": np.arange(len(g.inv_freq)), "inv_freq": g.inv_freq, "unscaled inv_freq": g.default}
    with np.errstate(divide="ignore"):  # a pair that does not turn (inv_freq 0, e.g. Gemma 4's): wavelength inf
        columns |= {"wavelength (tokens)": TWO_PI / g.inv_freq, "unscaled wavelength": TWO_PI / g.default}
    if g.other is not None:
        columns[g.other_name] = g.other
    return columns_csv(columns)


def mask_csv(k: MaskKey, near: bool, upload: bytes | None = None) -> str:
    v = mask_view(k, upload)
    rows, keys = (v.near_masks, v.near_k) if near else (v.masks, v.k_pos)
    columns = {label: row.astype(np.int8) for label, row in zip(v.labels, rows, strict=True)}
    return columns_csv({"key j": keys, **columns})


def reach_csv(k: ReachKey, upload: bytes | None = None) -> str:
    v = reach_view(k, upload)
    columns = {"layers passed n": np.arange(len(v.reach)), "tokens back": v.reach}
    if v.windowed is not None:
        columns["tokens back, windowed layers alone"] = v.windowed
    return columns_csv(columns)


def strip_csv(slug: str, upload: bytes | None = None) -> str:
    layers = load(slug, upload).mp.layers
    return columns_csv(
        {
            "layer": np.arange(1, len(layers) + 1),
            "stack": [x.stack for x in layers],
            "attention": [x.attention for x in layers],
            "window": [x.window or 0 for x in layers],
            "rope": [int(x.rope) for x in layers],
            "causal": [int(x.causal) for x in layers],
        }
    )


def t5_csv(slug: str, upload: bytes | None = None) -> str:
    """The encoder bucket of each relative position drawn."""
    t5 = t5_view(slug, upload)
    return columns_csv({"r = j - i": t5.r, "bucket": t5.bucket})


def alibi_csv(slug: str, upload: bytes | None = None) -> str:
    """Each head's slope."""
    v = alibi_view(slug, upload)
    return columns_csv({"head": np.arange(1, len(v.slopes) + 1), "slope": v.slopes})

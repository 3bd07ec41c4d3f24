"""A real model's layers as charts: the layer strip, what one token attends to per layer kind, and reach.

Each function takes what identifies the model (``slug``: a shipped config, "" for an uploaded config.json or
a Hub id; ``upload``: the bytes of that config.json, None for a shipped one), its ``name`` for the titles,
and the figure's own numbers; it returns a :class:`Chart` with its CSV::

    from posviz.figures import model_layers
    model_layers.strip(slug="gemma-3-27b", name="gemma-3-27b")
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from posviz.encodings.model_load import read_model
from posviz.encodings.model_masks import KeyMasks, key_masks, mask_kinds, mask_label, reach_curves
from posviz.figures import models as fig
from posviz.figures.chart import Chart
from posviz.figures.csv import columns_csv
from posviz.i18n import DEFAULT, use


def strip(*, slug: str, upload: bytes | None = None, name: str, lecture: bool = False) -> Chart:
    """Every layer's attention kind and whether it has RoPE; the CSV has a row per layer."""
    layers = read_model(slug, upload).layers

    def csv() -> str:
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

    return Chart.of(fig.layer_strip_figure(layers, model=name, lecture=lecture), csv)


@lru_cache(maxsize=16)  # the strided and the near figure of one position share the masks
def _masks(slug: str, upload: bytes | None, position: int) -> KeyMasks:
    """The masks, their labels in English (the CSV's column names, in every language)."""
    with use(DEFAULT):
        return key_masks(read_model(slug, upload).layers, position)


def masks(
    *, slug: str, upload: bytes | None = None, name: str, position: int, near: bool = False, lecture: bool = False
) -> Chart:
    """The keys the token at ``position`` attends to per layer kind: strided over 0 .. L, or (``near``) near L."""
    v = _masks(slug, upload, position)
    rows, keys = (v.near_masks, v.near_k) if near else (v.masks, v.k_pos)
    labels = [mask_label(*kind) for kind in mask_kinds(read_model(slug, upload).layers)]  # in the run's language
    figure = fig.mask_figure(rows, keys, labels=labels, position=position, model=name, lecture=lecture)

    def csv() -> str:
        columns = {label: row.astype(np.int8) for label, row in zip(v.labels, rows, strict=True)}
        return columns_csv({"key j": keys, **columns})

    return Chart.of(figure, csv)


def reach(
    *, slug: str, upload: bytes | None = None, name: str, position: int, layers: int, lecture: bool = False
) -> Chart:
    """Tokens back reachable from ``position`` after each of the first ``layers`` layers."""
    v = reach_curves(read_model(slug, upload).layers[:layers], position)
    figure = fig.reach_figure(v.reach, v.layers, position=position, model=name, windowed=v.windowed, lecture=lecture)

    def csv() -> str:
        columns = {"layers passed n": np.arange(len(v.reach)), "tokens back": v.reach}
        if v.windowed is not None:
            columns["tokens back, windowed layers alone"] = v.windowed
        return columns_csv(columns)

    return Chart.of(figure, csv)

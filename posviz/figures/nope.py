"""The NoPE page's figures: one function of plain arguments per figure, each returning a :class:`Chart`."""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files

import numpy as np
import torch

from posviz.encodings.attention import toy_normal
from posviz.encodings.drope import attention_by_distance, rope_and_drope_attention, similar_tokens
from posviz.encodings.nope import (
    FLOOR_SCALE,
    NOPE_MODELS,
    llama4_query_scale,
    marker_attention,
    permutation_change,
    rotary_layers,
)
from posviz.encodings.positions import curve_positions
from posviz.encodings.rope import rope_inv_freq
from posviz.figures.chart import Chart
from posviz.figures.common import heatmap
from posviz.figures.csv import columns_csv, matrix_csv
from posviz.figures.layout import finish, look, number, subtitle_lines
from posviz.i18n import _

SHIPPED = {"llama4": "llama-4-scout", "smollm3": "smollm3-3b", "cohere2": "command-cohere2"}  # /models?model=
ROPE_COLOR, NOPE_COLOR = "#9467bd", "#7f7f7f"
NOISE = 0.3  # of the DroPE figure's similar tokens
LECTURE_TEXT_COLUMNS = 8  # in lecture mode, values are written into the cells of narrower matrices only


def marker(*, length: int, lecture: bool = False) -> Chart:
    """The causal mask alone counts: uniform attention onto a first-token marker gives ``1 / t``."""
    weights, out = marker_attention(length)
    pos = np.arange(length)
    figure = heatmap(
        weights.numpy().astype(np.float32),
        q_pos=pos,
        k_pos=pos,
        title=_("Equal scores under the causal mask: query t spreads 1/t over its keys"),
        subtitle=subtitle_lines(
            _("no position term anywhere; the value is 1 on the first token only (<bos>)"),
            _("so the output at position t is 1/t: 1, 1/2, … 1/{length}, a position a later layer can read").format(
                length=length
            ),
        ),
        value_name=_("weight"),
        lecture=lecture,
        zmin=0.0,
        zmax=1.0,
    )
    fig = figure.to_dict()
    if lecture and length > LECTURE_TEXT_COLUMNS:  # cells too narrow to read their values (the hover has them)
        for trace in fig["data"]:
            trace.pop("texttemplate", None)
    return Chart.of(fig, lambda: columns_csv({"position t (1-based)": pos + 1, "output 1/t": out.numpy()}))


def permutation(*, dim: int, seed: int, lecture: bool = False) -> Chart:
    """How much each token's output changes when the sentence is reversed, without and with the causal mask."""
    lk = look(lecture)
    length = 6
    # Scaled so a token's score with itself is about 1 at any dim (|x|^2 / sqrt(d) = 1): unscaled, at dim 512 each
    # token's own score wins the softmax outright and both bars look like 0.
    x = toy_normal(length, dim, generator=torch.Generator().manual_seed(seed)).double() / dim**0.25
    order = torch.arange(length - 1, -1, -1)
    free, masked = permutation_change(x, order, causal=False).numpy(), permutation_change(x, order, causal=True).numpy()
    tokens = [_("token {i}").format(i=i + 1) for i in range(length)]
    data = [
        {"type": "bar", "x": tokens, "y": y.astype(np.float32), "name": name, "marker": {"color": color},
         "hovertemplate": "%{x}: %{y:.3g}<extra>" + name + "</extra>"}
        for y, name, color in ((free, _("no mask"), NOPE_COLOR), (masked, _("causal mask"), ROPE_COLOR))
    ]  # fmt: skip
    layout = {
        "barmode": "group",
        "xaxis": {"title": {"text": _("token (the same vector wherever it stands)")}},
        "yaxis": {"title": {"text": _("largest change of its output")}},
    }
    figure = finish(
        {"data": data, "layout": layout},
        title=_("Reverse the sentence: what a model without positions can tell apart"),
        subtitle=subtitle_lines(
            _("without the mask no token's output changes (0, up to rounding): attention sees a set"),
            _("with the mask it changes: each token now sees a different set of predecessors"),
        ),
        lecture=lecture,
        height=int(lk.height * 0.8),
    )
    english = [f"token {i + 1}" for i in range(length)]  # the CSV's rows, as in every language
    return Chart.of(figure, lambda: columns_csv({"token": english, "no mask": free, "causal mask": masked}))


@cache
def _shipped(model_type: str) -> np.ndarray:
    text = (files("posviz") / "model_configs" / f"{SHIPPED[model_type]}.json").read_text(encoding="utf-8")
    return rotary_layers(json.loads(text)).numpy()


def layers(*, lecture: bool = False) -> Chart:
    """The layer strip of each shipped model with NoPE layers: which layers rotate, which have no position."""
    rows = [(NOPE_MODELS[m], _shipped(m)) for m in SHIPPED]
    width = max(len(r) for _name, r in rows)
    z = np.full((len(rows), width), np.nan, dtype=np.float32)
    for i, (_name, rotates) in enumerate(rows):
        z[i, : len(rotates)] = rotates.astype(np.float32)
    names = [name for name, _r in rows]
    data = [
        {
            "type": "heatmap",
            "z": z,
            "x": np.arange(width, dtype=np.int32),
            "y": names,
            "zmin": 0,
            "zmax": 1,
            "colorscale": [[0, NOPE_COLOR], [0.5, NOPE_COLOR], [0.5, ROPE_COLOR], [1, ROPE_COLOR]],
            "showscale": False,
            "xgap": 2,
            "ygap": 6,
            "hovertemplate": _("%{y}<br>layer %{x}: %{z}") + "<extra>" + _("1 = RoPE, 0 = no position") + "</extra>",
        }
    ]
    layout = {"xaxis": {"title": {"text": _("layer (0-based)")}}, "yaxis": {"autorange": "reversed"}}
    figure = finish(
        {"data": data, "layout": layout},
        title=_("Shipped models with NoPE layers: purple rotates, grey has no position term"),
        subtitle=subtitle_lines(
            _(
                "Llama 4 and SmolLM3: every 4th layer without RoPE (no_rope_layers, 1 = uses RoPE); "
                "Cohere2: its global layers"
            ),
            _("read from each config by transformers; open them on the Real models page"),
        ),
        lecture=lecture,
        height=int(look(lecture).height * 0.6),
    )
    return Chart.of(figure, lambda: matrix_csv(z, names, np.arange(width)))


def temperature(*, lecture: bool = False) -> Chart:
    """Llama 4's query temperature of its NoPE layers against position."""
    lk = look(lecture)
    t = curve_positions(10_000_000, dense=0, points=400, start=1)
    scale = llama4_query_scale(t).numpy()
    data = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": t.numpy().astype(np.int64),
            "y": scale.astype(np.float32),
            "name": _("query scale"),
            "line": {"width": lk.line, "color": NOPE_COLOR, "shape": "hv"},
            "hovertemplate": _("position %{x}<br>scale %{y:.4f}") + "<extra></extra>",
        }
    ]
    layout = {
        "xaxis": {"title": {"text": _("query position t (log)")}, "type": "log"},
        "yaxis": {"title": {"text": _("factor on q_t")}},
        "showlegend": False,
    }
    figure = finish(
        {"data": data, "layout": layout},
        title=_("Llama 4's NoPE layers sharpen far queries: 1 + 0.1·log(⌊(t + 1)/8192⌋ + 1)"),
        subtitle=subtitle_lines(
            _("1 below position {below}, then steps up every {floor} tokens; {last} at 10M").format(
                below=FLOOR_SCALE - 1, floor=FLOOR_SCALE, last=number(scale[-1], 4)
            ),
            _("without it, attention would flatten as more keys share one softmax"),
        ),
        lecture=lecture,
        height=int(lk.height * 0.8),
    )
    return Chart.of(figure, lambda: columns_csv({"position": t.numpy(), "scale": scale}))


def drope(*, dim: int, base: float, length: int, seed: int, lecture: bool = False) -> Chart:
    """Mean attention against distance of the same toy queries and keys, with RoPE and with RoPE dropped."""
    lk = look(lecture)
    g = torch.Generator().manual_seed(seed)
    x = similar_tokens(length, dim, noise=NOISE, generator=g)  # queries and keys alike: position decides
    with_rope, dropped = rope_and_drope_attention(x, x, inv_freq=rope_inv_freq(dim, base=base))
    rope_d, drop_d = attention_by_distance(with_rope).numpy(), attention_by_distance(dropped).numpy()
    r = np.arange(length)
    rope_name, drop_name = _("with RoPE"), _("dropped: cos = 1, sin = 0")
    data = [
        {"type": "scatter", "mode": "lines", "x": r[1:], "y": y[1:].astype(np.float32), "name": name,
         "line": {"width": lk.line, "color": color},
         "hovertemplate": _("distance %{x}<br>mean weight %{y:.3g}") + "<extra>" + name + "</extra>"}
        for y, name, color in ((rope_d, rope_name, ROPE_COLOR), (drop_d, drop_name, NOPE_COLOR))
    ]  # fmt: skip
    layout = {
        "xaxis": {"title": {"text": _("distance i − j (log)")}, "type": "log"},
        "yaxis": {"title": {"text": _("mean attention weight (log)")}, "type": "log"},
    }
    figure = finish(
        {"data": data, "layout": layout},
        title=_("DroPE: the same queries and keys, with RoPE and with it dropped"),
        subtitle=subtitle_lines(
            _("one token repeated with {noise:g} noise (seed {seed}), d = {dim}, {length} tokens").format(
                noise=NOISE, seed=seed, dim=dim, length=length
            ),
            _("with RoPE the near keys win; dropped, alike tokens share attention evenly"),
        ),
        lecture=lecture,
    )
    return Chart.of(figure, lambda: columns_csv({"distance": r, "with rope": rope_d, "dropped": drop_d}))


def compare_row(*, seq_len: int, dim: int, base: float, causal: bool) -> tuple[str, str, int, str]:
    """NoPE's row of the compare page's properties table."""
    stops = "never sees a distance; the causal mask lets it count its predecessors"
    return ("none: the causal mask only", "fixed", 0, stops)

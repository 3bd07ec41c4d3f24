"""Real-model figures: the data each one carries (trace types, shapes, dtypes, titles), not pixels."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest
import torch

from posviz.encodings.model_layers import attention_mask, reach_curve
from posviz.encodings.models import model_positions, shipped_models
from posviz.encodings.positions import display_positions
from posviz.figures.models import (
    CATEGORIES,
    inv_freq_figure,
    layer_strip_figure,
    mask_figure,
    reach_figure,
    wavelength_figure,
)

SHIPPED = shipped_models()


def mp_of(slug: str):
    return model_positions(SHIPPED[slug])


def legend_names(fig: go.Figure) -> list[str]:
    return [t.name for t in fig.data if t.type == "scatter" and t.x == (None,)]


def test_strip_of_61_layers():
    mp = mp_of("deepseek-v3")
    fig = layer_strip_figure(mp.layers, model="DeepSeek-V3")
    (heat,) = [t for t in fig.data if t.type == "heatmap"]
    z = np.asarray(heat.z)
    assert z.shape == (2, 61) and z.dtype == np.int8
    assert heat.x.dtype == np.int16 and list(heat.x[[0, -1]]) == [1, 61]
    assert set(z[0]) == {CATEGORIES.index("full")} and set(z[1]) == {CATEGORIES.index("RoPE")}  # all full, all RoPE
    assert "61 layers" in fig.layout.title.text
    assert legend_names(fig) == ["full: 61 layers", "RoPE: 61 layers"]
    assert heat.texttemplate is None  # too many layers to write in


def test_strip_shows_kinds_windows_and_nope():
    mp = mp_of("llama-4-scout")
    fig = layer_strip_figure(mp.layers, model="Llama 4 Scout", lecture=True)
    z = np.asarray(fig.data[0].z)
    nope = [i for i, x in enumerate(mp.layers) if not x.rope]
    assert [i for i in range(48) if z[1, i] == CATEGORIES.index("NoPE")] == nope
    assert [i for i in range(48) if z[0, i] == CATEGORIES.index("chunked")] == [i for i in range(48) if i not in nope]
    assert legend_names(fig) == [
        "full: 12 layers",
        "chunked (8k): 36 layers",
        "RoPE: 36 layers",
        "no position encoding (NoPE): 12 layers",
    ]
    assert fig.layout.font.size == 20  # lecture mode
    assert "layer 4 (decoder)<br>full attention" in fig.data[0].customdata[0][3]


def test_strip_writes_windows_when_few_layers_and_splits_encoder_decoder():
    gpt_oss = layer_strip_figure(mp_of("gpt-oss-20b").layers, model="gpt-oss-20b")
    assert list(gpt_oss.data[0].text[0][:2]) == ["128", ""]
    t5 = layer_strip_figure(mp_of("t5-base").layers, model="t5-base")
    assert any("encoder | decoder" in a.text for a in t5.layout.annotations)
    assert "bidirectional" in t5.data[0].customdata[0][0] and "bidirectional" not in t5.data[0].customdata[0][12]


def test_inv_freq_figure_against_default():
    mp = mp_of("llama-3.1-8b")
    spec = mp.rope_spec("full")
    inv, _ = mp.rope("full")
    fig = inv_freq_figure(inv, spec.default_inv_freq(), method="llama3", attention="full", model="Llama 3.1 8B")
    default, scaled = fig.data
    assert default.y.dtype == scaled.y.dtype == np.float32 and len(scaled.y) == 64
    np.testing.assert_allclose(scaled.y, inv.numpy().astype(np.float32))
    assert fig.layout.yaxis.type == "log"
    assert "inv_freq per pair, llama3 against unscaled RoPE" in fig.layout.title.text
    # llama3 factor 8: the slowest pair is divided by 8
    assert "divided by 8" in fig.layout.title.subtitle.text


def test_inv_freq_figure_longrope_other_set():
    mp = mp_of("phi-3.5-mini")
    spec = mp.rope_spec("full")
    short, _ = mp.rope("full", 4096)
    long, _ = mp.rope("full", 4097)
    fig = inv_freq_figure(
        long,
        spec.default_inv_freq(),
        method="longrope",
        attention="full",
        model="Phi-3.5",
        other=short,
        other_name="short factors (≤ 4,096 tokens)",
    )
    assert [t.name for t in fig.data] == [
        "unscaled (rope_theta alone)",
        "short factors (≤ 4,096 tokens)",
        "longrope (this model)",
    ]


def test_wavelength_figure_marks_pairs_that_never_turn():
    mp = mp_of("gpt-oss-20b")
    spec = mp.rope_spec("full")
    inv, _ = mp.rope("full")
    fig = wavelength_figure(inv, spec.default_inv_freq(), trained=4096, extended=131072, attention="full", model="x")
    wave = 2 * math.pi / inv.numpy()
    (slow,) = [t for t in fig.data if t.name == "never completes a turn"]
    assert list(slow.x) == list(np.flatnonzero(wave > 131072))
    assert {s.y0 for s in fig.layout.shapes} == {4096, 131072}
    assert f"{int((wave > 131072).sum())} of 32 pairs never complete a turn" in fig.layout.title.subtitle.text


def test_wavelength_figure_without_trained_context():
    mp = mp_of("gemma-3-4b")  # linear: only the extended context is known
    spec = mp.rope_spec("full")
    inv, _ = mp.rope("full")
    fig = wavelength_figure(
        inv,
        spec.default_inv_freq(),
        trained=spec.trained_context,
        extended=spec.extended_context,
        attention="full",
        model="Gemma 3 4B",
    )
    assert [s.y0 for s in fig.layout.shapes] == [131072]


def test_reach_figure():
    mp = mp_of("gemma-3-27b")
    curve = reach_curve(mp.layers, 100_000)
    windowed = reach_curve(mp.layers, 100_000, only=("sliding", "chunked"))
    fig = reach_figure(curve, mp.layers, position=100_000, model="Gemma 3 27B", windowed=windowed)
    allx, alone = fig.data
    assert list(allx.y[:7]) == [0, 1023, 2046, 3069, 4092, 5115, 100_000]  # the 6th layer is full
    assert alone.y[-1] == 52 * 1023  # 52 sliding layers of 1,024
    assert allx.y.dtype.kind == "i" and len(allx.x) == 63
    assert "everything after 6 layers" in fig.layout.title.subtitle.text
    assert "position 100,000" in fig.layout.title.text


@pytest.mark.parametrize("slug", ["gpt-oss-20b", "llama-4-scout", "mistral-7b"])
def test_mask_figure_rows_are_the_masks(slug):
    mp = mp_of(slug)
    position = 20_000
    k = display_positions(position + 1, 200)
    rows = []
    for kind in mp.kinds:
        window = next(x.window for x in mp.layers if x.attention == kind)
        rows.append(attention_mask(kind, window, torch.tensor([position]), k)[0])
    masks = torch.stack(rows)
    fig = mask_figure(masks, k, labels=list(mp.kinds), position=position, model=slug)
    (heat,) = fig.data
    assert np.asarray(heat.z).shape == (len(mp.kinds), len(k)) and heat.z.dtype == np.int8
    np.testing.assert_array_equal(heat.z, masks.numpy().astype(np.int8))
    assert "position 20,000" in fig.layout.title.text
    assert "Strided sample" in fig.layout.title.subtitle.text

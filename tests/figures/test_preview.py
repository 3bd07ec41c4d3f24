"""Still pictures of figures (posviz.figures.preview): colours as Plotly's, cells where Plotly draws them."""

from __future__ import annotations

import base64
import re
import zlib
from xml.dom import minidom

import numpy as np
import plotly.colors as pc
import pytest

from posviz.figures import common
from posviz.figures.preview import colormap, nice_ticks, preview
from posviz.ui.frozen import freeze


def _png_pixels(svg: str) -> np.ndarray:
    """The RGBA pixels of the first PNG in an SVG layer (PNG decoded here: filter types 0 and 2)."""
    data = base64.b64decode(re.search(r"data:image/png;base64,([A-Za-z0-9+/=]+)", svg).group(1))
    w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    idat = b"".join(
        data[i + 8 : i + 8 + int.from_bytes(data[i : i + 4], "big")]
        for i in _chunks(data)
        if data[i + 4 : i + 8] == b"IDAT"
    )
    rows = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + 4 * w)
    assert set(rows[:, 0]) <= {0, 2}, set(rows[:, 0])
    out = rows[:, 1:].astype(np.int64)
    for r in range(1, h):  # "Up": each byte plus the byte above it, modulo 256
        if rows[r, 0] == 2:
            out[r] = (out[r] + out[r - 1]) % 256
    return out.astype(np.uint8).reshape(h, w, 4)


def _chunks(data: bytes):
    i = 8
    while i < len(data):
        yield i
        i += 12 + int.from_bytes(data[i : i + 4], "big")


def test_colours_match_plotlys_own_colour_scale():
    scale = pc.get_colorscale("RdBu_r")
    z = np.linspace(-3.0, 5.0, 41)
    ours = colormap(z, scale, -3.0, 5.0)[:, :3]
    theirs = np.array([pc.unlabel_rgb(c) for c in pc.sample_colorscale(scale, list((z + 3) / 8))])
    assert np.abs(ours.astype(float) - theirs).max() <= 1.0
    assert colormap(np.array([np.nan]), scale, 0, 1)[0, 3] == 0  # a gap is transparent, as Plotly leaves it


def test_heatmap_cells_are_drawn_in_place_and_in_colour():
    # Rows of a reversed y axis run downwards: the picture's top row is query 0.
    z = np.arange(12, dtype=float).reshape(3, 4)
    fig = freeze(common.heatmap(z, q_pos=np.arange(3), k_pos=np.arange(4), title="t", value_name="v"))
    pic = preview(fig.to_dict())
    assert pic is not None
    pixels = _png_pixels(pic.ink)
    spec = fig.to_dict()["data"][0]
    scale = spec.get("colorscale") or fig.to_dict()["layout"]["coloraxis"]["colorscale"]
    expected = colormap(z, scale, 0.0, 11.0)
    assert pixels.shape == (3, 4, 4)
    assert np.array_equal(pixels, expected)


def test_uneven_columns_keep_their_widths():
    # A strided sample (every 3rd, plus the last): the last cell is drawn narrower, as Plotly does.
    x = np.array([0, 3, 6, 7])
    z = np.arange(4, dtype=float)[None, :].repeat(2, axis=0)
    spec = {
        "data": [
            {
                "type": "heatmap",
                "z": z.tolist(),
                "x": x.tolist(),
                "y": [0, 1],
                "colorscale": [[0, "#000000"], [1, "#ffffff"]],
                "zmin": 0,
                "zmax": 3,
            }
        ],
        "layout": {"height": 300},
    }
    pixels = _png_pixels(preview(spec).ink)
    columns = [int(v) for v in pixels[0, :, 0]]
    # edges -1.5, 1.5, 4.5, 6.5, 7.5: widths 3, 3, 2, 1 in pixels of width 1
    assert [columns.count(v) for v in sorted(set(columns))] == [3, 3, 2, 1]


def test_t5_first_view_has_pictures_that_parse():
    from tests.app.conftest import charts, open_page

    specs = [c.spec for c in charts(open_page("pages/t5.py", all_open=False))]
    assert specs
    for spec in specs:
        pic = preview(spec)
        assert pic is not None, spec["layout"]["title"]
        for layer in (pic.text, pic.ink):
            minidom.parseString(layer)  # well-formed XML
        assert pic.height == spec["layout"]["height"]
        assert 0 < pic.top < pic.height and pic.plot_height > 0
        assert spec["layout"]["title"]["text"].split()[0] in pic.text


def test_what_it_cannot_draw_gets_no_picture():
    spec = {
        "data": [{"type": "scatter", "x": [0, 1], "y": [0, 1]}],
        "layout": {"height": 300, "yaxis": {"scaleanchor": "x"}},
    }
    assert preview(spec) is None  # a locked aspect ratio depends on the width: the plain placeholder
    assert preview({"data": [{"type": "surface", "z": [[1]]}], "layout": {"height": 300}}) is None
    assert preview({"data": [], "layout": {}}) is None  # no fixed height
    categories = {"type": "bar", "x": ["attention", "mlp"], "y": [1, 2]}
    assert preview({"data": [categories], "layout": {"height": 300}}) is None  # category axes


@pytest.mark.parametrize(("lo", "hi", "count", "step"), [(0, 127, 10, 20), (-127, 127, 10, 50), (0, 1, 5, 0.2)])
def test_ticks_step_as_plotlys(lo, hi, count, step):
    values, got = nice_ticks(lo, hi, count)
    assert got == pytest.approx(step)
    assert values[0] >= lo and values[-1] <= hi


def test_smooth_heatmaps_are_filtered_and_still_decode_to_their_colours():
    # A smooth ramp down the rows: the "Up" filter makes it small; decoding it gives the same pixels.
    z = np.add.outer(np.linspace(0, 1, 48), np.linspace(0, 0.2, 40))
    scale = [[0, "#000000"], [1, "#ff8040"]]
    spec = {
        "data": [{"type": "heatmap", "z": z.tolist(), "colorscale": scale, "zmin": 0, "zmax": 1.2}],
        "layout": {"height": 400},
    }
    pic = preview(spec)
    data = base64.b64decode(re.search(r"data:image/png;base64,([A-Za-z0-9+/=]+)", pic.ink).group(1))
    unfiltered = len(
        zlib.compress(
            np.concatenate([np.zeros((48, 1)), colormap(z, scale, 0, 1.2)[::-1].reshape(48, -1)], axis=1)
            .astype(np.uint8)
            .tobytes(),
            6,
        )
    )
    assert len(data) < unfiltered
    assert np.array_equal(_png_pixels(pic.ink), colormap(z, scale, 0, 1.2)[::-1])  # y grows upwards: flipped


def test_long_lines_keep_their_envelope():
    from posviz.figures.preview.traces import thinned

    rng = np.random.default_rng(0)
    xs = np.linspace(0, 1000, 20_000, endpoint=False)
    ys = rng.normal(size=xs.size)
    pts = list(zip(xs.tolist(), ys.tolist(), strict=True))
    pts[5000] = (float("nan"), float("nan"))  # a gap
    kept = thinned(pts, buckets=100)
    assert len(kept) <= 4 * 100 + 8
    assert sum(np.isnan(p[0]) for p in kept) == 1  # the gap stays
    for b in range(100):  # in every column, the lowest and highest points survive
        inside = [p[1] for p in pts if not np.isnan(p[0]) and int(p[0] * 100 / 1000) == b]
        got = [p[1] for p in kept if not np.isnan(p[0]) and int(p[0] * 100 / 1000) == b]
        assert min(got) == min(inside) and max(got) == max(inside)
    assert thinned(pts[:300], buckets=100) == pts[:300]  # short lines as they are


def test_a_picture_too_large_to_send_is_none():
    rng = np.random.default_rng(1)
    xy = rng.uniform(size=(2, 6000)).round(6).tolist()
    many = {
        "type": "scatter",
        "mode": "markers",
        "x": xy[0],
        "y": xy[1],
        "marker": {"size": rng.uniform(3, 9, 6000).tolist()},
    }
    assert preview({"data": [many], "layout": {"height": 300}}) is None
    few = {**many, "x": xy[0][:50], "y": xy[1][:50], "marker": {"size": 6}}
    assert preview({"data": [few], "layout": {"height": 300}}) is not None

"""AppTest: the sinusoidal page with default, changed, hostile and huge link parameters."""

from __future__ import annotations

import re

import numpy as np
import pytest

from posviz.encodings.sinusoidal import sinusoidal_table
from posviz.figures.layout import number
from posviz.ui.params import PARAMS

from .conftest import array, assert_healthy, chart, charts, open_sinusoidal, value_of, warnings

CHARTS = 6
MAX_CHART_CHARS = 600_000


@pytest.fixture(scope="module")
def default():
    return open_sinusoidal()


def test_defaults_render(default):
    at = default
    assert_healthy(at)
    assert at.title[0].value.startswith("Sinusoidal")
    assert len(charts(at)) == CHARTS
    assert value_of(at, "seq_len") == 512 and value_of(at, "dim") == 64 and value_of(at, "layout") == "interleaved"
    assert list(at.radio(key="layout").options) == ["interleaved", "concat"]
    for c in charts(at):
        assert c.title.strip() and c.spec["data"] and c.size < MAX_CHART_CHARS, c.key
    assert len(at.get("download_button")) == CHARTS


def test_table_chart_is_the_paper_table(default):
    trace = chart(default, "sinusoidal_table_interleaved").spec["data"][0]
    z, y = array(trace["z"]), array(trace["y"])
    np.testing.assert_allclose(z, sinusoidal_table(__import__("torch").tensor(y.astype(np.int64)), 64).numpy())


def test_concat_layout_from_the_link():
    at = open_sinusoidal(layout="concat", dim="8", seq_len="40")
    assert_healthy(at)
    z = array(chart(at, "sinusoidal_table_concat").spec["data"][0]["z"])
    assert z.shape == (40, 8)
    np.testing.assert_allclose(z[1, :4], np.sin(10000.0 ** (-np.arange(0, 8, 2) / 8)), rtol=1e-6)


def test_rope_layout_in_the_link_falls_back_with_a_notice():
    at = open_sinusoidal(layout="half")
    assert_healthy(at)
    assert value_of(at, "layout") == "interleaved"
    assert any("layout=half" in w and "interleaved, concat" in w for w in warnings(at)), warnings(at)
    assert len(charts(at)) == CHARTS


@pytest.mark.parametrize(
    "key, raw",
    [
        ("dim", "abc"),
        ("dim", "1e309"),
        ("dim", "7"),
        ("seq_len", "-5"),
        ("seq_len", "131073"),
        ("base", "1"),
        ("base", "nan"),
        ("layout", "<script>alert(1)</script>"),
        ("seed", "%00"),
    ],
)
def test_hostile_links_give_notices(key, raw):
    at = open_sinusoidal(**{key: raw})
    assert_healthy(at)
    assert any(key in w for w in warnings(at)), warnings(at)
    assert len(charts(at)) == CHARTS
    p = PARAMS[key]
    if p.kind in ("int", "float"):
        assert p.min <= value_of(at, key) <= p.max


def test_longest_sequence_stays_small():
    at = open_sinusoidal(seq_len="131072", dim="512")
    assert_healthy(at)
    assert sum(c.size for c in charts(at)) < 2_500_000
    assert "Block means" in chart(at, "sinusoidal_similarity").subtitle
    assert any("first 4096 positions" in c.value for c in at.caption)


def test_lecture_mode_enlarges_every_chart():
    at = open_sinusoidal(lecture="1")
    assert_healthy(at)
    assert {c.spec["layout"]["font"]["size"] for c in charts(at)} == {20}


def test_aliased_waves_are_drawn_as_their_band_at_131072():
    at = open_sinusoidal(seq_len="131072")
    assert_healthy(at)
    names = [t.get("name", "") for t in chart(at, "sinusoidal_waves").spec["data"]]
    assert any("aliased at this stride" in n for n in names), names  # the fast pair's samples would be noise
    short = open_sinusoidal(seq_len="64")  # every position drawn: nothing aliased
    assert not any("aliased" in t.get("name", "") for t in chart(short, "sinusoidal_waves").spec["data"])


def test_legend_and_caption_round_like_number_never_e_notation():
    """base 500000: the slowest wavelength is about 2.1 million tokens, once written 2.0848e+06."""
    at = open_sinusoidal(base="500000")
    assert_healthy(at)
    wavelengths = 2 * np.pi * 500000.0 ** (np.arange(0, 64, 2) / 64)  # (32,) tokens per period
    names = [t.get("name", "") for t in chart(at, "sinusoidal_waves").spec["data"]]
    labels = [n for n in names if "λ = " in n]
    assert labels and not [n for n in names if re.search(r"\de[+-]?\d", n)], names
    for label in labels:  # each λ is one of the wavelengths, written by number()
        shown = label.split("λ = ")[1].split(":")[0]
        assert shown in {number(w) for w in wavelengths}, label
    (caption,) = [c.value for c in at.caption if c.value.startswith("Wavelengths run")]
    assert f"to {number(wavelengths[-1])} tokens" in caption and "e+" not in caption
    assert number(wavelengths[-1]) == "2084765"  # f"{x:.5g}" wrote 2.0848e+06

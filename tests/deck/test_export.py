"""A deck as one HTML file (posviz.deck): the app's own figures, escaped text, one JSON block, no network."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest

from posviz.deck import export
from posviz.deck.__main__ import main, read_deck
from posviz.deck.slides import Slide, slide_of, slug
from posviz.ui.deck import model

DATA = re.compile(r'<script id="deck-data" type="application/json">(.*?)</script>', re.S)


def _data(page: str) -> dict:
    (block,) = DATA.findall(page)
    return json.loads(block)


def _values(array) -> np.ndarray:
    """A trace's array as Plotly reads it: a list, or a typed array ({"dtype", "bdata"})."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=np.dtype(array["dtype"]))
    return np.asarray(array)


def test_notes_are_escaped_then_given_a_few_tags():
    out = export.notes_html('<script>x</script> **bold** and *it* `a<b`\n\n- one\n  more\n- "two"')
    assert "<script>" not in out and "&lt;script&gt;x&lt;/script&gt;" in out
    assert "<strong>bold</strong>" in out and "<em>it</em>" in out and "<code>a&lt;b</code>" in out
    assert "<ul><li>one more</li><li>&quot;two&quot;</li></ul>" in out


def test_hostile_text_cannot_end_the_data_block_or_the_page():
    evil = "</script><script>alert(1)</script><!--"
    page = export.build(evil, [Slide(evil, evil, {"data": [{"type": "bar", "name": evil, "y": [1]}]}, alt=evil)])
    assert page.count("<script") == 3  # the data, the Plotly bundle, the deck's code: nothing injected
    assert "alert(1)</script>" not in page
    data = _data(page)
    assert data["title"] == evil and data["slides"][0]["figure"]["data"][0]["name"] == evil
    assert "&lt;/script&gt;" in data["slides"][0]["notes"]
    assert "<title>&lt;/script&gt;" in page


def test_the_file_fetches_nothing():
    page = export.build("t", [Slide("a", "", None)])
    assert "default-src 'none'" in page  # the page's own policy: no request leaves it
    for asset in ("deck.html", "deck.css", "deck.js"):  # the file's own parts name no other host
        assert not re.search(r"https?:|//[a-z]", (export.ASSETS / asset).read_text().replace("// ", "")), asset
    assert export.BUNDLE.stat().st_size > 1_000_000 and page.count("Plotly") > 10  # the bundle, inlined


def test_anchors_are_the_browsers():
    assert slug("7 · The shape pitfall: transpose(0, 2) against permute(2, 0, 1)") == (
        "7-the-shape-pitfall-transpose-0-2-against-permute-2-0-1"
    )


@pytest.mark.slow
def test_a_slide_carries_the_figure_the_app_draws():
    """/alibi?heads=12: the figure's slopes are ALiBi's (Press et al. 2022): 2^(-8h/8) for the 8 heads of
    the closest power of two, then every other slope of 16 heads, 2^(-(2i-1)/2)."""
    deck = model.from_data({"title": "t", "step": [{"title": "a", "link": "/alibi?heads=12", "notes": "n"}]})
    slide = slide_of(deck.steps[0])
    assert not slide.problems
    assert slide.figure["layout"]["title"]["text"] == "Slopes of 12 heads: a geometric sequence"
    y = np.concatenate([_values(t["y"]) for t in slide.figure["data"]]).astype(np.float64)
    paper = [2.0 ** (-h) for h in range(1, 9)] + [2.0 ** (-(2 * i - 1) / 2) for i in range(1, 5)]
    np.testing.assert_allclose(y, paper, rtol=1e-6)


@pytest.mark.slow
def test_an_anchor_slide_carries_its_sections_figure():
    step = model.from_data(
        {
            "title": "t",
            "step": [{"title": "a", "link": "/t5?q_len=32&k_len=32&step=4#2-the-bucket-pipeline-step-by-step"}],
        }
    ).steps[0]
    slide = slide_of(step)
    assert "step 4" in json.dumps(slide.figure["layout"]).lower() or "Step 4" in slide.alt


@pytest.mark.slow
def test_the_command_writes_the_file(tmp_path, capsys):
    deck_file = tmp_path / "d.toml"
    deck_file.write_text('title = "Two"\n[[step]]\ntitle = "A"\nlink = "/alibi?heads=4"\nnotes = "**n**"\n'
                         '[[step]]\ntitle = "B"\nlink = "/"\n')  # fmt: skip
    assert read_deck(str(deck_file)).title == "Two"
    out = tmp_path / "d.html"
    assert main(["export", str(deck_file), "-o", str(out)]) == 0
    data = _data(out.read_text())
    assert [s["title"] for s in data["slides"]] == ["A", "B"]
    assert data["slides"][0]["notes"] == "<p><strong>n</strong></p>" and data["slides"][0]["figure"]["data"]
    assert data["slides"][1]["figure"] is None  # the home page draws no figure
    assert "2 slides" in capsys.readouterr().err


def test_a_deck_without_slides_writes_nothing(tmp_path):
    deck_file = tmp_path / "empty.toml"
    deck_file.write_text('title = "Empty"\n')
    assert main(["export", str(deck_file), "-o", str(tmp_path / "x.html")]) == 1
    assert not (tmp_path / "x.html").exists()

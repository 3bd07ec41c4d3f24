"""The shared chrome in another language: link notices, ordinals, the figure component's words.

A small catalogue stands in for the Chinese one (``posviz.i18n.catalogue``), so these tests read the
mechanics (whole sentences looked up, then filled; English untouched), not the wording.
"""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from posviz import i18n
from posviz.figures.chart import Chart
from posviz.figures.common import ordinal, sample_note
from posviz.i18n import Catalogue, use
from posviz.ui import plot
from posviz.ui.params import PARAMS, parse

ZH = {
    "{shown} in the link is {notes}; using {value}.": "链接中的 {shown} {notes}；改用 {value}。",
    "odd, and it must be even": "是奇数",
    "above the largest allowed, {value}": "高于最大值 {value}",
    " and ": "，且",
    "{n}nd": "{n}",
    "every {nth}, plus the last": "每 {nth} 个取一个，另加最后一个",
    "{shown} of {length} queries{window} ({every})": "{length} 个查询中的 {shown} 个{window}（{every}）",
    "Strided sample: ": "跨步采样：",
    "Drawing the figure…": "正在绘制图表……",
    "Zoom": "缩放",
}


@pytest.fixture
def zh(monkeypatch):
    fake = Catalogue("zh", messages=dict(ZH))
    monkeypatch.setattr(i18n, "catalogue", lambda lang: fake)


def test_a_link_notice_is_one_translated_sentence_filled_after(zh):
    english = parse(PARAMS["dim"], "7")
    with use("zh"):
        chinese = parse(PARAMS["dim"], "7")
        both = parse(PARAMS["dim"], "1001")
    assert english == (6, "dim=7 in the link is odd, and it must be even; using 6.")
    assert chinese == (6, "链接中的 dim=7 是奇数；改用 6。")
    assert both == (512, "链接中的 dim=1001 高于最大值 512；改用 512。")


def test_ordinals_in_chinese_are_the_number_the_sentence_places():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 22)] == ["1st", "2nd", "3rd", "4th", "11th", "22nd"]


def test_a_sample_note_reads_in_the_runs_language(zh):
    q, k = np.arange(0, 100, 2), np.arange(100)
    assert sample_note(q, k, 100, 100) == "Strided sample: 50 of 100 queries (every 2nd, plus the last)"
    with use("zh"):
        assert ordinal(2) == "2"
        assert sample_note(q, k, 100, 100) == "跨步采样：100 个查询中的 50 个（每 2 个取一个，另加最后一个）"


def test_the_figure_component_gets_its_words_and_plotlys_in_the_runs_language(zh):
    fig = Chart.of(go.Figure(go.Scatter(y=[1, 2])))
    english = json.loads(plot.document(fig, {"displaylogo": False}, "a line", False))
    with use("zh"):
        chinese = json.loads(plot.document(fig, {"displaylogo": False}, "a line", False))
    assert english["config"] == {"displaylogo": False}
    assert english["texts"]["wait"] == "Drawing the figure…"
    assert chinese["texts"]["wait"] == "正在绘制图表……"
    assert chinese["config"]["locale"] == "zh"
    assert chinese["config"]["locales"] == {"zh": {"dictionary": {"Zoom": "缩放"}}}  # only what is translated
    assert chinese["figure"] == english["figure"]

"""fit_title: long titles and subtitles wrap at word boundaries, and the figure grows to hold them."""

from __future__ import annotations

import plotly.graph_objects as go

from posviz.figures.common import SUBTITLE_CHARS, TITLE_CHARS, finish, fit_title


def titled(title: str, subtitle: str | None, lecture: bool) -> go.Figure:
    return finish(go.Figure(go.Scatter(y=[1, 2])), title=title, subtitle=subtitle, lecture=lecture)


def test_a_short_title_is_left_alone():
    fig = fit_title(titled("Short", "one line", False), lecture=False)
    assert fig.layout.title.text == "Short" and fig.layout.title.subtitle.text == "one line"


def test_a_long_title_wraps_and_the_plot_keeps_its_height():
    words = " ".join(f"word{i}" for i in range(30))  # about 200 characters
    before = titled(words, "a<br>b", True)
    plot = before.layout.height - before.layout.margin.t
    fig = fit_title(titled(words, "a<br>b", True), lecture=True)
    lines = fig.layout.title.text.split("<br>")
    assert len(lines) >= 3 and all(len(line) <= TITLE_CHARS[True] for line in lines)
    assert " ".join(lines) == words  # only line breaks were added
    assert fig.layout.height - fig.layout.margin.t == plot  # the margin grew, the plot area did not shrink
    assert fig.layout.title.yanchor == "top" and fig.layout.title.yref == "container"


def test_subtitle_lines_wrap_one_by_one():
    long = "x " * 120
    fig = fit_title(titled("T", f"first<br>{long}", False), lecture=False)
    lines = fig.layout.title.subtitle.text.split("<br>")
    assert lines[0] == "first" and len(lines) == 3 and all(len(line) <= SUBTITLE_CHARS[False] for line in lines)

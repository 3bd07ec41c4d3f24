"""The shared look: titles that fit, legends under the plot, readable numbers and log ticks."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest
import torch

from posviz.encodings.cope import cope_positions
from posviz.figures.common import heatmap, human_bytes
from posviz.figures.cope import positions_figure
from posviz.figures.layout import (
    CHAR_EM,
    TITLE_PAD,
    finish,
    legend_rows,
    line_count,
    log_ticks,
    look,
    number,
    title_font,
    wrap,
)


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (47123.9, "47124"),  # not 4.712e+04
        (62831.853, "62832"),
        (12.566, "12.57"),
        (0.25, "0.25"),
        (1 / 256, "0.003906"),
        (1e-7, "10⁻⁷"),
        (2.5e-12, "2.5·10⁻¹²"),
        (3e9, "3·10⁹"),
        (-255.5, "−255.5"),
        (0, "0"),
    ],
)
def test_number_never_uses_e_notation(x, text):
    assert number(x) == text


def test_human_bytes_keeps_two_significant_digits():
    assert human_bytes(0.25 * 2**20) == "256 KiB"
    assert human_bytes(1.25 * 2**20) == "1.25 MiB"  # not 1.2 (rounded half to even)


def test_log_ticks_label_every_tick_in_full():
    vals, text = log_ticks(1, 16383)
    assert vals == [1, 10, 100, 1000, 10000] and text == ["1", "10", "100", "1000", "10000"]
    vals, text = log_ticks(3, 40)  # under two decades: 1-2-5 steps, each with its full value
    assert vals == [5, 10, 20] and text == ["5", "10", "20"]


def test_finish_gives_log_axes_full_tick_labels():
    fig = go.Figure(go.Scatter(x=[1, 2, 50], y=[1e-6, 1e-3, 1.0]))
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    fig = finish(fig, title="T", subtitle=None, lecture=True)
    assert list(fig.layout.xaxis.ticktext) == ["1", "2", "5", "10", "20", "50"]
    assert list(fig.layout.yaxis.ticktext) == ["10⁻⁶", "10⁻⁵", "10⁻⁴", "10⁻³", "10⁻²", "10⁻¹", "10⁰"]
    assert fig.layout.yaxis.minor.ticks == ""  # no bare minor labels ("2 5 9")


@pytest.mark.parametrize("lecture", [False, True])
def test_long_titles_and_subtitles_fit_the_narrowest_chart(lecture):
    lk = look(lecture)
    title = "Attention weights of head 0, without and with the position bias, on a toy sequence of tokens"
    sub = "; ".join(["a clause of about forty characters here"] * 6)
    fig = finish(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])), title=title, subtitle=sub, lecture=lecture)
    size = fig.layout.title.font.size
    assert lk.font <= size <= lk.title  # never smaller than the body text
    for text, font in ((fig.layout.title.text, size), (fig.layout.title.subtitle.text, lk.font)):
        for line in text.split("<br>"):
            assert len(line) * CHAR_EM * font <= lk.width - 2 * TITLE_PAD, line
    assert fig.layout.title.subtitle.font.size == lk.font  # subtitles at body size
    assert fig.layout.title.xanchor == "left" and fig.layout.title.xref == "container"
    # the top margin holds title and subtitle lines
    lines = line_count(fig.layout.title.text) * size + line_count(fig.layout.title.subtitle.text) * lk.font
    assert fig.layout.margin.t >= 1.3 * lines


def test_wrap_prefers_clause_boundaries_and_keeps_words():
    text = "one two three four five six seven; eight nine ten eleven twelve"
    out = wrap(text, size=10, width=10 * CHAR_EM * 45)  # 45 characters a line
    assert out == "one two three four five six seven;<br>eight nine ten eleven twelve"
    assert wrap("short", size=20, width=900) == "short"


def test_title_shrinks_to_one_line_before_wrapping():
    lk = look(True)
    assert title_font("Short", lk) == lk.title
    mid = "x" * 70  # too long at 26 px, fits at 25 px or less
    assert lk.font <= title_font(mid, lk) < lk.title


def test_legends_go_under_the_plot_with_room_for_their_rows():
    fig = go.Figure([go.Scatter(x=[0, 1], y=[0, 1], name=f"a rather long legend entry {i}") for i in range(8)])
    fig.update_layout(legend=dict(x=0.99, y=0.98))  # inside the plot: moved out
    fig = finish(fig, title="T", subtitle=None, lecture=True)
    lk = look(True)
    legend = fig.layout.legend
    assert (legend.orientation, legend.y, legend.yref, legend.yanchor) == ("h", 0, "container", "bottom")
    rows = legend_rows([t.name for t in fig.data], font=lk.font, width=lk.width - 40)
    assert rows >= 2 and fig.layout.margin.b >= rows * 1.3 * lk.font + 3 * lk.font


def test_subplot_titles_get_their_own_band_above_the_plot():
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, subplot_titles=["left", "right"])
    fig.add_trace(go.Scatter(x=[0], y=[0]), row=1, col=1)
    lk = look(True)
    bare = finish(go.Figure(go.Scatter(x=[0], y=[0])), title="T", subtitle="s", lecture=True).layout.margin.t
    fig = finish(fig, title="T", subtitle="s", lecture=True)
    assert fig.layout.margin.t >= bare + 1.3 * lk.font
    assert {a.font.size for a in fig.layout.annotations} == {lk.font}


def test_one_signed_diverging_data_get_a_one_sided_scale():
    pos = np.arange(4)
    neg = heatmap(-np.arange(16.0).reshape(4, 4), q_pos=pos, k_pos=pos, title="T", value_name="v", palette="diverging")
    t = neg.data[0]
    assert (t.zmin, t.zmax) == (-15.0, 0.0) and t.zmid is None
    z = np.arange(16.0).reshape(4, 4) - 5
    mixed = heatmap(z, q_pos=pos, k_pos=pos, title="T", value_name="v", palette="diverging")
    assert (mixed.data[0].zmin, mixed.data[0].zmax, mixed.data[0].zmid) == (-10.0, 10.0, 0.0)


def test_cope_positions_scale_fits_the_data():
    """Positions reaching 5 are drawn on 0 .. 5, not on the clamp's 0 .. 15."""
    n = 12
    gates = torch.zeros(n, n)
    gates[:, ::2] = 1.0  # every other key counts: positions up to 6
    gates = torch.tril(gates)
    p = cope_positions(gates, npos_max=16).numpy()
    future = np.triu(np.ones((n, n), dtype=bool), 1)
    pos, clamped = np.arange(n), np.zeros((n, n), dtype=bool)
    fig = positions_figure(p, future, clamped, npos_max=16, q_pos=pos, k_pos=pos, n=n, tokens=None)
    assert fig.data[0].zmax == pytest.approx(float(p[~future].max())) and fig.data[0].zmax < 15

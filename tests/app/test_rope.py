"""AppTest: the RoPE page with default, changed, hostile and huge link parameters."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np
import pytest

from posviz.encodings.rope_scaling import METHODS, ROPE_SCALING, rope_scaling
from posviz.figures.layout import number
from posviz.ui.rope.params import METHOD_CONTROLS
from posviz.ui.rope.settings import RopeSettings, scaling_options
from posviz.ui.settings import params_of

from .conftest import (
    array,
    assert_healthy,
    chart,
    charts,
    count_calls,
    errors,
    has_widget,
    open_rope,
    tables,
    value_of,
    warnings,
    widget,
)

MAX_CHART_CHARS = 600_000
CHARTS = 10
ALL_OPTIONS = set().union(*METHOD_CONTROLS.values())
PARAMS = params_of(RopeSettings)


def from_number(text: str) -> float:
    """The value of a number() text such as "6·10⁻⁸", "10⁻¹⁶" or "0.25"."""
    digits = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
    found = re.fullmatch(r"(?:([\d.]+)·)?10([⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)", text)
    if not found:
        return float(text.replace("−", "-"))
    return float(found.group(1) or 1) * 10 ** int(found.group(2).translate(digits))


@pytest.fixture(scope="module")
def rope_default():
    return open_rope()


def test_defaults_render(rope_default):
    at = rope_default
    assert_healthy(at)
    assert at.title[0].value.startswith("RoPE")
    assert len(charts(at)) == CHARTS
    d = RopeSettings()
    for key in ("dim", "base", "m", "n", "layout", "seq_len", "seed", "method"):
        assert value_of(at, key) == getattr(d, key), key
    for key in ALL_OPTIONS:
        assert not has_widget(at, key), key  # the default method has no options
    assert not has_widget(at, "q_len")  # another page's control
    assert len(tables(at)) == 1 and not at.dataframe and not at.table  # freqs_cis, in markdown


def test_every_chart_titled_small_and_exported(rope_default):
    for c in charts(rope_default):
        assert c.title.strip(), c.key
        assert c.spec["data"], c.key
        assert c.size < MAX_CHART_CHARS, (c.key, c.size)
        assert c.config["toImageButtonOptions"]["format"] == "png"
    assert len(rope_default.get("download_button")) == CHARTS


def test_default_numbers_on_the_page(rope_default):
    metrics = {m.label: m.value for m in rope_default.metric}
    values = list(metrics.values())
    assert values[0] == values[1]  # (R_m q).(R_n k) unchanged by the shift
    assert from_number(values[2]) < 1e-6 and from_number(values[3]) < 1e-12
    assert "e-" not in values[2] + values[3]  # number(): 6·10⁻⁸, as the figures write it
    freq = chart(rope_default, "rope_frequencies")
    assert "4 of 32 pairs never complete a turn" in freq.subtitle


def test_the_page_defaults_are_hugging_faces():
    d = RopeSettings()

    def options(method: str) -> dict:
        return dict(scaling_options(replace(d, method=method)))

    yarn = dict(beta_fast=32.0, beta_slow=1.0, mscale=None, mscale_all_dim=None, attention_factor=None, truncate=True)
    assert options("yarn") == yarn  # the page's 0 reads as Hugging Face's unset (None)
    assert options("llama3") == dict(low_freq_factor=1.0, high_freq_factor=4.0)
    assert options("dynamic") == {"seq_len": d.seq_len} and options("linear") == {} and options("default") == {}
    assert [name for name, _ in scaling_options(replace(d, method="yarn"))] == sorted(yarn)  # sorted: a cache key
    assert METHOD_CONTROLS["yarn"] == ("factor", "original_max_position", *yarn)  # in their order
    assert METHOD_CONTROLS["linear"] == ("factor",) and METHOD_CONTROLS["default"] == ()


def test_the_comparison_draws_the_other_methods_as_the_page_sets_them():
    """Section 7 draws the chosen method with the page's options and every other at its defaults: what the
    page's hidden controls hold (they keep their defaults)."""
    from posviz.figures.rope_scaling import default_options

    for method in METHODS:
        s = RopeSettings(method=method, seq_len=777)
        assert default_options(method, seq_len=777) == dict(scaling_options(s)), method


def test_every_option_of_the_registry_is_a_control_and_a_field():
    for method in METHODS:
        for o in ROPE_SCALING[method].options:
            assert o.name == "seq_len" or o.name in PARAMS, o.name  # seq_len: the page's own control
    assert "short_factor" not in PARAMS  # longrope's options come from a config only


@pytest.mark.parametrize("method", METHODS)
def test_each_method(method):
    at = open_rope(method=method, seq_len="20000")
    assert_healthy(at)
    assert len(charts(at)) == CHARTS
    for key in METHOD_CONTROLS[method]:
        assert has_widget(at, key), key
    assert has_widget(at, "truncate") == (method == "yarn")
    # the bold trace of the scaling figure is the chosen method, with Hugging Face's numbers
    fig = chart(at, "rope_scaling_frequencies")
    (bold,) = [t for t in fig.spec["data"] if t["name"].startswith(method + " ")]
    s = RopeSettings(method=method, seq_len=20000)
    inv, att = rope_scaling(
        method,
        s.dim,
        base=s.base,
        factor=s.factor,
        original_max_position=s.original_max_position,
        **dict(scaling_options(s)),
    )
    default, _ = rope_scaling("default", s.dim, base=s.base)
    np.testing.assert_allclose(array(bold["y"]), (inv / default).numpy(), rtol=1e-6)
    assert f"{att:.4g}" in bold["name"]


def test_yarn_options_from_the_link():
    at = open_rope(method="yarn", factor="16", attention_factor="1.25", truncate="false", beta_fast="8")
    assert_healthy(at)
    assert value_of(at, "truncate") is False and value_of(at, "beta_fast") == 8.0
    fig = chart(at, "rope_scaling_frequencies")
    (bold,) = [t for t in fig.spec["data"] if t["name"].startswith("yarn ")]
    assert "attention factor 1.25" in bold["name"]


def test_half_layout_changes_the_matrix():
    at = open_rope(layout="half", dim="8", m="3")
    assert_healthy(at)
    z = array(chart(at, "rope_matrix_half").spec["data"][0]["z"])
    assert z.shape == (8, 8)
    assert math.isclose(float(z[0, 4]), -math.sin(3.0), abs_tol=1e-6)  # pair 0 is components 0 and 4


def test_a_change_rebuilds_only_the_figures_that_depend_on_it(monkeypatch):
    import streamlit as st

    from posviz.figures import rope, rope_scores

    targets = [(rope, "rotation_matrix_figure"), (rope, "pair_circles_figure")]
    targets += [(rope_scores, n) for n in ("shift_figure", "score_matrix_figure", "decay_figure")]
    counts = count_calls(monkeypatch, targets)
    st.cache_resource.clear()
    at = open_rope(dim="16")
    assert list(counts.values()) == [1, 1, 1, 1, 1]
    widget(at, "m").set_value(3).run()  # the matrix, the circles and the shifts
    assert list(counts.values()) == [2, 2, 2, 1, 1]
    widget(at, "seq_len").set_value(5000).run()  # the shifts and the decay: not the matrix nor the circles
    assert list(counts.values()) == [2, 2, 3, 1, 2]
    widget(at, "method").set_value("dynamic").run()
    widget(at, "seq_len").set_value(6000).run()  # dynamic NTK reads seq_len: now every figure changes
    assert list(counts.values()) == [4, 4, 5, 3, 4]
    assert_healthy(at)


def test_changing_method_in_the_sidebar():
    at = open_rope()
    widget(at, "method").set_value("llama3").run()
    assert_healthy(at)
    assert has_widget(at, "low_freq_factor")
    assert "llama3" in at.info[0].value


@pytest.mark.parametrize(
    "params, rule",
    [
        ({"method": "dynamic", "dim": "2"}, "dim >= 4"),
        ({"method": "llama3", "low_freq_factor": "4", "high_freq_factor": "2"}, "low_freq_factor < high_freq_factor"),
        ({"method": "yarn", "beta_fast": "1", "beta_slow": "8"}, "beta_fast"),
    ],
)
def test_impossible_combinations_are_clear_errors(params, rule):
    at = open_rope(**params)
    assert not at.exception
    assert any(rule in e for e in errors(at)), errors(at)
    assert not charts(at)


@pytest.mark.parametrize(
    "key, raw",
    [
        ("dim", "abc"),
        ("dim", "1e309"),
        ("dim", "7"),
        ("dim", "1024"),
        ("seq_len", "-5"),
        ("seq_len", "inf"),
        ("base", "1"),
        ("base", "nan"),
        ("m", "-1"),
        ("n", "2.5"),
        ("layout", "<script>alert(1)</script>"),
        ("method", "ntk"),
        ("factor", "0.5"),
        ("seed", "%00"),
    ],
)
def test_hostile_links_give_notices(key, raw):
    params = {key: raw}
    if key == "factor":
        params["method"] = "linear"
    at = open_rope(**params)
    assert_healthy(at)
    assert any(key in w for w in warnings(at)), warnings(at)
    assert len(charts(at)) == CHARTS
    p = PARAMS[key]
    value = value_of(at, key)
    if p.kind in ("int", "float"):
        assert p.min <= value <= p.max


def test_script_is_never_markup():
    at = open_rope(layout="<img src=x onerror=alert(1)>")
    assert_healthy(at)
    notice = next(w for w in warnings(at) if "layout" in w)
    assert "<img" not in notice.replace("\\<img", "")  # escaped for markdown


def test_longest_context_stays_small():
    at = open_rope(seq_len="1048576", method="yarn", factor="32")
    assert_healthy(at)
    assert len(charts(at)) == CHARTS
    assert sum(c.size for c in charts(at)) < 2_500_000
    decay = chart(at, "rope_decay")
    assert "up to 1048575" in decay.title
    x = array(decay.spec["data"][0]["x"])
    assert x.max() == 1048575 and len(x) < 700


def test_notes_write_numbers_like_the_figures_never_e_notation():
    """base 500000, linear x32: the slowest wavelength (67 million tokens) was written 6.671e+07 by .4g;
    number() writes it as the figures do."""
    at = open_rope(base="500000", method="linear", factor="32", seq_len="20000")
    assert_healthy(at)
    d = value_of(at, "dim")
    wave = 32 * 2 * math.pi * 500000.0 ** (np.arange(0, d, 2) / d)  # linear x32: every wavelength 32 times longer
    (sentence,) = [m.value for m in at.markdown if "wavelengths run from" in m.value]
    assert f"from {number(wave[0])} to {number(wave[-1])} tokens" in sentence and "base = 500000" in sentence
    assert "6.671·10⁷" in sentence
    (note,) = [i.value for i in at.info if i.value.startswith("linear:")]
    assert "turns at 0.03125 × its default speed" in note and "attention factor 1." in note
    texts = [sentence, note] + [c.subtitle + c.title for c in charts(at)]
    assert not [t for t in texts if re.search(r"\de[+-]\d", t)], texts

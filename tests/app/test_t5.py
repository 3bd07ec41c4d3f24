"""AppTest: the T5 page with default, changed, hostile and huge link parameters.

Every scenario opens a fresh ``AppTest`` (``open_t5``) as a browser would open
``/t5?...``; only the read-only checks of the default view share one run.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from safetensors.torch import save

from posviz.figures.t5_pipeline import PIPELINE_STEPS
from posviz.ui.params import MAX_LEN, PARAMS
from posviz.ui.settings import params_of
from posviz.ui.t5.settings import T5Settings

from .conftest import (
    T5_PAGE,
    array,
    assert_healthy,
    change,
    chart,
    charts,
    errors,
    figures,
    has_widget,
    heatmap_z,
    open_code,
    open_page,
    open_t5,
    tables,
    value_of,
    warnings,
    widget,
)

HEATMAP_X = {"key position j", "key j"}  # single heatmaps, small multiples
HEATMAP_Y = {"query position i", "query i"}
MAX_CHART_CHARS = 1_200_000
TABLE_NAME = "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"


T5_KEYS = ("lecture", "q_len", "k_len", "align", "num_buckets", "max_distance", "bidirectional")
T5_KEYS += ("heads", "head", "scale", "seed", "step")


# --- the default view ------------------------------------------------------------------------


def test_defaults_render(t5_default):
    assert_healthy(t5_default)
    assert len(charts(t5_default)) >= 8
    for key in T5_KEYS:
        assert value_of(t5_default, key) == {**PARAMS, **params_of(T5Settings)}[key].default, key
    assert not has_widget(t5_default, "seq_len")  # another page's control


def test_deep_link_runs_through_app_entry(t5_default):
    # /t5 opened directly still gets app.py's shared sidebar (the lecture toggle).
    assert has_widget(t5_default, "lecture")
    assert t5_default.title[0].value == "T5 relative position bias"


def test_every_chart_has_title_and_axes(t5_default):
    for c in charts(t5_default):
        assert c.title.strip(), c.key
        assert c.spec["data"], c.key
        if "heatmap" in c.trace_types:
            xs = {t for t in c.axis_titles("xaxis") if t}
            ys = {t for t in c.axis_titles("yaxis") if t}
            assert xs and xs <= HEATMAP_X, (c.key, xs)
            assert ys and ys <= HEATMAP_Y, (c.key, ys)
            if len(c.axis_titles("xaxis")) == 1:  # a single heatmap: the full titles
                assert xs == {"key position j"} and ys == {"query position i"}, c.key


def test_every_chart_exports_png_at_scale_2(t5_default):
    for c in charts(t5_default):
        options = c.config["toImageButtonOptions"]
        assert options["scale"] == 2, c.key
        assert options["format"] == "png", c.key
        assert options["filename"] == c.key.removeprefix("fig_"), c.key


def test_csv_downloads_and_pytorch_code(t5_default):
    buttons = t5_default.get("download_button")
    assert len(buttons) == len(figures(t5_default))  # every figure exports its data
    assert all(b.proto.label == "Data as CSV" for b in buttons)
    assert {"csv_t5_relative_positions", "csv_t5_buckets"} <= {b.key for b in buttons}
    # Each made on click (a page's CSVs cost nothing until someone asks for one); the made file is kept
    # for the session (posviz.ui.streamlit_private.keep_made_downloads, tested in tests/ui).
    assert all(b.proto.deferred_file_id and not b.proto.url for b in buttons)
    expanders = [e for e in open_code(t5_default).expander if e.label == "PyTorch code"]
    assert len(expanders) == len(buttons)
    for e in expanders:
        code = e.code[0]
        assert code.language == "python"
        assert "import torch" in code.value
        # the Hugging Face function, or (the pipeline walk-through) every intermediate spelled out
        assert "def relative_position_bucket" in code.value or "val_if_large_long" in code.value


def test_bias_table_editor_and_upload_widget(t5_default):
    editors = [d for d in t5_default.dataframe if d.proto.editing_mode != 0]  # 0: READ_ONLY
    assert len(editors) == 1
    table = editors[0].value
    assert table.shape == (T5Settings.num_buckets, T5Settings.heads)
    assert list(table.columns) == [f"head {h}" for h in range(T5Settings.heads)]
    (uploader,) = t5_default.get("file_uploader")
    assert uploader.key == "t5_upload"
    assert uploader.proto.type == [".safetensors"]


def test_default_pipeline_step_is_the_first(t5_default):
    assert chart(t5_default, "t5_step_").title == PIPELINE_STEPS[0][1]


# --- every control moved -----------------------------------------------------------------------


def test_q_len():
    at = change(open_t5(), "q_len", 64)
    y = array(chart(at, "t5_relative_positions").spec["data"][0]["y"])
    assert list(y) == list(range(64))
    # q_len != k_len: no pitfall chart, a warning that says why
    assert not [c for c in charts(at) if c.key == "fig_t5_transpose_pitfall"]
    assert any("q_len = 64 ≠ k_len = 128" in w for w in warnings(at))


def test_k_len_strided():
    at = change(open_t5(), "k_len", 1000)
    c = chart(at, "t5_relative_positions")
    x = array(c.spec["data"][0]["x"])
    assert len(x) < 1000 and x[0] == 0 and x[-1] == 999
    assert "Strided sample" in c.subtitle and "of 1000 keys" in c.subtitle


def test_zoom_window_link_draws_every_cell_around_position_100000():
    at = open_t5(q_len="131072", k_len="131072", window="64", q_start="100000", k_start="99968")
    assert_healthy(at)
    c = chart(at, "t5_buckets")
    x, y = array(c.spec["data"][0]["x"]), array(c.spec["data"][0]["y"])
    assert list(x) == list(range(99968, 100032)) and list(y) == list(range(100000, 100064))  # full resolution
    assert "Window" in c.subtitle and "i = 100000…100063" in c.subtitle and "every one" in c.subtitle
    z = array(c.spec["data"][0]["z"])  # the diagonal r = 0 sits 32 columns in: bucket 0 there
    assert z.shape == (64, 64) and z[0, 32] == 0 and z[0, 31] == 1  # bidirectional: one key back is bucket 1
    assert value_of(at, "window") == 64 and value_of(at, "q_start") == 100000


def test_zoom_controls_appear_with_a_window():
    at = open_t5()
    assert not has_widget(at, "q_start")
    change(at, "window", 16)
    assert has_widget(at, "q_start") and has_widget(at, "k_start")
    assert list(array(chart(at, "t5_relative_positions").spec["data"][0]["x"])) == list(range(16))


def test_align_end():
    at = change(open_t5(), "q_len", 64)
    change(at, "align", "end")
    y = array(chart(at, "t5_relative_positions").spec["data"][0]["y"])
    assert y[0] == 128 - 64 and y[-1] == 127


def test_bidirectional_off():
    at = change(open_t5(), "bidirectional", False)
    assert "every future key gets n = 0" in chart(at, "t5_step_").subtitle
    c = chart(at, "t5_buckets")
    z, x, y = heatmap_z(c), array(c.spec["data"][0]["x"]), array(c.spec["data"][0]["y"])
    future = x[None, :] > y[:, None]
    assert (z[future] == 0).all()  # a decoder puts every future key in bucket 0


def test_num_buckets():
    at = change(open_t5(), "num_buckets", 16)
    c = chart(at, "t5_buckets")
    assert c.spec["data"][0]["zmin"] == 0 and c.spec["data"][0]["zmax"] == 15
    assert heatmap_z(c).max() <= 15


def test_max_distance(t5_default):
    at = change(open_t5(), "max_distance", 64)
    before, after = heatmap_z(chart(t5_default, "t5_buckets")), heatmap_z(chart(at, "t5_buckets"))
    assert before.shape == after.shape and not np.array_equal(before, after)


def test_heads():
    at = change(open_t5(), "heads", 4)
    grid = chart(at, "t5_bias_all_heads")
    assert "All 4 heads" in grid.title
    assert grid.trace_types.count("heatmap") == 4
    assert widget(at, "head").max == 3


def test_head():
    at = change(open_t5(), "head", 5)
    assert chart(at, "t5_bias_head_").title == "Bias added to head 5's logits"
    assert chart(at, "t5_attention_head_").key == "fig_t5_attention_head_5"


def test_fewer_heads_clamps_head():
    at = change(open_t5(), "heads", 4)
    change(at, "head", 3)
    change(at, "heads", 2)
    assert value_of(at, "head") == 1
    assert chart(at, "t5_bias_head_").key == "fig_t5_bias_head_1"
    change(at, "heads", 1)
    assert not has_widget(at, "head")  # one head: nothing to choose
    assert chart(at, "t5_bias_head_").key == "fig_t5_bias_head_0"


def test_scale(t5_default):
    at = change(open_t5(), "scale", 2.0)
    before = chart(t5_default, "t5_bias_head_").spec["data"][0]
    after = chart(at, "t5_bias_head_").spec["data"][0]
    assert after["zmax"] == pytest.approx(2 * before["zmax"], rel=1e-5)
    np.testing.assert_allclose(heatmap_z(chart(at, "t5_bias_head_")), 2 * array(before["z"]), rtol=1e-5)


def test_seed(t5_default):
    at = change(open_t5(), "seed", 7)
    assert not np.array_equal(heatmap_z(chart(at, "t5_bias_head_")), heatmap_z(chart(t5_default, "t5_bias_head_")))
    settings = [
        line for c in open_code(at).code for line in c.value.splitlines() if line.startswith("heads, scale, seed =")
    ]
    assert settings and all(line.endswith(", 7") for line in settings)  # the PyTorch code follows the seed


def test_lecture_mode(t5_default):
    at = change(open_t5(), "lecture", True)
    plain = {c.key: c.spec["layout"] for c in charts(t5_default)}
    big = {c.key: c.spec["layout"] for c in charts(at)}
    assert plain.keys() == big.keys()
    for key in plain:
        assert big[key]["font"]["size"] > plain[key]["font"]["size"], key
        if key.startswith("fig_t5_step_"):  # the walk-through's step fits a 720 px projector below its buttons
            assert big[key]["height"] <= 505, key
        else:
            assert big[key]["height"] > plain[key]["height"], key


def test_step_through_every_step():
    at = open_t5()
    last = len(PIPELINE_STEPS)
    titles = [chart(at, "t5_step_").title]
    assert at.button(key="step_prev").disabled
    for step in range(2, last + 1):
        at.button(key="step_next").click().run()
        assert_healthy(at)
        assert value_of(at, "step") == step
        titles.append(chart(at, "t5_step_").title)
    assert titles == [title for _, title in PIPELINE_STEPS]
    assert at.button(key="step_next").disabled
    for step in range(last - 1, 0, -1):
        at.button(key="step_prev").click().run()
        assert_healthy(at)
        assert value_of(at, "step") == step
        assert chart(at, "t5_step_").title == PIPELINE_STEPS[step - 1][1]
    assert at.button(key="step_prev").disabled


def test_step_slider():
    at = change(open_t5(), "step", 3)
    assert chart(at, "t5_step_").title == PIPELINE_STEPS[2][1]


def test_moving_into_a_rule_violation_and_back():
    at = open_t5()
    widget(at, "num_buckets").set_value(2).run()  # bidirectional needs >= 4
    assert not at.exception
    assert any("num_buckets >= 4" in e for e in errors(at))
    assert not charts(at)
    change(at, "num_buckets", 8)
    assert len(charts(at)) >= 8


# --- hostile links ---------------------------------------------------------------------------


def link(params: dict, key: str, expected, notice: bool | None, *marks) -> pytest.param:
    """One hostile link: the widget ``key`` must end at ``expected``; ``notice``: a warning names the key
    (None: either way)."""
    query = "&".join(f"{k}={v}" for k, vs in params.items() for v in (vs if isinstance(vs, list) else [vs]))
    return pytest.param(
        params, key, expected, notice, marks=marks, id=query if len(query) <= 40 else query[:37] + "..."
    )


HOSTILE = [
    link({"q_len": "abc"}, "q_len", 128, True),
    link({"q_len": ""}, "q_len", 128, True),
    link({"q_len": "\u221e"}, "q_len", 128, True),
    link({"q_len": "1.5"}, "q_len", 1, True),
    link({"q_len": ["5", "7"]}, "q_len", 7, True),  # repeated key: the last one wins, as in st.query_params
    link({"q_len": "9" * 5000}, "q_len", MAX_LEN, True),  # out of range: the nearest bound
    link({"q_len": "inf"}, "q_len", 128, True),
    link({"k_len": "1e309"}, "k_len", MAX_LEN, True),
    link({"k_len": "131073"}, "k_len", MAX_LEN, True),
    link({"num_buckets": "1e309"}, "num_buckets", 256, True),  # sliders: posviz parses first, fine
    link({"max_distance": "1e99"}, "max_distance", MAX_LEN, True),
    link({"max_distance": "nan"}, "max_distance", 128, True),
    link({"max_distance": "Infinity"}, "max_distance", 128, True),
    link({"seed": "<script>alert(1)</script>"}, "seed", 0, True),
    link({"seed": "-1"}, "seed", 0, True),
    link({"seed": "1e99"}, "seed", 2**31 - 1, True),
    link({"seed": "-1e309"}, "seed", 0, True),
    link({"scale": "0.33"}, "scale", 0.35, True),
    link({"scale": "inf"}, "scale", 1.0, True),
    link({"scale": "-1e309"}, "scale", -4.0, True),
    link({"scale": "9"}, "scale", 4.0, True),
    link({"lecture": "1"}, "lecture", True, False),
    link({"lecture": "maybe"}, "lecture", False, True),
    link({"bidirectional": "maybe"}, "bidirectional", True, True),
    link({"align": "sideways"}, "align", "start", True),
    link({"align": "END"}, "align", "end", False),
    link({"heads": "0"}, "heads", 1, True),
    link({"head": "99"}, "head", 7, True),
    link({"heads": "2", "head": "5"}, "head", 1, True),
    link({"step": "2.5"}, "step", 3, True),
]


@pytest.mark.parametrize(("params", "key", "expected", "notice"), HOSTILE)
def test_hostile_link(params, key, expected, notice):
    at = open_t5(**params)
    assert_healthy(at)
    assert value_of(at, key) == (pytest.approx(expected) if isinstance(expected, float) else expected)
    mentioned = [w for w in warnings(at) if f"{key}=" in w]
    if notice is not None:
        assert bool(mentioned) is notice, warnings(at)
    for w in mentioned:
        assert len(w) < 300  # the raw value is quoted short
        assert "<script>" not in w  # user text is escaped, never markup
    assert len(charts(at)) >= 8


def test_out_of_range_link_lands_on_the_bound_and_a_rule_says_what_it_breaks():
    at = open_t5(num_buckets="-3")
    assert not at.exception
    assert value_of(at, "num_buckets") == 1
    assert any("num_buckets=" in w and "using 1" in w for w in warnings(at)), warnings(at)
    assert any("num_buckets" in e for e in errors(at)), errors(at)  # bidirectional needs at least 4


def test_hostile_lecture_link_gives_big_fonts():
    at = open_t5(lecture="1")
    assert {c.spec["layout"]["font"]["size"] for c in charts(at)} == {20}


def test_out_of_range_step_link_is_announced():
    at = open_t5(step="99")
    assert_healthy(at)
    assert value_of(at, "step") == 6  # the last step, the nearest bound
    assert any("step=" in w for w in warnings(at)), warnings(at)


# --- cross-field rules -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "fix"),
    [
        ({"num_buckets": "2"}, "num_buckets >= 4"),
        ({"num_buckets": "1", "bidirectional": "false"}, "num_buckets >= 2"),
        ({"num_buckets": "32", "max_distance": "8"}, "max_distance >= 9"),
        ({"align": "end", "q_len": "200", "k_len": "100"}, "raise k_len to 200"),
    ],
    ids=["bidirectional-2-buckets", "unidirectional-1-bucket", "max-distance-8", "align-end-short-keys"],
)
def test_cross_field_rule(params, fix):
    at = open_t5(**params)
    assert not at.exception
    assert len(errors(at)) == 1 and fix in errors(at)[0], errors(at)
    assert not charts(at)
    for key, raw in params.items():  # the link's values are kept so the user sees what to fix
        value = value_of(at, key)
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # whole-number inputs are float widgets shown without decimals
        assert str(value).lower() == raw


# --- scale -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"q_len": "131072", "k_len": "131072"},
        {"q_len": "131072", "k_len": "131072", "heads": "64", "head": "63", "lecture": "1"},
        {"q_len": "131072", "k_len": "131072", "heads": "16", "lecture": "1"},
        {"q_len": "1000", "k_len": "131072", "align": "end", "bidirectional": "false"},
    ],
    ids=["square", "64-heads-lecture", "16-heads-lecture", "end-aligned-decoder"],
)
def test_huge_lengths(params):
    at = open_t5(**params)
    assert_healthy(at)
    found = charts(at)
    assert len(found) >= 8
    for c in found:
        assert c.size < MAX_CHART_CHARS, (c.key, c.size)
    assert any("Strided sample" in c.subtitle and "of 131072 keys" in c.subtitle for c in found)
    assert any("2048" in c.value for c in at.caption)  # the toy attention says it is capped


# --- the bias table upload -----------------------------------------------------------------------


def test_upload_pickle_is_refused():
    at = open_t5()
    at.get("file_uploader")[0].upload("model.safetensors", b"\x80\x04\x95" + b"\x00" * 64).run()
    assert not at.exception
    assert any("not a safetensors file" in e for e in errors(at)), errors(at)
    assert len(charts(at)) >= 8  # the page carries on with the seeded table


def test_upload_table_is_used():
    at = open_t5()
    data = save({TABLE_NAME: torch.full((32, 8), 0.5)})
    at.get("file_uploader")[0].upload("t5.safetensors", data).run()
    assert_healthy(at)
    assert any("uploaded" in c.value for c in at.caption)
    np.testing.assert_allclose(heatmap_z(chart(at, "t5_bias_head_")), 0.5)


def test_the_editor_and_uploader_wait_until_the_table_is_opened():
    """Closed (a newcomer's first view), the page draws no data grid: the bucket ranges are an HTML
    table, and the bias table is the seeded one, said in a caption."""
    at = open_page(T5_PAGE, all_open=False)
    assert_healthy(at)
    assert not at.dataframe and not at.table and not at.get("file_uploader")
    (ranges,) = tables(at)
    assert list(ranges["bucket"]) == [str(b) for b in range(T5Settings.num_buckets)]
    assert any(c.value == f"Table: seeded N(0, 1) with seed {T5Settings.seed}." for c in at.caption)


def _close_table(at):
    at.session_state["show_table"] = False  # what a click on the expander sets; the link follows
    at.query_params["show_table"] = "false"
    return at.run()


def test_an_uploaded_table_is_kept_while_the_editor_is_closed():
    at = open_t5()
    at.get("file_uploader")[0].upload("t5.safetensors", save({TABLE_NAME: torch.full((32, 8), 0.5)})).run()
    at = _close_table(at)
    assert_healthy(at)
    assert not at.dataframe  # closed: no editor
    assert any("uploaded" in c.value and "as you left it" in c.value for c in at.caption)
    np.testing.assert_allclose(heatmap_z(chart(at, "t5_bias_head_")), 0.5)

    at.session_state["show_table"] = True  # opened again: the editor starts from the kept table
    at.run()
    (editor,) = at.dataframe
    np.testing.assert_allclose(editor.value.to_numpy(), 0.5)
    np.testing.assert_allclose(heatmap_z(chart(at, "t5_bias_head_")), 0.5)

    at = change(at, "seed", 3)  # another seed is another table: the kept one no longer applies
    assert_healthy(at)
    assert not np.allclose(heatmap_z(chart(at, "t5_bias_head_")), 0.5)


def test_removing_the_upload_goes_back_to_the_seeded_table():
    at = open_t5()
    seeded = heatmap_z(chart(at, "t5_bias_head_"))
    at.get("file_uploader")[0].upload("t5.safetensors", save({TABLE_NAME: torch.full((32, 8), 0.5)})).run()
    at.get("file_uploader")[0].set_value(None).run()
    assert_healthy(at)
    np.testing.assert_allclose(heatmap_z(chart(at, "t5_bias_head_")), seeded)
    assert any(c.value.startswith("Table: seeded") for c in at.caption)


def test_upload_other_shape_offers_to_switch():
    at = open_t5()
    data = save({TABLE_NAME.replace("encoder", "decoder"): torch.ones(16, 4)})
    at.get("file_uploader")[0].upload("t5.safetensors", data).run()
    assert not at.exception
    assert any("(16, 4) unidirectional" in e for e in errors(at)), errors(at)
    at.button(key="t5_apply_shape").click().run()
    assert_healthy(at)
    assert (value_of(at, "num_buckets"), value_of(at, "heads"), value_of(at, "bidirectional")) == (16, 4, False)
    np.testing.assert_allclose(heatmap_z(chart(at, "t5_bias_head_")), 1.0)

"""Sections whose figures wait to be opened, and code blocks drawn only while open (posviz.ui.sections)."""

from __future__ import annotations

import pytest

from posviz.schemes import PAGES as SCHEME_PAGES
from posviz.ui.sections import OnDemand
from posviz.ui.t5 import texts as t5_texts

from .conftest import assert_healthy, charts, figures, open_code, open_page, open_t5, warnings

# Each page with on-demand sections: its script, its charts at the defaults, and with every section open.
PAGES = {
    "pages/t5.py": (4, 9),
    "pages/rope.py": (4, 10),
    "pages/sinusoidal.py": (4, 6),
    "pages/shaw.py": (3, 7),
    "pages/cope.py": (3, 6),  # the masking pitfall's two figures wait for their own toggle
    "pages/vision.py": (4, 10),  # the offsets, the encoders' split, video 3-D RoPE and V2PE wait to be opened
}
T5_FIRST = ["fig_t5_relative_positions", "fig_t5_step_1", "fig_t5_buckets", "fig_t5_bucket_profile"]
T5_ATTENTION = {"fig_t5_attention_head_0", "fig_t5_attention_row_head_0"}


def keys(at) -> list[str]:
    return [c.key for c in charts(at)]


def section_labels(at) -> list[str]:
    return [e.label for e in at.expander if (e.key or "").startswith("show_")]


@pytest.mark.parametrize("page", list(PAGES))
def test_a_page_draws_its_first_figures_and_the_rest_on_demand(page):
    first, every = PAGES[page]
    closed = open_page(page, all_open=False)
    assert_healthy(closed)
    assert len(charts(closed)) == first
    assert section_labels(closed), "no section waits to be opened"
    opened = open_page(page)
    assert_healthy(opened)
    assert len(charts(opened)) == every
    assert keys(opened)[:first] == keys(closed)  # the first sections are the same either way


def test_t5_defaults_draw_the_bucket_sections_only():
    at = open_t5(all_open=False)
    assert keys(at) == T5_FIRST
    parts = [t5_texts.SHOW_TABLE, t5_texts.SHOW_BIAS, t5_texts.SHOW_ATTENTION, t5_texts.SHOW_PITFALL]
    assert section_labels(at) == [part.label for part in parts]
    box = [e for e in at.expander if e.key == "show_attention"]
    assert len(box) == 1 and len(figures(box[0])) == 0


def test_a_link_opens_one_section():
    at = open_t5(all_open=False, show_attention="true")
    assert_healthy(at)
    assert set(keys(at)) == set(T5_FIRST) | T5_ATTENTION
    assert at.query_params["show_attention"] in ("true", ["true"])  # the link keeps it


def test_opening_a_section_in_the_page_draws_its_figures():
    at = open_t5(all_open=False)
    at.session_state["show_pitfall"] = True  # what a click on the expander sets
    at.run()
    assert_healthy(at)
    assert keys(at) == [*T5_FIRST, "fig_t5_transpose_pitfall"]


@pytest.mark.parametrize("raw", ["banana", "1", "<b>x</b>"])
def test_a_malformed_section_value_is_announced_and_the_page_still_works(raw):
    at = open_t5(all_open=False, show_bias=raw)
    assert_healthy(at)
    notices = [w for w in warnings(at) if "show_bias" in w]
    assert len(notices) == 1 and "neither true nor false" in notices[0], warnings(at)
    assert "<b>" not in notices[0]
    assert keys(at) == T5_FIRST


def test_on_demand_keys_are_marked_and_unique_per_page():
    with pytest.raises(ValueError, match="show_"):
        OnDemand("attention", "Attention")
    for page in PAGES:
        at = open_page(page)  # a duplicated key would be Streamlit's DuplicateWidgetID exception
        assert_healthy(at)


def test_code_blocks_are_drawn_only_while_open():
    at = open_t5(all_open=False)
    blocks = [e for e in at.expander if e.label == "PyTorch code"]
    assert len(blocks) == len(charts(at))
    assert all(len(e.code) == 0 for e in blocks), "a closed code block was drawn"
    open_code(at)
    assert all(len(e.code) == 1 for e in at.expander if e.label == "PyTorch code")


def test_an_open_code_block_stays_open_while_stepping_through():
    at = open_t5(all_open=False)
    at.session_state["code_t5_step"] = True
    at.run()
    step_code = [e for e in at.expander if e.key == "code_t5_step"]
    assert len(step_code) == 1 and len(step_code[0].code) == 1
    at.button(key="step_next").click().run()
    assert_healthy(at)
    step_code = [e for e in at.expander if e.key == "code_t5_step"]
    assert len(step_code) == 1 and len(step_code[0].code) == 1, "the code block closed on Next"
    assert keys(at)[1] == "fig_t5_step_2"


@pytest.mark.parametrize("page", [p.path for p in SCHEME_PAGES], ids=lambda p: p.split("/")[-1])
def test_a_first_visit_draws_no_highlighted_code(page):
    # st.code makes the browser load Streamlit's 1.5 MB syntax highlighter: code in the text is
    # drawn by posviz.ui.chrome.short_code, and the "PyTorch code" blocks only while open.
    at = open_page(page, all_open=False)
    assert_healthy(at)
    assert not at.code, [c.value[:40] for c in at.code]


def test_the_t5_pitfall_code_is_in_the_text():
    at = open_t5(q_len="12", k_len="12", heads="4")
    shown = [h.proto.body for h in at.get("html") if h.proto.body.startswith('<pre class="posviz-code">')]
    assert len(shown) == 1 and "(12, 12, 4): (q_len, k_len, heads)" in shown[0]
    assert "<script" not in shown[0]

"""A page narrows a choice (params.narrowed) as it may change a default; control() corrects the link."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.registry import all_params

PARAMS = all_params()  # the shared keys and every scheme's own


def _script() -> None:
    import streamlit as st

    from posviz.ui.controls import control, finish_run, show_notices
    from posviz.ui.params import PARAMS, narrowed

    st.session_state["chosen"] = control(narrowed(PARAMS["layout"], options=("interleaved", "concat")))
    show_notices()
    finish_run()  # as app.py: a corrected link value is drawn on the rerun


def _open(**params: str) -> AppTest:
    at = AppTest.from_function(_script, default_timeout=30)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def test_the_definition_holds_every_layout():
    assert {"interleaved", "half", "concat"} <= set(PARAMS["layout"].options)


def test_narrowed_radio_offers_only_the_page_options():
    at = _open()
    assert not at.exception
    radio = at.radio(key="layout")
    assert list(radio.options) == ["interleaved", "concat"]
    assert radio.value == "interleaved" and not at.warning


def test_an_option_of_another_page_falls_back_with_a_notice():
    at = _open(layout="half")  # RoPE's layout, not the sinusoidal page's
    assert not at.exception
    assert at.session_state["chosen"] == "interleaved"
    assert at.radio(key="layout").value == "interleaved"
    notices = [w.value for w in at.warning]
    assert any("layout=half" in n and "interleaved, concat" in n for n in notices), notices
    assert "layout" not in at.query_params  # the address bar holds the view: the default, left out


def test_an_allowed_option_is_taken():
    at = _open(layout="concat")
    assert at.session_state["chosen"] == "concat" and not at.warning


def _zoom_script() -> None:
    import streamlit as st

    from posviz.ui.controls import control, finish_run, set_on_next_run, start_run

    start_run("t5")
    st.button("zoom", on_click=set_on_next_run, args=({"window": 16, "q_start": 40},))
    if control("window"):
        control("q_start")
    finish_run()


def test_a_value_set_for_the_next_run_reaches_the_widget_and_the_link():
    at = AppTest.from_function(_zoom_script, default_timeout=30).run()
    assert "q_start" not in at.query_params
    at.button[0].click().run()
    assert not at.exception
    assert at.number_input(key="window").value == 16 and at.number_input(key="q_start").value == 40
    link = at.query_params
    assert float(link["window"]) == 16 and link.get("q_start") == "40", link  # "16.0" too: Streamlit writes window


def test_a_corrected_link_is_written_back_once():
    at = _open(layout="CONCAT")  # taken, written as the option itself
    assert at.session_state["chosen"] == "concat" and not at.warning
    assert at.query_params.get("layout") == "concat"


def test_unknown_page_reads_the_path_after_the_apps_own_prefix():
    from posviz.ui.controls import unknown_page

    assert unknown_page(None) is None
    assert unknown_page("http://host:8501") is None
    assert unknown_page("http://host:8501/") is None
    assert unknown_page("http://host:8501/nosuchpage") == "nosuchpage"
    assert unknown_page("http://host/posviz", "posviz") is None
    assert unknown_page("http://host/posviz/", "/posviz/") is None
    assert unknown_page("http://host/posviz/t6", "posviz") == "t6"
    assert unknown_page("http://host/a%20b") == "a b"

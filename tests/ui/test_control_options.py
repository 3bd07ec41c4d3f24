"""control(key, options=...) narrows a choice per page, as default= changes its default."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.registry import all_params

PARAMS = all_params()  # the shared keys and every scheme's own


def _script() -> None:
    import streamlit as st

    from posviz.ui.controls import control, show_notices

    st.session_state["chosen"] = control("layout", options=("interleaved", "concat"))
    show_notices()


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


def test_an_allowed_option_is_taken():
    at = _open(layout="concat")
    assert at.session_state["chosen"] == "concat" and not at.warning

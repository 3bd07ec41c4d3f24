"""Moving between pages in one session: shared keys, each page's own values."""

from __future__ import annotations

from .conftest import assert_healthy, open_page, value_of, widget


def test_a_new_page_opens_with_its_own_defaults_not_the_last_pages_values():
    at = open_page("pages/skew.py", seq_len="12", lecture="1")
    assert value_of(at, "seq_len") == 12
    at.query_params.clear()  # a sidebar link opens the new page's path without the old query string
    at.query_params["lecture"] = "true"
    at.switch_page("pages/rope.py").run()
    assert_healthy(at)
    assert value_of(at, "seq_len") == 16384  # RoPE's default, not the skew's 12
    assert value_of(at, "lecture") is True  # the shared sidebar keeps lecture mode
    at.switch_page("pages/shaw.py").run()
    widget(at, "q_len").set_value(40.0).run()
    at.switch_page("pages/t5.py").run()
    assert_healthy(at)
    assert value_of(at, "q_len") == 128  # T5's default, not Shaw's 40


def test_staying_on_a_page_keeps_its_values():
    at = open_page("pages/skew.py", seq_len="12")
    widget(at, "dim").set_value(16.0).run()
    assert value_of(at, "seq_len") == 12 and value_of(at, "dim") == 16

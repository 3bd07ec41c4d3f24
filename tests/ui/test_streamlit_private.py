"""posviz.ui.streamlit_private against the installed Streamlit: fails when Streamlit changes what it relies on."""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import script_runner
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def test_streamlit_still_has_the_legacy_runner_and_its_flag() -> None:
    assert "uses_pages_directory" in vars(PagesManager)
    run = inspect.getsource(script_runner.ScriptRunner)
    assert "if PagesManager.uses_pages_directory:" in run and "_mpa_v1(self._main_script_path)" in run


def test_a_legacy_run_is_sent_back_through_the_main_script(tmp_path: Path) -> None:
    # A main script beside a pages/ folder: Streamlit runs it through its legacy runner first.
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "other.py").write_text("import streamlit as st\nst.write('other')\n")
    main = tmp_path / "app.py"
    main.write_text(
        textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(ROOT)!r})
            import streamlit as st
            from posviz.ui.streamlit_private import _in_legacy_run, ensure_app_entry

            st.session_state.setdefault("legacy", []).append(_in_legacy_run())
            ensure_app_entry()
            st.write("entered")
            """
        )
    )
    at = AppTest.from_file(str(main), default_timeout=30).run()
    assert not at.exception
    assert at.session_state["legacy"] == [True, False]  # the legacy run, then the rerun through app.py
    assert PagesManager.uses_pages_directory is False
    assert [m.value for m in at.markdown] == ["entered"]

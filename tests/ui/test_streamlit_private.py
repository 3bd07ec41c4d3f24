"""posviz.ui.streamlit_private against the installed Streamlit: fails when Streamlit changes what it relies on."""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path, PurePosixPath

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


def _class_sweeps(mgr, monkeypatch, owner: str):
    """A click in ``owner``'s session makes a file; then two other students' runs end (two sweeps)."""
    from streamlit.runtime import media_file_manager

    monkeypatch.setattr(media_file_manager, "_get_session_id", lambda: owner)
    deferred = mgr.add_deferred(lambda: "i,j\n0,1\n", "text/csv", "1.(2).3", file_name="fig.csv")
    made = PurePosixPath(mgr.execute_deferred(deferred)).stem
    for other in ("student-2", "student-3"):
        mgr.clear_session_refs(other)
        mgr.remove_orphaned_files()
    return made


def test_streamlit_still_leaves_a_file_made_on_click_to_no_session(monkeypatch) -> None:
    """The reason for keep_made_downloads: unwrapped, two other runs' sweeps delete the made file.
    When this fails, Streamlit keeps the file itself and the wrapper can go."""
    from streamlit.runtime.media_file_manager import MediaFileManager
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    from posviz.ui.streamlit_private import keep_made_downloads

    keep_made_downloads()
    original = MediaFileManager.execute_deferred.__wrapped__
    monkeypatch.setattr(MediaFileManager, "execute_deferred", original)
    mgr = MediaFileManager(MemoryMediaFileStorage("/media"))
    made = _class_sweeps(mgr, monkeypatch, "student-1")
    assert mgr.read_file(made) is None


def test_a_file_made_on_click_lives_until_its_sessions_next_run(monkeypatch) -> None:
    from streamlit.runtime import media_file_manager
    from streamlit.runtime.media_file_manager import MediaFileManager
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    from posviz.ui.streamlit_private import keep_made_downloads

    keep_made_downloads()
    keep_made_downloads()  # once per process, however often it is called
    assert not hasattr(MediaFileManager.execute_deferred.__wrapped__, "__wrapped__")
    mgr = MediaFileManager(MemoryMediaFileStorage("/media"))
    made = _class_sweeps(mgr, monkeypatch, "student-1")
    file = mgr.read_file(made)
    assert file is not None and file.content == b"i,j\n0,1\n" and file.filename == "fig.csv"
    monkeypatch.setattr(media_file_manager, "_get_session_id", lambda: "student-1")
    mgr.clear_session_refs("student-1")  # the session's own next full run lets it go: nothing piles up
    mgr.remove_orphaned_files()
    mgr.remove_orphaned_files()
    assert mgr.read_file(made) is None


def test_a_widget_is_still_seeded_from_the_query_params_initial_values() -> None:
    """seed_link writes where Streamlit reads a new bound widget's seed from."""
    from streamlit.runtime.state.query_params import QueryParams
    from streamlit.runtime.state.session_state import SessionState

    params = QueryParams()
    params.set_initial_query_params("key=15")
    params._initial_query_params["key"] = ["14"]
    assert params.get_initial_value("key") == "14"
    binding = inspect.getsource(SessionState._handle_query_param_binding)
    assert "self.query_params.get_initial_value(user_key)" in binding

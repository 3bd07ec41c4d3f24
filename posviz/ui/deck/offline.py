"""The deck on screen as one HTML file that needs no server (``python -m posviz.deck export``), from the app.

The export runs the deck's pages headless, which is a few seconds a slide: it runs in a process of
its own (the same command a teacher types), one at a time, and each deck's file is kept (by its
text) for the next teacher who asks. The button makes the file; a download button then offers it.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import threading
from pathlib import Path

import streamlit as st

from posviz.i18n import _
from posviz.ui.deck import model
from posviz.ui.deck.model import Deck
from posviz.ui.state import DECK_EXPORTS

ROOT = Path(__file__).resolve().parents[3]
TIMEOUT_S = 900.0
_ONE_AT_A_TIME = threading.Lock()


class ExportFailed(RuntimeError):
    """The export command did not write the file (its last line of output says why)."""


@st.cache_data(max_entries=6, show_spinner=False)
def exported(text: str) -> bytes:
    """The HTML file of the deck whose TOML is ``text``."""
    with _ONE_AT_A_TIME:
        done = subprocess.run(
            [sys.executable, "-m", "posviz.deck", "export", "-", "-o", "-"],
            input=text.encode("utf-8"),
            capture_output=True,
            cwd=ROOT,
            timeout=TIMEOUT_S,
        )
    if done.returncode != 0 or not done.stdout.startswith(b"<!DOCTYPE html>"):
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ExportFailed(lines[-1] if lines else f"exit status {done.returncode}")
    return done.stdout


def offer(deck: Deck, key: str) -> None:
    """A button that makes ``deck``'s HTML file, then a download button for it (``key``, ``key``_file)."""
    text = model.dumps(deck)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    asked = st.session_state.setdefault(DECK_EXPORTS, set())
    if digest not in asked:
        st.button(
            _("Make the deck one HTML file"),
            key=key,
            icon=":material/offline_pin:",
            on_click=asked.add,  # a callback: a rerun before the button is drawn again keeps the press
            args=(digest,),
            help=_(
                "Every slide's figure, the notes, the clicker's keys and a presenter window in one file "
                "that opens from a USB stick with no network (a few seconds a slide)."
            ),
        )
        return
    with st.spinner(_("Drawing every slide for the file…")):
        try:
            data = exported(text)
        except (ExportFailed, subprocess.TimeoutExpired) as err:
            asked.discard(digest)
            st.error(_("The deck could not be exported: {error}").format(error=err), icon=":material/error:")
            return
    st.download_button(
        _("Download the deck as HTML ({size} MB)").format(size=f"{len(data) / 1e6:.1f}"),
        data=data,
        file_name="deck.html",
        mime="text/html",
        key=f"{key}_file",
        icon=":material/download:",
        on_click="ignore",
    )

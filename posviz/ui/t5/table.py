"""The T5 bias table: seeded, edited in the page, or uploaded from a real checkpoint."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from posviz.checkpoints import EXTRACT_SNIPPET, CheckpointError, read_bias_tables
from posviz.figures.t5_bias import seeded_table
from posviz.i18n import _
from posviz.ui import state
from posviz.ui.params import plain
from posviz.ui.t5 import texts
from posviz.ui.t5.settings import T5Settings

MAX_UPLOAD_MB = 16  # a bias table is a few KiB; whole checkpoints should be cut down first


def _apply_shape(num_buckets: int, heads: int, bidirectional: bool) -> None:
    st.session_state["num_buckets"] = num_buckets
    st.session_state["heads"] = heads
    st.session_state["bidirectional"] = bidirectional


def uploaded_table(s: T5Settings) -> tuple[np.ndarray, str] | None:
    """A table from an uploaded ``.safetensors`` file, or None (with the reason shown)."""
    up = st.file_uploader(
        _("Upload a real checkpoint's relative_attention_bias.weight (.safetensors only, at most {mb} MiB)").format(
            mb=MAX_UPLOAD_MB
        ),
        type=["safetensors"],
        key="t5_upload",
    )
    if up is None:
        return None
    try:
        tables = read_bias_tables(up.getvalue(), max_bytes=MAX_UPLOAD_MB * 2**20)
    except CheckpointError as err:
        st.error(plain(str(err)), icon=":material/block:")  # the message quotes names from the file
        st.caption(_("To save just the table of a full checkpoint into a small file:"))
        st.code(EXTRACT_SNIPPET, language="python")
        return None
    other = "decoder" if s.bidirectional else "encoder"
    names = sorted(tables, key=lambda name: other in name)  # the table matching the current mode first
    name = st.selectbox(_("Table in the file"), names, key="t5_upload_name") if len(names) > 1 else names[0]
    table = tables[name]
    nb, heads = table.shape
    # T5 keeps a bidirectional table in the encoder and a unidirectional one in the decoder.
    direction = True if "encoder" in name else False if "decoder" in name else s.bidirectional
    if (nb, heads, direction) != (s.num_buckets, s.heads, s.bidirectional):
        mode = _("bidirectional") if direction else _("unidirectional")
        st.error(
            _(
                "'{name}' is a ({nb}, {heads}) {mode} table, but the page is set to num_buckets = "
                "{num_buckets}, heads = {page_heads}, {page_mode}."
            ).format(
                name=plain(name),
                nb=nb,
                heads=heads,
                mode=mode,
                num_buckets=s.num_buckets,
                page_heads=s.heads,
                page_mode=_("bidirectional") if s.bidirectional else _("unidirectional"),
            ),
            icon=":material/straighten:",
        )
        if 1 <= nb <= 256 and 1 <= heads <= 64:
            st.button(
                _("Use num_buckets = {nb}, heads = {heads}, {mode}").format(nb=nb, heads=heads, mode=mode),
                on_click=_apply_shape,
                args=(nb, heads, direction),
                key="t5_apply_shape",
            )
        else:
            st.caption(_("That shape is outside what this page allows (num_buckets <= 256, heads <= 64)."))
        return None
    return table.numpy(), _("uploaded '{name}'").format(name=plain(name))


def _seeded(s: T5Settings) -> np.ndarray:
    return seeded_table(num_buckets=s.num_buckets, heads=s.heads, seed=s.seed)


KEPT = state.T5_KEPT  # session state: the table in use, kept while its editor is closed


@dataclass(frozen=True)
class Kept:
    """A table other than the seeded one, and where it came from."""

    shape: tuple[int, int, int]  # (num_buckets, heads, seed) it was made for
    base: np.ndarray  # (num_buckets, heads) float32: what the editor started from
    source: str  # "uploaded '...'", or how the base was seeded
    table: np.ndarray  # (num_buckets, heads) float32: the base with the reader's edits
    editor: str  # the editor's widget key
    uploaded: bool  # the base is the file in the uploader (not a table kept from an earlier opening)


def _editor(s: T5Settings, kept: Kept | None) -> Kept:
    """The uploader and the editor (drawn while the table is open); the table they give."""
    shape = (s.num_buckets, s.heads, s.seed)
    alive = kept is not None and kept.editor in st.session_state  # the editor was drawn on the last run
    upload = uploaded_table(s)
    if upload is not None:
        (base, source), uploaded = upload, True
    elif kept is not None and alive and not kept.uploaded:
        base, source, uploaded = kept.base, kept.source, False
    elif kept is not None and not alive:  # opened again: go on from the table in use
        edited = not np.array_equal(kept.table, kept.base)
        base, source, uploaded = kept.table, kept.source + (_(", edited") * edited), False
    else:  # nothing kept, or the uploaded file was removed
        base, source, uploaded = _seeded(s), _("seeded N(0, 1) with seed {seed}").format(seed=s.seed), False
    frame = pd.DataFrame(
        base,
        index=pd.RangeIndex(s.num_buckets, name=_("bucket")),
        columns=[_("head {h}").format(h=h) for h in range(s.heads)],
    )
    st.caption(
        _("Table: {source}. Click a cell to edit it; edits and uploads are not part of the link.").format(source=source)
    )
    key = f"t5_table_{s.num_buckets}_{s.heads}_{hashlib.sha1(base.tobytes()).hexdigest()[:12]}"
    edited = st.data_editor(
        frame,
        key=key,
        height=min(420, 36 + 35 * s.num_buckets),
        column_config={c: st.column_config.NumberColumn(c, format="%.4f") for c in frame.columns},
    )
    table = edited.astype("float32").fillna(0.0).to_numpy(np.float32)
    return Kept(shape, base, source, table, key, uploaded)


def bias_table_input(s: T5Settings) -> tuple[np.ndarray, bool]:
    """The (num_buckets, heads) float32 table in use; and whether it is the seeded one.

    The uploader and the editor are drawn only while the reader opens them (Streamlit's
    data grid is a bundle of its own that a first visit would load: ``static_table``). An
    uploaded or edited table is kept in the session while they are closed, for the same
    num_buckets, heads and seed.
    """
    shape, seeded = (s.num_buckets, s.heads, s.seed), _seeded(s)
    kept = st.session_state.get(KEPT)
    kept = kept if isinstance(kept, Kept) and kept.shape == shape else None
    note = st.container()
    with texts.opened(texts.SHOW_TABLE) as shown:
        if shown:
            kept = _editor(s, kept)
    if kept is None or np.array_equal(kept.table, seeded):
        st.session_state.pop(KEPT, None)
        if not shown:
            note.caption(_("Table: seeded N(0, 1) with seed {seed}.").format(seed=s.seed))
        return seeded, True
    st.session_state[KEPT] = kept
    if not shown:
        note.caption(
            _("Table: {source}, as you left it in the editor (kept in this session, not in the link).").format(
                source=kept.source
            )
        )
    return kept.table, False

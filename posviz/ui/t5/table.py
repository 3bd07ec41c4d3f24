"""The T5 bias table: seeded, edited in the page, or uploaded from a real checkpoint."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from posviz.checkpoints import EXTRACT_SNIPPET, CheckpointError, read_bias_tables
from posviz.ui.params import plain
from posviz.ui.t5.settings import T5Settings
from posviz.ui.t5.views import seeded_table

MAX_UPLOAD_MB = 16  # a bias table is a few KiB; whole checkpoints should be cut down first


def _apply_shape(num_buckets: int, heads: int, bidirectional: bool) -> None:
    st.session_state["num_buckets"] = num_buckets
    st.session_state["heads"] = heads
    st.session_state["bidirectional"] = bidirectional


def uploaded_table(s: T5Settings) -> tuple[np.ndarray, str] | None:
    """A table from an uploaded ``.safetensors`` file, or None (with the reason shown)."""
    up = st.file_uploader(
        f"Upload a real checkpoint's relative_attention_bias.weight (.safetensors only, at most {MAX_UPLOAD_MB} MiB)",
        type=["safetensors"],
        key="t5_upload",
    )
    if up is None:
        return None
    try:
        tables = read_bias_tables(up.getvalue(), max_bytes=MAX_UPLOAD_MB * 2**20)
    except CheckpointError as err:
        st.error(plain(str(err)), icon=":material/block:")  # the message quotes names from the file
        st.caption("To save just the table of a full checkpoint into a small file:")
        st.code(EXTRACT_SNIPPET, language="python")
        return None
    other = "decoder" if s.bidirectional else "encoder"
    names = sorted(tables, key=lambda name: other in name)  # the table matching the current mode first
    name = st.selectbox("Table in the file", names, key="t5_upload_name") if len(names) > 1 else names[0]
    table = tables[name]
    nb, heads = table.shape
    # T5 keeps a bidirectional table in the encoder and a unidirectional one in the decoder.
    direction = True if "encoder" in name else False if "decoder" in name else s.bidirectional
    if (nb, heads, direction) != (s.num_buckets, s.heads, s.bidirectional):
        mode = "bidirectional" if direction else "unidirectional"
        st.error(
            f"'{plain(name)}' is a ({nb}, {heads}) {mode} table, but the page is set to num_buckets = "
            f"{s.num_buckets}, heads = {s.heads}, {'bidirectional' if s.bidirectional else 'unidirectional'}.",
            icon=":material/straighten:",
        )
        if 1 <= nb <= 256 and 1 <= heads <= 64:
            st.button(
                f"Use num_buckets = {nb}, heads = {heads}, {mode}",
                on_click=_apply_shape,
                args=(nb, heads, direction),
                key="t5_apply_shape",
            )
        else:
            st.caption("That shape is outside what this page allows (num_buckets <= 256, heads <= 64).")
        return None
    return table.numpy(), f"uploaded '{plain(name)}'"


def bias_table_input(s: T5Settings) -> tuple[np.ndarray, bool]:
    """The (num_buckets, heads) float32 table in use, editable; and whether it is the seeded one."""
    upload = uploaded_table(s)
    base, source = (
        upload
        if upload is not None
        else (seeded_table(s.num_buckets, s.heads, s.seed), f"seeded N(0, 1) with seed {s.seed}")
    )
    frame = pd.DataFrame(
        base, index=pd.RangeIndex(s.num_buckets, name="bucket"), columns=[f"head {h}" for h in range(s.heads)]
    )
    st.caption(f"Table: {source}. Click a cell to edit it; edits and uploads are not part of the link.")
    edited = st.data_editor(
        frame,
        key=f"t5_table_{s.num_buckets}_{s.heads}_{s.seed}_{source}",
        height=min(420, 36 + 35 * s.num_buckets),
        column_config={c: st.column_config.NumberColumn(c, format="%.4f") for c in frame.columns},
    )
    table = edited.astype("float32").fillna(0.0).to_numpy(np.float32)
    return table, upload is None and np.array_equal(table, base)

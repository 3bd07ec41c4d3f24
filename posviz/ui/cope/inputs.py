"""The CoPE page's inputs beyond the sidebar settings: the text box, the inspected pair, the gate table.

The inspected pair's bounds and default follow the text (the last token is
the default query), which ``setting(bounds=, when=)`` cannot express; the
text box sits in the page, under its section.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from posviz.encodings.cope import cope_gate_values
from posviz.encodings.cope_toy import word_gates
from posviz.encodings.tokens import count_tokens
from posviz.figures.cope import COPE_MAX_TOKENS, tokens_of
from posviz.i18n import _
from posviz.ui.chrome import anchor_of
from posviz.ui.controls import control
from posviz.ui.cope import texts
from posviz.ui.cope.settings import KEY, MASK_AFTER, QUERY, TEXT, CopeSettings, SidebarSettings
from posviz.ui.params import narrowed


@dataclass(frozen=True)
class Tokens:
    """The tokens the page reads, and how many the text has."""

    tokens: list[str]
    total: int  # tokens in the whole text (more than len(tokens) when cut)


def text_control(side: SidebarSettings, where: Any) -> tuple[CopeSettings, Tokens]:
    """The text box (bound to ``text``) and its tokens, at most ``COPE_MAX_TOKENS``."""
    text = control(TEXT, where=where)
    tokens = tokens_of(text)
    total = len(tokens) if len(tokens) < COPE_MAX_TOKENS else count_tokens(text)
    return CopeSettings(**asdict(side), text=text), Tokens(tokens=tokens, total=total)


def inspect_controls(s: CopeSettings, n: int) -> CopeSettings:
    """The inspected query ``i`` (default: the last token) and key ``j <= i``."""
    st.sidebar.subheader(_("Inspect"), anchor=anchor_of("Inspect"))
    query = control(narrowed(QUERY, default=n - 1), max_value=n - 1) if n > 1 else 0
    key = control(narrowed(KEY, default=query // 2), max_value=query) if query > 0 else 0
    return replace(s, query=query, key=key)


def mask_after_control(where: Any) -> bool:
    """The pitfall toggle (drawn inside its fragment: turning it reruns that section only)."""
    return control(MASK_AFTER, where=where)


def custom_gate_table(s: CopeSettings, tokens: list[str]) -> np.ndarray:
    """The per-token gate table (``st.data_editor``); returns (n,) float32 in [0, 1]."""
    frame = pd.DataFrame(
        {"token": tokens, "gate": word_gates(tokens).numpy()}, index=pd.RangeIndex(len(tokens), name="j")
    )
    digest = hashlib.sha1(s.text.encode("utf-8", "replace")).hexdigest()[:16]
    st.caption(_(texts.CUSTOM_GATES))
    edited = st.data_editor(
        frame,
        key=f"cope_gates_{digest}",
        disabled=["token"],
        height=min(420, 38 + 35 * len(tokens)),
        column_config={
            "token": st.column_config.TextColumn(_("token")),
            "gate": st.column_config.NumberColumn(_("gate"), min_value=0.0, max_value=1.0, step=0.05, format="%.2f"),
        },
    )
    return cope_gate_values(edited["gate"].tolist()).numpy()

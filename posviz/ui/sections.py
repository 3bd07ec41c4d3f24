"""Figures drawn when the reader opens them: the later sections of a page.

A page draws its first sections at once (about its first four figures, what a
newcomer sees in the first screens). Past them, each section keeps its
heading and explanation on the page, and its figures sit in an expander that
runs only while it is open: closed, they cost the server nothing to build or
send and the browser nothing to draw. Its state is in the link
(``bind="query-params"``, key ``show_<name>``): a teacher's link with
``show_attention=true`` reopens that section open.

Streamlit drops a value it cannot read as a boolean without a word; the reader
is told instead, as for every other link value.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import streamlit as st

from posviz.i18n import _
from posviz.schemes import PAGES, load
from posviz.ui.front import asset
from posviz.ui.params import quote_raw


@dataclass(frozen=True)
class OnDemand:
    """A section's figures behind an expander: its URL key and what opening it draws."""

    key: str  # "show_<name>": the query parameter and the expander's key
    label: str  # names the figures, e.g. "Attention maps: without and with the bias" (English, marked N_)

    def __post_init__(self) -> None:
        if not self.key.startswith("show_"):
            raise ValueError(f"on-demand keys start with 'show_': {self.key!r}")


@contextmanager
def on_demand(part: OnDemand, *, expanded: bool = False) -> Iterator[bool]:
    """An expander bound to ``part.key``; yields whether it is open (draw its figures only then).

    Usage::

        with on_demand(ATTENTION) as shown:
            if shown:
                show_figure(...)
    """
    raw = st.query_params.get(part.key)
    label = _(part.label)
    if raw is not None and raw.lower() not in ("true", "false"):
        left = (
            _("The link's {key}={value} is neither true nor false: '{label}' is left open.")
            if expanded
            else _("The link's {key}={value} is neither true nor false: '{label}' is left closed.")
        )
        st.warning(left.format(key=part.key, value=quote_raw(raw), label=label), icon=":material/link_off:")
    box = st.expander(label, expanded=expanded, key=part.key, bind="query-params", icon=":material/bar_chart:")
    with box:
        yield bool(box.open)


def sections_of(page: str) -> list[OnDemand]:
    """The sections drawn on demand of the page at URL path ``page``, from the module its registry entry names."""
    found = next((p for p in PAGES if p.key == page), None)
    if found is None or found.sections is None:
        return []
    return [obj for obj in vars(load(found.sections)).values() if isinstance(obj, OnDemand)]


def every_on_demand() -> list[OnDemand]:
    """Every page's sections drawn on demand, in the registry's order (for links that open them all)."""
    found: dict[str, OnDemand] = {}
    for page in PAGES:
        for part in sections_of(page.key):
            found.setdefault(part.key, part)
    return list(found.values())


def every_section_open() -> dict[str, str]:
    """Query parameters that open every on-demand section of any page (the benchmark, the tests)."""
    return {part.key: "true" for part in every_on_demand()}


# Static script (no user text). Two things a room needs that Streamlit leaves out:
# - A link with #anchor (every section heading has one: Streamlit derives it from the heading's text,
#   e.g. /t5#2-the-bucket-pipeline-step-by-step) opens there. Streamlit scrolls to the heading once,
#   when it is drawn; the figures above it are drawn later and push it down. This keeps the heading
#   at the top while the page lays itself out, until the reader scrolls or clicks, or for 20 s.
#   A deck's slide with an anchor does the same: its bar holds the link to the section
#   (posviz.ui.deck.present, in a container keyed by the slide), which a move to the slide brings.
# - A walk-through pages by step: after Previous or Next, the walk-through's buttons are at the top
#   of the screen, so its figure fills a 720 px projector whatever was read before.
_ANCHOR_JS = "<script>\n" + asset("anchor.js") + "</script>"


def anchors() -> None:
    """Links open at their #anchor and walk-throughs page by step (call once per run, app-wide).

    In the sidebar: the main area holds no script element (the tests of hostile links check that).
    """
    st.sidebar.html(_ANCHOR_JS, unsafe_allow_javascript=True)

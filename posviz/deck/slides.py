"""Each slide's figure, as the app draws it: the slide's page run headless with the slide's settings.

The page runs through ``app.py`` in :class:`streamlit.testing.v1.AppTest`, exactly as a fresh
window opened at the slide's link with lecture mode on (as a deck presents it). The figure spec is
the document the page hands its figure element (``posviz.ui.plot``), so an exported deck draws the
same specs, made by the same functions, as the app.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from posviz.schemes import page_of
from posviz.ui.deck.model import Deck, Step

APP = Path(__file__).resolve().parents[2] / "app.py"
TIMEOUT_S = 180.0  # a cold first run imports torch and fills the caches
PLOT = "posviz_plot"  # posviz.ui.plot's component


@dataclass(frozen=True)
class Slide:
    """One slide of an exported deck: its title and notes (Markdown), and the figure it opens at."""

    title: str
    notes: str
    figure: dict[str, Any] | None  # the Plotly spec ({"data", "layout", ...}); None for a page without one
    alt: str = ""
    problems: tuple[str, ...] = ()  # what the run reported (exceptions, link notices)


def slug(text: str) -> str:
    """The anchor a heading gets in the browser: lower case, each run of other characters one ``-``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _leaves(node: Any) -> Iterator[Any]:
    children = getattr(node, "children", None)
    if children:
        for key in sorted(children):
            yield from _leaves(children[key])
    else:
        yield node


def _figure_at(at: Any, anchor: str) -> tuple[dict[str, Any] | None, str]:
    """The first figure of the page, or the first after the heading ``anchor`` names (as the app opens it)."""
    after = not anchor
    first = None
    for el in _leaves(at.main):
        # A heading's own anchor (a section's is its English title's in every language), else its text's.
        own = getattr(el.proto, "anchor", "") if el.type in ("title", "header", "subheader") else ""
        if el.type in ("title", "header", "subheader") and anchor and (own or slug(str(el.value))) == anchor:
            after = True
        if el.type == "bidi_component" and el.proto.component_name == PLOT:
            doc = json.loads(el.proto.bytes)
            found = (doc["figure"], str(doc.get("alt", "")))
            if after:
                return found
            first = first or found
    return first if first is not None else (None, "")


def slide_of(step: Step, *, timeout: float = TIMEOUT_S, lang: str = "") -> Slide:
    """Run the step's page with its settings (lecture mode on unless the link says; in ``lang`` unless the
    link says) and take its figure."""
    from streamlit.logger import set_log_level
    from streamlit.testing.v1 import AppTest  # the CLI's dependency, not the package's

    set_log_level("error")  # a headless run's "missing ScriptRunContext" warnings are expected

    at = AppTest.from_file(str(APP), default_timeout=timeout)
    params = dict(step.params)
    params.setdefault("lecture", "true")
    if lang:
        params.setdefault("lang", lang)
    at.query_params.update(params)
    if step.page:
        at.switch_page(page_of(step.page).path)
    at.run()
    problems = tuple(str(e.value) for e in at.exception)
    problems += tuple(str(w.value) for w in at.warning if w.icon == ":material/link_off:")
    figure, alt = _figure_at(at, step.anchor)
    return Slide(step.title, step.notes, figure, alt, problems)


def slides_of(deck: Deck, *, timeout: float = TIMEOUT_S) -> list[Slide]:
    """Every slide of ``deck``, in order."""
    return [slide_of(step, timeout=timeout, lang=deck.lang) for step in deck.steps]

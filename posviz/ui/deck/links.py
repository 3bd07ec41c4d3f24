"""What a step's link means on its page: each setting read as the page's own control would read it.

A step's raw link values go through :func:`posviz.ui.params.parse`, the same parser as any
link, so a bad value gets the same notice a pasted link would. The values are then handed to
the page's widgets through :func:`posviz.ui.state.seed` (see ``present.py``), in each widget's type.
"""

from __future__ import annotations

from dataclasses import fields
from functools import cache
from typing import Any

from posviz.schemes import PAGES, settings_class
from posviz.ui.deck.model import Step
from posviz.ui.params import PARAMS, Param, link_text, parse, quote_raw
from posviz.ui.sections import sections_of
from posviz.ui.settings import params_of

# Read on every page: the shared sidebar's language and lecture toggle, and a walk-through's step.
EVERY_PAGE = ("lang", "lecture", "step")
DECKS_OWN = ("lang", "lecture")  # a deck's, or the viewer's: never a step's setting


@cache  # the registry and the settings classes are fixed for the life of the process
def page_params(page: str) -> dict[str, Param]:
    """URL key -> its parameter (with this page's default and choices) for the page at URL path ``page``."""
    found = {key: PARAMS[key] for key in EVERY_PAGE}
    cls = settings_class(page)
    if cls is not None:
        found.update({p.key: p for p in params_of(cls).values()})
    for part in on_demand_keys(page):
        found[part] = Param(part, part, "bool", False, "toggle")
    return found


@cache
def on_demand_keys(page: str) -> tuple[str, ...]:
    """The ``show_...`` keys of a page's sections drawn on demand (the module its registry entry names)."""
    return tuple(dict.fromkeys(part.key for part in sections_of(page)))


@cache
def every_url_key() -> frozenset[str]:
    """Every key any page reads from a link."""
    keys = set(PARAMS)
    for page in PAGES:
        keys |= set(page_params(page.key))
    return frozenset(keys)


def step_values(step: Step) -> tuple[dict[str, Any], list[str]]:
    """The step's settings as its page reads them, and a notice for each value not taken as is."""
    params = page_params(step.page)
    values: dict[str, Any] = {}
    notices: list[str] = []
    for key, raw in step.params:
        p = params.get(key)
        if p is None:
            where = "this page" if key in every_url_key() else "any posviz page"
            notices.append(f"{quote_raw(key)}={quote_raw(raw)} in the link is not a setting of {where}; it is ignored.")
            continue
        value, notice = parse(p, raw)
        if notice:
            notices.append(notice)
        values[key] = value
    for key in unused(step.page, values):
        notices.append(f"{key}={quote_raw(dict(step.params)[key])} in the link is not used with the page's other "
                       "settings (it belongs to another choice); it is ignored.")  # fmt: skip
        del values[key]
    return values, notices


def unused(page: str, values: dict[str, Any]) -> list[str]:
    """Keys in ``values`` whose control the page does not draw with these settings (RoPE's YaRN options
    when the method is not YaRN): each settings field's ``when``, read in field order."""
    cls = settings_class(page)
    if cls is None:
        return []
    found: list[str] = []
    seen: dict[str, Any] = {}
    for f in fields(cls):
        if "param" not in f.metadata:
            continue
        key = f.metadata["param"].key
        when = f.metadata["when"]
        if when is not None and not when(seen):
            seen[f.name] = f.default
            if key in values and key not in found:
                found.append(key)
            continue
        seen[f.name] = values.get(key, f.default)
    return found


def view_params(page: str, state: Any, link: dict[str, str]) -> dict[str, str]:
    """The settings of the view on screen: the link's, with each of the page's widgets' values over them.

    Settings at the page's default are left out (as Streamlit leaves them out of the address bar);
    lecture mode and the language are the deck's, not a step's.
    """
    params = page_params(page)
    out = {k: v for k, v in link.items() if k not in DECKS_OWN}
    for key, p in params.items():
        if key in DECKS_OWN or key not in state:
            continue
        value = state[key]
        if p.kind in ("int", "float") and not isinstance(value, int | float):
            continue
        if value == p.default:
            out.pop(key, None)
        else:
            out[key] = link_text(p, value)
    return out

"""Every page's URL parameters, collected from the settings class each page's registry entry names."""

from __future__ import annotations

from posviz.schemes import PAGES, settings_class
from posviz.ui.params import PARAMS, Param
from posviz.ui.settings import params_of


def settings_classes() -> list[type]:
    """Every page's settings class, as its registry entry names it (its fields are the page's URL keys)."""
    return [settings_class(p.key) for p in PAGES if p.settings]


def all_params() -> dict[str, Param]:
    """URL key -> its parameter: the shared ones (``PARAMS``) and every scheme's own."""
    found = dict(PARAMS)
    for cls in settings_classes():
        for p in params_of(cls).values():
            found.setdefault(p.key, p)
    return found


def all_url_keys() -> list[str]:
    """Every URL key any page reads."""
    return sorted(all_params())

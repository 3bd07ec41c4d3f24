"""Every page's URL parameters, collected from the registry (posviz.schemes) and each scheme's settings."""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import is_dataclass

from posviz.schemes import PAGES, SCHEMES
from posviz.ui.params import PARAMS, Param
from posviz.ui.settings import params_of


def settings_packages() -> list[str]:
    """The ui packages with a settings module: every scheme with a page, and the other pages that have one."""
    keys = [s.key for s in SCHEMES if s.page]
    keys += [p.key for p in PAGES if p.key and p.key not in keys and importlib.util.find_spec(f"posviz.ui.{p.key}")]
    return [k for k in keys if importlib.util.find_spec(f"posviz.ui.{k}.settings")]


def settings_classes() -> list[type]:
    """Every page's settings dataclasses: the ones whose fields are URL-bound settings."""
    found = []
    for key in settings_packages():
        module = importlib.import_module(f"posviz.ui.{key}.settings")
        for obj in vars(module).values():
            if isinstance(obj, type) and is_dataclass(obj) and obj.__module__ == module.__name__ and params_of(obj):
                found.append(obj)
    return found


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

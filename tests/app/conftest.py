"""Helpers for the AppTest suites: open a page with URL parameters, read its charts.

Every scenario gets a fresh ``AppTest``: session state (widget values, the
link-correction bookkeeping in ``posviz.ui.controls``) must not leak between
scenarios. Only ``st.cache_data`` is shared, as it is between real sessions.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from posviz.ui.sections import every_on_demand
from tests.html_tables import read_tables
from tests.registry import all_url_keys, settings_classes  # noqa: F401  (re-exported)

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app.py"
T5_PAGE = "pages/t5.py"
COPE_PAGE = "pages/cope.py"
TIMEOUT = 90  # the first run imports torch and fills the caches

# Widget type of each URL-bound control, for ``value_of``.
WIDGETS = {
    "lecture": "toggle",
    "bidirectional": "toggle",
    "align": "radio",
    "q_len": "number_input",
    "k_len": "number_input",
    "max_distance": "number_input",
    "seed": "number_input",
    "seq_len": "number_input",
    "dim": "number_input",
    "clip": "number_input",
    "mem_len": "number_input",
    "separate": "toggle",
    "row": "slider",
    "variant": "radio",
    "colour": "radio",
    "num_buckets": "slider",
    "heads": "slider",
    "head": "slider",
    "scale": "slider",
    "step": "slider",
    "window": "number_input",
    "q_start": "number_input",
    "k_start": "number_input",
    # RoPE page
    "base": "number_input",
    "m": "number_input",
    "n": "number_input",
    "layout": "radio",
    "method": "radio",
    "factor": "number_input",
    "original_max_position": "number_input",
    "beta_fast": "number_input",
    "beta_slow": "number_input",
    "mscale": "number_input",
    "mscale_all_dim": "number_input",
    "attention_factor": "number_input",
    "truncate": "toggle",
    "low_freq_factor": "number_input",
    "high_freq_factor": "number_input",
    # CoPE page
    "text": "text_area",
    "mode": "radio",
    "npos_max": "number_input",
    "temperature": "slider",
    "query": "slider",
    "key": "slider",
    "mask_after": "toggle",
    # sinusoidal, ALiBi and compare pages
    "causal": "toggle",
    # models page
    "model": "selectbox",
    "vs": "selectbox",
    "position": "number_input",
    "layers": "slider",
    # vision page (the keys a /models link sets)
    "vl_model": "radio",
    "merge": "slider",
    "tokens_per_second": "number_input",
    "encoder": "radio",
}


def open_page(page: str | None = None, *, all_open: bool = True, **params: str | list[str]) -> AppTest:
    """A fresh app run as if the link ``/<page>?<params>`` was opened.

    Query parameters are set before the first run, so they are what the
    browser sends with the page load; a list value repeats the key. With
    ``all_open`` (the default) the link also opens every section whose figures
    wait to be opened (``show_...=true``), so a suite sees the whole page.
    """
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    if all_open:
        for part in every_on_demand():
            at.query_params[part.key] = "true"
    for key, value in params.items():
        at.query_params[key] = value
    if page is not None:
        at.switch_page(page)
    return at.run()


def open_code(at: AppTest) -> AppTest:
    """Open every "PyTorch code" block (each is built and drawn only while open) and rerun.

    Found by key (``code_<slot>``, posviz.ui.exports), so in any language."""
    for e in at.expander:
        if (e.key or "").startswith("code_"):
            at.session_state[e.key] = True
    return at.run()


def open_t5(**params: str | list[str]) -> AppTest:
    return open_page(T5_PAGE, **params)


def open_shaw(**params: str | list[str]) -> AppTest:
    return open_page("pages/shaw.py", **params)


def open_skew(**params: str | list[str]) -> AppTest:
    return open_page("pages/skew.py", **params)


def open_rope(**params: str | list[str]) -> AppTest:
    return open_page("pages/rope.py", **params)


def open_cope(**params: str | list[str]) -> AppTest:
    return open_page(COPE_PAGE, **params)


# AppTest's accessor for each kind of widget a parameter declares (posviz.ui.params.Widget).
ACCESSORS = {
    "slider": "slider",
    "number": "number_input",
    "toggle": "toggle",
    "radio": "radio",
    "select": "selectbox",
    "text_area": "text_area",
}


def widget(at: AppTest, key: str):
    """The URL-bound widget for ``key`` (a key the list above does not name: the kind its parameter declares)."""
    from tests.registry import all_params

    kind = WIDGETS.get(key) or ACCESSORS[all_params()[key].widget]
    return getattr(at, kind)(key=key)


def value_of(at: AppTest, key: str) -> Any:
    return widget(at, key).value


def has_widget(at: AppTest, key: str) -> bool:
    try:
        widget(at, key)
    except KeyError:
        return False
    return True


def warnings(at: AppTest) -> list[str]:
    return [w.value for w in at.warning]


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]


def assert_healthy(at: AppTest) -> None:
    """No traceback and no rule error on the page."""
    assert not at.exception, [e.value for e in at.exception]
    assert not errors(at), errors(at)


def change(at: AppTest, key: str, value: Any) -> AppTest:
    """Move one control as a user would, rerun, and check the page survived."""
    widget(at, key).set_value(value).run()
    assert_healthy(at)
    assert value_of(at, key) == value
    return at


@dataclass(frozen=True)
class Chart:
    key: str
    spec: dict
    config: dict
    size: int  # characters of the plotly JSON the browser receives

    @property
    def title(self) -> str:
        return self.spec["layout"].get("title", {}).get("text", "")

    @property
    def subtitle(self) -> str:
        return self.spec["layout"].get("title", {}).get("subtitle", {}).get("text", "")

    @property
    def trace_types(self) -> list[str]:
        return [t.get("type", "scatter") for t in self.spec["data"]]

    def axis_titles(self, axis: str) -> list[str]:
        """Titles of every ``xaxis*`` or ``yaxis*`` in the layout."""
        layout = self.spec["layout"]
        return [
            v.get("title", {}).get("text", "")
            for k, v in layout.items()
            if k == axis or k.startswith(axis) and k[5:].isdigit()
        ]


def array(value: Any) -> np.ndarray:
    """A plotly JSON array: a plain list, or ``{"dtype", "bdata", "shape"}`` (base64 numpy)."""
    if isinstance(value, dict) and "bdata" in value:
        out = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            out = out.reshape([int(n) for n in str(value["shape"]).split(",")])
        return out
    return np.asarray(value)


def tables(at: AppTest) -> list[pd.DataFrame]:
    """The page's static tables (``posviz.ui.tables``, HTML in ``st.html``) read back, cells as text."""
    return [table for element in at.get("html") for table in read_tables(element.proto.body)]


def figures(at_or_block: Any) -> list[Any]:
    """Every figure element (posviz's ``posviz_plot`` component, :mod:`posviz.ui.plot`) under an AppTest
    or one of its blocks."""
    return [e for e in at_or_block.get("bidi_component") if e.proto.component_name == "posviz_plot"]


def charts(at: AppTest) -> list[Chart]:
    """Every figure on the page, with its spec and config parsed."""
    out = []
    for el in figures(at):
        doc = json.loads(el.proto.bytes)
        key = el.proto.id.split("-", 2)[2] if el.proto.id.startswith("$$ID-") else ""
        out.append(Chart(key=key, spec=doc["figure"], config=doc["config"], size=len(el.proto.bytes)))
    return out


def chart(at: AppTest, key_prefix: str) -> Chart:
    """The one chart whose element key starts with ``fig_<key_prefix>``."""
    found = [c for c in charts(at) if c.key.startswith(f"fig_{key_prefix}")]
    assert len(found) == 1, [c.key for c in charts(at)]
    return found[0]


def heatmap_z(c: Chart) -> np.ndarray:
    """The z grid of the chart's first trace (a heatmap), as float64."""
    return array(c.spec["data"][0]["z"]).astype(np.float64)


def count_calls(monkeypatch: pytest.MonkeyPatch, targets: list[tuple[Any, str]]) -> dict[str, int]:
    """Count the calls of ``module.<name>`` for each ``(module, name)`` (the figures behind the cached charts),
    from now on: the real function still runs."""
    counts = {name: 0 for _, name in targets}
    for module, name in targets:
        real = getattr(module, name)

        def counted(*a, _real=real, _name=name, **k):
            counts[_name] += 1
            return _real(*a, **k)

        monkeypatch.setattr(module, name, counted)
    return counts


@pytest.fixture(scope="module")
def t5_default() -> AppTest:
    """The T5 page at its defaults, shared by read-only checks in one module."""
    return open_t5()


def open_sinusoidal(**params: str | list[str]) -> AppTest:
    return open_page("pages/sinusoidal.py", **params)


def open_alibi(**params: str | list[str]) -> AppTest:
    return open_page("pages/alibi.py", **params)


def open_compare(**params: str | list[str]) -> AppTest:
    return open_page("pages/compare.py", **params)


def open_models(**params: str | list[str]) -> AppTest:
    return open_page("pages/models.py", **params)

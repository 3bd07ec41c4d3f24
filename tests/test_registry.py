"""The registry (posviz.schemes) is the one list of schemes: every place that goes over them reads it.

Two facts: a new descriptor is picked up everywhere (compare's runs, figures, properties table and
links, the benchmark's page cases, the sections drawn on demand and the tests' settings), checked
by adding one in a fresh interpreter; and no module outside a scheme's own files names scheme keys
in a hand-made list.
"""

from __future__ import annotations

import ast
import json
import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from posviz.schemes import BY_KEY, COMPARED, PAGES, SCHEMES, load, settings_class
from posviz.ui.params import PARAMS, Param
from posviz.ui.sections import OnDemand
from posviz.ui.settings import params_of, setting

ROOT = Path(__file__).resolve().parents[1]

# ---------------------------------------------------------------- a scheme that is not in posviz

YDECAY_SCALE = Param("ydecay_scale", "Decay per token", "float", 0.5, "number", min=0.0, max=4.0)
SHOW_YDECAY = OnDemand("show_ydecay", "The decay against distance")


@dataclass(frozen=True)
class XposSettings:
    seq_len: int = setting(PARAMS["seq_len"])
    ydecay_scale: float = setting(YDECAY_SCALE)


def run_ydecay(t):
    """A bias of -0.5 |i - j| on the logits: (L, L), and the bias it built."""
    bias = -0.5 * (t.pos[:, None] - t.pos[None, :]).abs().float()
    return t.q @ t.k.T / math.sqrt(t.s.dim) + bias, [bias]


def row_ydecay(*, seq_len: int, dim: int, base: float, causal: bool):
    return ("relative, bias on the logits", "fixed", 0, "never (a test scheme)")


def link_ydecay(*, seq_len: int, dim: int, base: float, seed: int, causal: bool):
    return {"seq_len": str(seq_len)}


# Run in a fresh interpreter: the registry gets one more scheme before anything reads it.
PROBE = """
import json, sys
import posviz.schemes as reg

new = reg.Scheme(
    "ydecay", "yDecay", "yDecay", "a test", "relative, fixed", "a decay per token",
    settings="tests.test_registry:XposSettings", sections="tests.test_registry",
    bench=reg.Bench((16, 32), (16,), length_keys=("seq_len",)),
    compared=reg.Compared("#17becf", run="tests.test_registry:run_ydecay", row="tests.test_registry:row_ydecay",
                          link="tests.test_registry:link_ydecay"),
)
reg.SCHEMES = (*reg.SCHEMES, new)
reg.BY_KEY = {s.key: s for s in reg.SCHEMES}
reg.COMPARED = tuple(s for s in reg.SCHEMES if s.compared is not None)
page = reg.Page(new.key, new.title, new.icon, new.key, new.settings, new.sections, new.bench)
reg.PAGES = (*reg.PAGES[:-3], page, *reg.PAGES[-3:])

from posviz.figures import compare, compare_properties
from posviz.ui.compare.links import link_markdown
from posviz.ui.compare.settings import CompareSettings
from posviz.ui.deck.links import page_params
from posviz.ui.sections import every_on_demand, sections_of
from tests.registry import all_url_keys, settings_classes
from tools.bench import PAGES as BENCH

toy = dict(seq_len=6, dim=8, base=10000.0, causal=True, seed=0, schemes="all")  # a new scheme is in "all"
run = compare.comparison(6, 8, 10000.0, True, 0, "all")
grid = compare.term_grid(**toy).spec
table = compare_properties.properties(**toy)
json.dump({
    "names": list(run.names),
    "ydecay_term": run.terms[-1].tolist(),
    "ydecay_bytes": run.nbytes[-1],
    "grid_panels": sum(t["type"] == "heatmap" for t in grid["data"]),
    "grid_csv_header": compare.term_grid(**toy).csv().splitlines()[0],
    "profile_lines": [t["name"] for t in compare.term_profile(**toy).spec["data"]],
    "table": table.set_index("scheme").loc["yDecay"].astype(str).to_dict(),
    "links": link_markdown(CompareSettings(seq_len=6, dim=8)),
    "bench": {k: [c.page, list(c.lengths), c.query(16).get("seq_len")] for k, c in BENCH.items()},
    "sections": [p.key for p in every_on_demand()],
    "own_sections": [p.key for p in sections_of("ydecay")],
    "settings": [c.__name__ for c in settings_classes()],
    "url_keys": all_url_keys(),
    "deck": sorted(page_params("ydecay")),
}, sys.stdout)
"""


@pytest.fixture(scope="module")
def with_ydecay() -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_a_new_compared_scheme_runs_draws_and_has_a_row_and_a_link(with_ydecay):
    assert with_ydecay["names"] == [*(c.short for c in COMPARED), "yDecay"]
    term = with_ydecay["ydecay_term"]  # its position term is its bias, -0.5 |i - j|, NaN on future keys (causal)
    assert term[5][1] == pytest.approx(-2.0) and term[3][3] == 0 and math.isnan(term[1][4])
    assert with_ydecay["ydecay_bytes"] == 6 * 6 * 4  # the (L, L) float32 bias it built
    assert with_ydecay["grid_panels"] == len(COMPARED) + 1
    assert with_ydecay["grid_csv_header"].endswith(",yDecay")
    assert with_ydecay["profile_lines"][-1] == "yDecay"
    assert with_ydecay["table"]["kind"] == "relative, bias on the logits"
    assert "- **yDecay**: [the yDecay page with these settings](ydecay?seq_len=6)" in with_ydecay["links"]


def test_a_new_scheme_page_is_benched_and_its_sections_and_settings_found(with_ydecay):
    assert with_ydecay["bench"]["posviz_ydecay"] == ["ydecay", [16, 32], "16"]
    assert set(with_ydecay["bench"]) == {f"posviz_{p.key}" for p in PAGES if p.bench} | {"posviz_ydecay"}
    assert with_ydecay["own_sections"] == ["show_ydecay"] and "show_ydecay" in with_ydecay["sections"]
    assert "XposSettings" in with_ydecay["settings"] and "ydecay_scale" in with_ydecay["url_keys"]


def test_a_deck_step_on_a_new_scheme_page_reads_its_settings(with_ydecay):
    assert {"seq_len", "ydecay_scale", "show_ydecay", "lecture", "step"} <= set(with_ydecay["deck"])


# ---------------------------------------------------------------- the registry as it ships


def test_every_named_part_resolves():
    assert settings_class("compare").__name__ == "CompareSettings"
    assert settings_class("") is None and settings_class("no-such-page") is None  # home has none
    for page in PAGES:
        if page.settings:
            assert params_of(load(page.settings)), page.key  # a settings class with URL-bound fields
        if page.sections:
            assert [v for v in vars(load(page.sections)).values() if isinstance(v, OnDemand)], page.key
    for scheme in COMPARED:
        assert scheme.compared is not None
        for ref in (scheme.compared.run, scheme.compared.row, scheme.compared.link):
            assert callable(load(ref)), ref
        opens = scheme.key if scheme.compared.opens is None else scheme.compared.opens
        assert opens in {p.key for p in PAGES}, scheme.key


def test_each_page_is_its_scheme_and_keys_are_unique():
    assert len(BY_KEY) == len(SCHEMES) and len({p.key for p in PAGES}) == len(PAGES)
    for scheme in SCHEMES:
        if scheme.page:
            page = next(p for p in PAGES if p.key == scheme.key)
            assert (page.settings, page.sections, page.bench) == (scheme.settings, scheme.sections, scheme.bench)
            assert (ROOT / page.path).is_file() and page.settings is not None and page.bench is not None


def test_the_deck_reads_every_settings_class_the_registry_names():
    from posviz.ui.deck.links import page_params

    for page in PAGES:
        if page.settings:
            assert set(params_of(load(page.settings))) <= set(page_params(page.key)), page.key


# ---------------------------------------------------------------- nobody else lists the schemes

# Files that hold a list of scheme keys for a reason other than going over the schemes.
NOT_LISTS = {
    "posviz/encodings/models.py": "the position families of real models' configs",
    "posviz/ui/models/snippets.py": "the /models page's code parts",
    "posviz/ui/models/texts.py": "what /models says per model family",
    "tests/ui/test_models_ui.py": "the pages /models links real models to",
    "tests/ui/test_page_chart_csvs.py": "/models' test cases, named after their model families",
    "tests/test_cold_start.py": "a sample of deep links",
}
# Files owned elsewhere that still list the schemes; the registry replaces them when they merge.
PENDING = {
    "tests/browser/test_lecture_browser.py": "per-page chart counts and formula pages",
}


def owners(path: Path) -> set[str]:
    """The registry keys a file belongs to: path parts and the words of its name (``test_sinusoidal_alibi``),
    and the schemes shown on a page it belongs to (the learned table on the sinusoidal page)."""
    words = {*path.parts[:-1], *path.stem.split("_")}
    own = {s.key for s in SCHEMES if s.key in words} | {p.key for p in PAGES if p.key and p.key in words}
    hosted = {s.key for s in COMPARED if s.compared and s.compared.opens in own}
    return own | hosted


def scheme_lists(source: str) -> list[tuple[int, list[str]]]:
    """Literal lists, tuples, sets and dict keys naming two or more scheme keys: ``(line, keys)``."""
    keys = {s.key for s in SCHEMES} - {"none"}  # "none" is also a plain word
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [k for k in node.keys if k is not None]
        else:
            continue
        named = {e.value for e in items if isinstance(e, ast.Constant) and e.value in keys}
        if len(named) >= 2:
            found.append((node.lineno, sorted(named)))
    return found


def python_files() -> list[Path]:
    folders = ("posviz", "pages", "tools", "tests")
    return [ROOT / "app.py", *(p for f in folders for p in sorted((ROOT / f).rglob("*.py")))]


def test_the_checker_finds_lists_and_knows_owners():
    assert scheme_lists('PATHS = ["", "t5", "rope"]\nx = {"alibi": 1, "cope": 2}\ny = ("t5",)') == [
        (1, ["rope", "t5"]),
        (2, ["alibi", "cope"]),
    ]
    assert owners(Path("posviz/ui/sinusoidal/charts.py")) == {"sinusoidal", "learned"}
    assert owners(Path("tests/figures/test_sinusoidal_alibi_compare.py")) >= {"sinusoidal", "alibi", "compare"}
    assert owners(Path("tools/bench.py")) == set()


def test_no_module_outside_a_schemes_files_lists_schemes():
    found = []
    for path in python_files():
        rel = path.relative_to(ROOT).as_posix()
        if rel in ("posviz/schemes.py", "tests/test_registry.py") or rel in NOT_LISTS or rel in PENDING:
            continue
        for line, named in scheme_lists(path.read_text()):
            if set(named) - owners(Path(rel)):
                found.append(f"{rel}:{line} names {named}")
    assert not found, "read posviz.schemes instead:\n" + "\n".join(found)


def test_the_exceptions_still_hold_a_list():
    """An exception that no longer lists schemes goes (so the list above cannot hide a new one)."""
    for rel in (*NOT_LISTS, *PENDING):
        assert scheme_lists((ROOT / rel).read_text()), rel

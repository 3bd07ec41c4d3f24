"""Imports run one way: pages -> posviz.ui -> posviz.figures -> posviz.encodings."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENCODINGS = sorted((ROOT / "posviz" / "encodings").glob("*.py"))
FIGURES = sorted((ROOT / "posviz" / "figures").glob("*.py"))
PAGES = sorted((ROOT / "pages").glob("*.py"))

TENSOR_MATH = {"arange", "matmul", "einsum", "softmax", "log", "where", "cumsum", "exp", "randn", "tensor"}


def imported_modules(source: str) -> set[str]:
    """Every module a source file imports, absolute and dotted (``from a.b import c`` -> ``a.b``)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def imports_package(source: str, package: str) -> bool:
    return any(m == package or m.startswith(package + ".") for m in imported_modules(source))


def torch_math_calls(source: str) -> list[str]:
    """``torch.<fn>(...)`` / ``torch.nn.functional.<fn>(...)`` calls and ``@`` products in a file."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in TENSOR_MATH:
            chain = node.func.value
            while isinstance(chain, ast.Attribute):
                chain = chain.value
            if isinstance(chain, ast.Name) and chain.id in ("torch", "F", "np", "numpy"):
                found.append(f"line {node.lineno}: {ast.unparse(node.func)}")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            found.append(f"line {node.lineno}: @")
    return found


# What posviz/ui may still call on torch: conversions, generators and runtime settings, not math.
UI_TORCH_ALLOWED = frozenset(
    {"Tensor", "tensor", "as_tensor", "Generator", "manual_seed", "no_grad", "inference_mode"}
    | {"set_num_threads", "get_num_threads", "is_tensor"}
)
UI_FILES = sorted((ROOT / "posviz" / "ui").rglob("*.py"))


def ui_tensor_math(source: str) -> list[str]:
    """``torch.<fn>(...)`` calls outside ``UI_TORCH_ALLOWED`` (``torch.nn.functional`` and ``F`` included)
    and ``@`` products in a file."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            chain = node.func.value
            while isinstance(chain, ast.Attribute):
                chain = chain.value
            name = node.func.attr
            if isinstance(chain, ast.Name) and (
                chain.id == "F" or (chain.id == "torch" and name not in UI_TORCH_ALLOWED)
            ):
                found.append(f"line {node.lineno}: {ast.unparse(node.func)}")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            found.append(f"line {node.lineno}: @")
    return found


def test_the_layers_have_files():
    assert any(p.name == "t5.py" for p in ENCODINGS)
    assert any(p.name == "t5.py" for p in FIGURES)
    assert any(p.name == "t5.py" for p in PAGES)


# --- the checkers catch what they should --------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "import streamlit as st",
        "from streamlit import cache_data",
        "import streamlit.components.v1",
        "if 1:\n    import streamlit",
    ],
)
def test_checker_finds_streamlit(source):
    assert imports_package(source, "streamlit")


def test_checker_is_not_fooled_by_a_prefix():
    assert not imports_package("import streamlit_extras", "streamlit")
    assert not imports_package("x = 'import streamlit'", "streamlit")


def test_checker_finds_tensor_math():
    src = (
        "import torch\n"
        "x = torch.arange(3)\n"
        "y = torch.nn.functional.softmax(x, -1)\n"
        "z = x @ x\n"
        "w = torch.linalg.matmul(x, x)\n"
    )
    assert len(torch_math_calls(src)) == 4
    assert torch_math_calls("st.write(view.bias)\nx = ax.q_pos.tolist()") == []


def test_the_ui_checker_finds_math_and_allows_conversions():
    src = "x = torch.arange(3)\ny = F.softmax(x, -1)\nz = torch.linalg.norm(x)\nw = x @ x\n"
    src += "v = torch.randn(2, generator=g)\n"
    assert len(ui_tensor_math(src)) == 5
    allowed = "g = torch.Generator().manual_seed(1)\nx = torch.as_tensor(a)\ny = torch.tensor([1])\nt: torch.Tensor\n"
    assert ui_tensor_math(allowed + "torch.set_num_threads(1)\nwith torch.no_grad():\n    pass\n") == []


# --- the rules ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ENCODINGS + FIGURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_streamlit_below_ui(path):
    assert not imports_package(path.read_text(), "streamlit"), f"{path} imports streamlit"


@pytest.mark.parametrize("path", ENCODINGS, ids=lambda p: p.name)
def test_encodings_are_pure_torch(path):
    source = path.read_text()
    for package in ("plotly", "streamlit", "posviz.figures", "posviz.ui"):
        assert not imports_package(source, package), f"{path} imports {package}"


@pytest.mark.parametrize("path", FIGURES, ids=lambda p: p.name)
def test_figures_do_not_import_ui(path):
    assert not imports_package(path.read_text(), "posviz.ui"), f"{path} imports posviz.ui"


@pytest.mark.parametrize("path", UI_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_ui_does_no_tensor_math(path):
    """The ui composes, it does not compute: tensor math lives in posviz/encodings, named and tested."""
    assert ui_tensor_math(path.read_text()) == [], f"{path.relative_to(ROOT)} does tensor math"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_pages_do_no_tensor_math(path):
    assert torch_math_calls(path.read_text()) == [], f"{path} does tensor math"


# --- the shape of the code (issue: one place per scheme) ----------------------------------------------

UI = ROOT / "posviz" / "ui"
SCHEME_PACKAGES = sorted(p for p in UI.iterdir() if p.is_dir() and (p / "__init__.py").exists())
PACKAGE_FILES = sorted(ROOT.joinpath("posviz").rglob("*.py"))


def positional_parameters(source: str) -> list[tuple[str, int]]:
    """``(function, count)`` for every function taking more than 6 positional parameters."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names = [a.arg for a in node.args.posonlyargs + node.args.args if a.arg not in ("self", "cls")]
            if len(names) > 6:
                found.append((node.name, len(names)))
    return found


def test_checker_counts_positional_parameters():
    assert positional_parameters("def f(a, b, c, d, e, f, g): pass") == [("f", 7)]
    assert positional_parameters("def f(a, b, c, d, e, f, *, g): pass") == []


@pytest.mark.parametrize("path", SCHEME_PACKAGES, ids=lambda p: p.name)
def test_a_scheme_ui_package_imports_no_other_schemes(path):
    others = {f"posviz.ui.{p.name}" for p in SCHEME_PACKAGES} - {f"posviz.ui.{path.name}"}
    for file in path.glob("*.py"):
        source = file.read_text()
        hits = [o for o in others if imports_package(source, o)]
        assert not hits, f"{file.relative_to(ROOT)} imports {hits}"


@pytest.mark.parametrize("path", PACKAGE_FILES + PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_small_modules_and_short_signatures(path):
    source = path.read_text()
    assert source.count("\n") <= 400, f"{path.relative_to(ROOT)} has {source.count(chr(10))} lines"
    assert positional_parameters(source) == []


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_pages_are_thin_and_declare_no_cache_keys(path):
    source = path.read_text()
    assert source.count("\n") <= 150, f"{path.name} has {source.count(chr(10))} lines"
    assert "cache_figures" not in source and "cache_data" not in source and "cache_resource" not in source


def test_shared_ui_knows_no_scheme():
    """posviz/ui/*.py (the shared machinery) imports no scheme's ui package."""
    schemes = [f"posviz.ui.{p.name}" for p in SCHEME_PACKAGES]
    for file in UI.glob("*.py"):
        source = file.read_text()
        assert not [s for s in schemes if imports_package(source, s)], file.name


def test_tools_are_not_in_the_package():
    assert not (ROOT / "posviz" / "loadtest.py").exists()
    assert not (ROOT / "posviz" / "bench.py").exists()
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "tools" not in dockerfile and "COPY . " not in dockerfile

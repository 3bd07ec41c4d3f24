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


# Methods that compute with a tensor or an array (a conversion such as .numpy(), .tolist() or .item() is no math).
ARRAY_MATH_METHODS = frozenset(
    {"sum", "mean", "exp", "log", "log2", "log10", "log1p", "cumsum", "cumprod", "softmax", "log_softmax"}
    | {"sigmoid", "matmul", "mm", "bmm", "einsum", "norm", "sqrt", "rsqrt", "pow", "abs", "clamp", "clip", "diff"}
    | {"argmax", "argmin", "std", "var", "prod", "outer", "dot", "cos", "sin", "tanh", "masked_fill", "triu", "tril"}
    | {"topk", "max", "min", "amax", "amin", "square", "reciprocal", "exp2", "floor", "ceil", "round", "remainder"}
    | {"div", "mul", "neg", "cross", "kron", "cummax", "logsumexp", "baddbmm", "addmm"}
)
ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult)


def _array_sources(tree: ast.AST) -> set[str]:
    """Names bound to a value computed by torch, numpy or posviz.encodings in a file (a flow-insensitive guess)."""
    modules = {"torch", "np", "numpy", "F"}
    encodings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("posviz.encodings"):
            encodings.update(a.asname or a.name for a in node.names)
        if isinstance(node, ast.Import):
            modules.update(a.asname or a.name for a in node.names if a.name.startswith(("torch", "numpy")))
    names: set[str] = set()

    def is_array(expr: ast.AST) -> bool:
        if isinstance(expr, ast.Call):
            f = expr.func
            if isinstance(f, ast.Name):
                return f.id in encodings
            if isinstance(f, ast.Attribute):
                root = f.value
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(root, ast.Name) and root.id in modules:
                    return True
                if f.attr in ("numpy", "detach", "float", "double", "to", "clone", "reshape", "view"):
                    return is_array(f.value)
            return False
        if isinstance(expr, ast.Name):
            return expr.id in names
        if isinstance(expr, ast.Subscript | ast.Attribute):
            return is_array(expr.value)
        if isinstance(expr, ast.BinOp):
            return is_array(expr.left) or is_array(expr.right)
        return False

    for _ in range(3):  # a name bound from another bound name
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and is_array(node.value):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names, is_array


def ui_array_math(source: str) -> list[str]:
    """Math on tensors or arrays in a ui file: torch calls (:func:`ui_tensor_math`), math methods called on
    anything (``x.cumsum()``, ``v.exp()``), numpy math calls, and arithmetic whose operand is a value torch,
    numpy or posviz.encodings computed."""
    tree = ast.parse(source)
    found = ui_tensor_math(source)
    _, is_array = _array_sources(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            root = node.func.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in ("np", "numpy") and node.func.attr in ARRAY_MATH_METHODS:
                found.append(f"line {node.lineno}: {ast.unparse(node.func)}")
            elif node.func.attr in ARRAY_MATH_METHODS and not (isinstance(root, ast.Name) and root.id == "torch"):
                found.append(f"line {node.lineno}: .{node.func.attr}()")
        arithmetic = isinstance(node, ast.BinOp) and isinstance(node.op, ARITHMETIC)
        if arithmetic and not isinstance(node.op, ast.MatMult) and (is_array(node.left) or is_array(node.right)):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return sorted(set(found))


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
    assert ui_array_math(path.read_text()) == [], f"{path.relative_to(ROOT)} does tensor math"


def test_the_ui_checker_finds_tensor_methods_and_operators():
    src = (
        "from posviz.encodings.rope import rope_inv_freq\n"
        "inv = rope_inv_freq(8)\n"
        "a = inv.cumsum(0)\n"  # a method
        "b = 1 / inv\n"  # an operator on a tensor
        "c = inv[2:] * 3\n"  # on a slice of one
        "d = np.log2(m)\n"  # numpy math
        "e = x.exp()\n"  # a method, whatever x is
        "g = torch.as_tensor(q).numpy()\n"
        "h = g - 1\n"  # on an array made from a tensor
    )
    assert len(ui_array_math(src)) == 6
    fine = "label = f'head {h + 1}'\nn = s.heads - 1\nrows = v.tolist()\nx = int(inv[0])\ny = len(a) // 2\n"
    assert ui_array_math(fine) == []


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_pages_do_no_tensor_math(path):
    assert torch_math_calls(path.read_text()) == [], f"{path} does tensor math"


# --- the shape of the code (issue: one place per scheme) ----------------------------------------------

UI = ROOT / "posviz" / "ui"
SHARED_PACKAGES = {"front"}  # the front-end files: shared machinery, no scheme
SCHEME_PACKAGES = sorted(
    p for p in UI.iterdir() if p.is_dir() and (p / "__init__.py").exists() and p.name not in SHARED_PACKAGES
)
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
def test_short_signatures_and_no_sprawling_modules(path):
    """Modules are split where their concepts part, not at a line count; past 700 lines one holds several."""
    source = path.read_text()
    assert source.count("\n") <= 700, f"{path.relative_to(ROOT)} has {source.count(chr(10))} lines"
    assert positional_parameters(source) == []


def is_reexport_shim(source: str) -> bool:
    """A module whose body only imports names (and lists them in ``__all__``): a second address for code."""
    body = [n for n in ast.parse(source).body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    imports = [n for n in body if isinstance(n, ast.ImportFrom) and n.module != "__future__"]
    others = [n for n in body if not isinstance(n, ast.Import | ast.ImportFrom)]
    only_all = all(
        isinstance(n, ast.Assign) and [getattr(t, "id", None) for t in n.targets] == ["__all__"] for n in others
    )
    return bool(imports) and only_all


def test_the_shim_checker():
    assert is_reexport_shim('"""doc"""\nfrom posviz.figures.common import heatmap, finish\n')
    assert is_reexport_shim("from a import b\n__all__ = ['b']\n")
    assert not is_reexport_shim("from a import b\n\ndef f():\n    return b\n")
    assert not is_reexport_shim('"""Package."""\n')
    assert not is_reexport_shim("from a import b\nX, Y = 1, 2\n")  # a tuple target is no __all__


@pytest.mark.parametrize("path", PACKAGE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_reexport_shims(path):
    assert not is_reexport_shim(path.read_text()), f"{path.relative_to(ROOT)} only re-exports names"


def carrier_classes(source: str) -> list[str]:
    """Classes named ``...Key``, ``...Keys`` or ``...View``: a type per hop between settings and a figure."""
    return [
        n.name
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.ClassDef) and n.name.endswith(("Key", "Keys", "View"))
    ]


@pytest.mark.parametrize("path", UI_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_key_or_view_classes_in_the_ui(path):
    """A figure is one function of plain arguments (posviz.figures); no carrier type stands between."""
    assert carrier_classes(path.read_text()) == [], f"{path.relative_to(ROOT)}"


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

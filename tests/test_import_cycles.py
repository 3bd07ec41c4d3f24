"""No import circles in posviz or tools: every import, also one inside a function, runs one way."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("posviz", "tools")

KNOWN: set[frozenset[str]] = set()  # circles tolerated on purpose: none


def module_files() -> dict[str, Path]:
    """``{dotted module name: file}`` for every module of the packages (a package is its ``__init__``)."""
    out = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``name`` imports anywhere in its file (``from a import b``: ``a.b``
    when that is a module, else ``a``), with the packages importing them runs."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        targets = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        for target in targets:
            parts = target.split(".")
            found.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))  # parents run first
    return {m for m in found if m in known and m != name}


def import_graph() -> dict[str, set[str]]:
    files = module_files()
    known = set(files)
    return {name: imports_of(name, path, known) for name, path in files.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_finder_finds_a_circle_through_a_function_level_import(tmp_path):
    a = tmp_path / "a.py"
    a.write_text("import x.b\n")
    b = tmp_path / "b.py"
    b.write_text("def f():\n    from x import a\n")
    known = {"x", "x.a", "x.b"}
    graph = {"x.a": imports_of("x.a", a, known), "x.b": imports_of("x.b", b, known)}
    assert cycles(graph) == [["x.a", "x.b"]]
    assert cycles({"x.a": {"x.b"}, "x.b": set()}) == []


def test_the_graph_covers_both_packages():
    graph = import_graph()
    assert "posviz.ui.exports" in graph and "tools.browser" in graph
    assert "posviz.figures.layout" in graph["posviz.figures.common"]


def test_no_import_cycles():
    found = [c for c in cycles(import_graph()) if frozenset(c) not in KNOWN]
    assert not found, f"import circles: {found}"

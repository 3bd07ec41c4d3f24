"""docs/ARCHITECTURE.md stays true: every file it names exists, and every function of its walk is defined there."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "ARCHITECTURE.md").read_text()


def walk_hops() -> list[tuple[str, str]]:
    """``(file, function)`` of each hop of the walk (numbered lines and the ``->`` line of the code block)."""
    block = DOC.split("```")[1]
    hops = re.findall(r"^\s*(?:\d+|->)\s+(\S+\.py)\s+(\w+|\(the page script\))", block, flags=re.M)
    return [(path, name) for path, name in hops]


def defined(path: str) -> set[str]:
    tree = ast.parse((ROOT / path).read_text())
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}


def named_files() -> set[str]:
    """Every repository path in backticks or in the walk (placeholders such as ``<scheme>`` left out)."""
    found = set(re.findall(r"((?:posviz|pages|tests|static|docs|tools)/[\w./-]+\.(?:py|js|css|md|min\.js|toml))", DOC))
    return {f for f in found if "<" not in f}


def test_the_walk_has_at_most_eight_hops_and_each_function_exists():
    hops = walk_hops()
    assert 5 <= len([h for h in hops]) <= 9, hops  # eight numbered hops, and plot beside show_figure
    for path, name in hops:
        assert (ROOT / path).is_file(), path
        if not name.startswith("("):
            assert name in defined(path), f"{path} defines no {name}"


def test_the_walk_never_returns_to_a_file_it_has_left():
    """Forward only: the one file met twice is the figure function's, when the encodings call it made returns
    (the builder sits beside the figure function); the path never climbs back into the ui or a page."""
    files = [path for path, _ in walk_hops()]
    for i, path in enumerate(files):
        earlier = files[:i]
        if path in earlier and earlier[-1] != path:
            between = files[earlier.index(path) + 1 : i]
            assert all(f.startswith("posviz/encodings/") for f in between), (path, between)


@pytest.mark.parametrize("path", sorted(named_files()))
def test_every_file_it_names_exists(path):
    assert (ROOT / path).exists(), path


def test_the_checker_finds_the_walk_and_the_files():
    assert ("posviz/ui/controls.py", "control") in walk_hops()
    assert "posviz/figures/chart.py" in named_files() and not any("<" in f for f in named_files())

"""The front-end files and their list of Streamlit DOM hooks (posviz/ui/front/HOOKS.md) agree."""

from __future__ import annotations

import re
from pathlib import Path

FRONT = Path(__file__).resolve().parents[1] / "posviz" / "ui" / "front"
HOOK = re.compile(r'data-testid="[A-Za-z]+"|data-test-[a-z-]+|data-stale|st-key-[A-Za-z0-9_]+|--gdg-[a-z-]+')


def hooks_in_files() -> dict[str, set[str]]:
    """Hook -> the front-end files that use it."""
    found: dict[str, set[str]] = {}
    for path in sorted(FRONT.glob("*.js")) + sorted(FRONT.glob("*.css")):
        for hook in HOOK.findall(path.read_text()):
            found.setdefault(hook, set()).add(path.name)
    return found


def listed_hooks() -> dict[str, tuple[set[str], str]]:
    """Hook -> (the files HOOKS.md says use it, the link where a browser finds it)."""
    rows = {}
    for line in (FRONT / "HOOKS.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`"):
            files = {f.strip() for f in cells[1].split(",")}
            link = re.match(r"`([^`]+)`", cells[2])
            rows[cells[0].strip("`")] = (files, link.group(1) if link else "")
    return rows


def test_hooks_md_lists_exactly_the_hooks_the_files_use():
    used, listed = hooks_in_files(), listed_hooks()
    assert used, "no hook found: the pattern or the folder moved"
    assert set(used) == set(listed), set(used) ^ set(listed)
    for hook, files in used.items():
        assert listed[hook][0] == files, hook
        assert listed[hook][1].startswith("/"), hook  # a page to find it at


def test_the_checker_finds_each_kind_of_hook():
    text = '[data-testid="stMain"] .st-key-deck_bar { } app.getAttribute("data-test-script-state")'
    text += " --gdg-base-font-style f.getAttribute('data-stale')"
    assert set(HOOK.findall(text)) == {
        'data-testid="stMain"',
        "st-key-deck_bar",
        "data-test-script-state",
        "--gdg-base-font-style",
        "data-stale",
    }


def test_every_front_end_file_is_used_by_the_code():
    code = "\n".join(p.read_text() for p in (FRONT.parents[1]).rglob("*.py"))
    for path in list(FRONT.glob("*.js")) + list(FRONT.glob("*.css")):
        assert f'"{path.name}"' in code, path.name

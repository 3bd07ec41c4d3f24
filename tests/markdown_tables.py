"""Read GFM tables back from markdown, written independently of ``posviz.ui.tables`` (which renders them)."""

from __future__ import annotations

import pandas as pd


def cells(line: str) -> list[str]:
    """A table row's cells, unescaped: a backslash makes the next character literal, an unescaped | ends a cell."""
    out, cell, chars = [], [], iter(line.strip().removeprefix("|").removesuffix("|"))
    for ch in chars:
        if ch == "\\":
            cell.append(next(chars, ""))
        elif ch == "|":
            out.append("".join(cell).strip())
            cell = []
        else:
            cell.append(ch)
    return [*out, "".join(cell).strip()]


def read_tables(markdown: str) -> list[pd.DataFrame]:
    """Every table in ``markdown`` (a header row, a delimiter row, body rows), cells as text."""
    found, lines = [], markdown.splitlines()
    for i in range(len(lines) - 1):
        header, delimiter = lines[i], lines[i + 1]
        if not header.startswith("|") or not set(cells(delimiter)) <= {"---:", ":---", "---"}:
            continue
        body = []
        for line in lines[i + 2 :]:
            if not line.startswith("|"):
                break
            body.append(cells(line))
        found.append(pd.DataFrame(body, columns=cells(header)))
    return found

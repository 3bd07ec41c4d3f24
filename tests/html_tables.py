"""Read HTML tables back, written independently of ``posviz.ui.tables`` (which renders them)."""

from __future__ import annotations

from html.parser import HTMLParser

import pandas as pd


class _Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []  # {"label", "head", "rows", "numeric"}
        self._region: dict[str, str | None] = {}
        self._cell: list[str] | None = None
        self._row: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "div" and a.get("role") == "region":
            self._region = a
        elif tag == "table":
            self.tables.append({"region": self._region, "head": [], "rows": [], "numeric": []})
        elif tag == "tr":
            self._row = []
        elif tag in ("th", "td"):
            self._cell = []
            if tag == "th":
                self.tables[-1]["numeric"].append("num" in (a.get("class") or ""))

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            table = self.tables[-1]
            (table["rows"] if table["head"] else table["head"]).append(self._row)
            self._row = None


def parse_tables(text: str) -> list[dict]:
    """Every table in ``text``: its region's attributes, header, body rows and which columns are numeric."""
    parser = _Tables()
    parser.feed(text)
    return [{**t, "head": t["head"][0] if t["head"] else []} for t in parser.tables]


def read_tables(text: str) -> list[pd.DataFrame]:
    """Every table in ``text`` as a frame, cells as text."""
    return [pd.DataFrame(t["rows"], columns=t["head"]) for t in parse_tables(text)]

"""The translation catalogues: find every marked text in the code, and keep each ``.po`` file in step.

    python -m tools.i18n check            # every marked text has a translation, no entry is unused
    python -m tools.i18n update           # add the new texts (empty), drop the unused ones, sort by source
    python -m tools.i18n update --parts DIR  # also take the translations of the .po or .json files in DIR
    python -m tools.i18n todo pages/xpos.py posviz/ui/xpos  # the untranslated texts of these files, as JSON

A ``.json`` part is ``{"English text": "译文", "{n} head": ["{n} 个头"]}`` (a list for a plural entry).

A text is marked by a call ``_("...")``, ``N_("...")``, ``ngettext("...", "...", n)``, ``section("...")``
or ``subsection("...")`` with string
literals (implicit concatenation included) in ``app.py``, ``pages/`` and ``posviz/``. Entries are
written in the order their texts first appear in the code, each with its ``#:`` source lines, so a
translator reads a page's texts together.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from posviz.i18n import LANGUAGES, PoEntry, catalogue_path, parse_po, placeholders

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("app.py", "pages", "posviz")
# name -> how many leading string arguments are texts; section headings translate their English title
# themselves (its anchor stays the English one: posviz.ui.chrome.section).
MARKERS = {"_": 1, "N_": 1, "ngettext": 2, "section": 1, "subsection": 1}
HEADER = {
    "zh": (
        "Project-Id-Version: posviz\n"
        "Language: zh_CN\n"
        "MIME-Version: 1.0\n"
        "Content-Type: text/plain; charset=UTF-8\n"
        "Content-Transfer-Encoding: 8bit\n"
        "Plural-Forms: nplurals=1; plural=0;\n"
    )
}


@dataclass
class Message:
    """A marked text: its singular (the msgid), plural, and where it is used."""

    msgid: str
    plural: str | None = None
    where: list[str] = field(default_factory=list)


def source_files(root: Path = ROOT) -> list[Path]:
    out: list[Path] = []
    for name in SOURCES:
        path = root / name
        out += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return out


SNIPPET_FILES = ("snippets.py", "posviz/ui/code.py")  # PyTorch code shown on the pages: its comments translate
_COMMENT = re.compile(r"(?:^|\s)# (.+)$", re.M)


def snippet_comments(tree: ast.AST) -> list[tuple[str, int]]:
    """The comments of the PyTorch code written in a snippets module's strings (and their f-strings'
    fixed parts), with their lines; code pasted from a reference implementation (a string that says
    "pasted") keeps its own comments. Looked up at run time by :func:`posviz.ui.code.translated_comments`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "pasted" not in node.value:
            found += [(m.group(1).strip(), node.lineno) for m in _COMMENT.finditer(node.value)]
    return found


def _literal(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def extract(files: Iterable[Path] | None = None, root: Path = ROOT) -> dict[str, Message]:
    """msgid -> :class:`Message`, in the order of first use (files in path order, then line)."""
    found: dict[str, Message] = {}
    for path in files if files is not None else source_files(root):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
        for call in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
            count = MARKERS.get(call.func.id)
            if count is None or len(call.args) < count:
                continue
            texts = [_literal(a) for a in call.args[:count]]
            if texts[0] is None or not texts[0]:
                continue
            where = f"{path.relative_to(root).as_posix()}:{call.lineno}"
            message = found.setdefault(texts[0], Message(texts[0]))
            if count == 2 and texts[1] is not None:
                message.plural = texts[1]
            message.where.append(where)
        if path.as_posix().endswith(SNIPPET_FILES):
            for text, line in snippet_comments(tree):
                found.setdefault(text, Message(text)).where.append(f"{path.relative_to(root).as_posix()}:{line}")
    return found


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\r", "\\r")
    lines = escaped.split("\n")
    if len(lines) == 1:
        return f'"{escaped}"'
    parts = [line + "\\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    return '""\n' + "\n".join(f'"{p}"' for p in parts)


def write_po(lang: str, messages: dict[str, Message], translated: dict[str, PoEntry]) -> str:
    """A ``.po`` file of ``messages`` (in their order), each with its translation from ``translated``."""
    out = [f"# posviz: {LANGUAGES[lang]} ({lang}). Written by `python -m tools.i18n update`; translate msgstr.", ""]
    out += ['msgid ""', _quote(HEADER[lang]).replace('""\n', 'msgstr ""\n', 1), ""]
    for m in messages.values():
        e = translated.get(m.msgid, PoEntry())
        out += [f"#: {' '.join(m.where[:4])}"]
        if "fuzzy" in e.flags:
            out.append("#, fuzzy")
        out.append(f"msgid {_quote(m.msgid)}")
        if m.plural is not None:
            out.append(f"msgid_plural {_quote(m.plural)}")
            out.append(f"msgstr[0] {_quote(e.msgstr_plural.get(0, ''))}")
        else:
            out.append(f"msgstr {_quote(e.msgstr)}")
        out.append("")
    return "\n".join(out)


def problems(lang: str, messages: dict[str, Message], entries: list[PoEntry]) -> list[str]:
    """What is wrong with a catalogue: missing, unused, duplicate, untranslated, fuzzy, placeholders."""
    found: list[str] = []
    seen: dict[str, PoEntry] = {}
    for e in entries:
        if not e.msgid:
            continue
        if e.msgid in seen:
            found.append(f"line {e.line}: duplicate entry {e.msgid[:60]!r}")
        seen[e.msgid] = e
    for msgid, m in messages.items():
        e = seen.get(msgid)
        if e is None:
            found.append(f"missing: {msgid[:70]!r} ({m.where[0]})")
            continue
        forms = [e.msgstr] if m.plural is None else [e.msgstr_plural.get(i, "") for i in sorted(e.msgstr_plural)]
        if (m.plural is None) != (e.msgid_plural is None):
            found.append(f"line {e.line}: plural or not as the code says: {msgid[:60]!r}")
        if not forms or not all(forms):
            found.append(f"line {e.line}: untranslated {msgid[:60]!r} ({m.where[0]})")
            continue
        if "fuzzy" in e.flags:
            found.append(f"line {e.line}: fuzzy {msgid[:60]!r}")
        wanted = placeholders(msgid) | (placeholders(m.plural) if m.plural else set())
        for form in forms:
            if placeholders(form) != wanted:
                found.append(
                    f"line {e.line}: placeholders {sorted(placeholders(form))} but the text has {sorted(wanted)}: "
                    f"{msgid[:50]!r}"
                )
    for msgid, e in seen.items():
        if msgid not in messages:
            found.append(f"line {e.line}: unused entry {msgid[:60]!r}")
    return found


def _entries(path: Path) -> list[PoEntry]:
    return parse_po(path.read_text(encoding="utf-8")) if path.is_file() else []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("check", "update", "todo"))
    parser.add_argument("paths", nargs="*", help="todo: the files or folders whose texts to list")
    parser.add_argument("--parts", type=Path, help="a folder of .po files whose translations to take (update)")
    args = parser.parse_args(argv)
    messages = extract()
    status = 0
    for lang in LANGUAGES:
        if lang == "en":
            continue
        path = catalogue_path(lang)
        entries = _entries(path)
        if args.command == "check":
            found = problems(lang, messages, entries)
            for line in found:
                print(f"{path.relative_to(ROOT)}: {line}")
            print(f"{lang}: {len(messages)} texts, {len(found)} problems")
            status |= bool(found)
            continue
        translated = {e.msgid: e for e in entries if e.msgid}
        if args.command == "todo":
            done = {m for m, e in translated.items() if e.msgstr or any(e.msgstr_plural.values())}
            wanted = [p.rstrip("/") for p in args.paths]
            todo = {
                m.msgid: [""] if m.plural else ""
                for m in messages.values()
                if m.msgid not in done and any(w.split(":")[0].startswith(tuple(wanted)) for w in m.where)
            }
            print(json.dumps(todo, ensure_ascii=False, indent=1))
            continue
        for part in sorted(args.parts.glob("*")) if args.parts else []:
            if part.suffix == ".po":
                for e in _entries(part):
                    if e.msgid and (e.msgstr or any(e.msgstr_plural.values())):
                        translated[e.msgid] = e
            elif part.suffix == ".json":
                for msgid, text in json.loads(part.read_text(encoding="utf-8")).items():
                    if isinstance(text, list) and all(text):
                        translated[msgid] = PoEntry(msgid, msgid, msgstr_plural=dict(enumerate(text)))
                    elif isinstance(text, str) and text:
                        translated[msgid] = PoEntry(msgid, msgstr=text)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(write_po(lang, messages, translated), encoding="utf-8")
        print(f"{path.relative_to(ROOT)}: {len(messages)} texts")
    return status


if __name__ == "__main__":
    sys.exit(main())

"""Translations: one gettext catalogue per language, looked up per run, never process-wide.

Every text a reader meets is written in English in the code and marked::

    from posviz.i18n import N_, _, ngettext

    INTRO = N_("RoPE rotates each pair ...")  # module level: marked now, translated where it is shown
    st.markdown(_(INTRO))
    title = _("Bias against distance, {heads} heads").format(heads=heads)
    ngettext("{n} head", "{n} heads", n).format(n=n)

The language is a context variable (:func:`use`, :func:`activate`): the app sets it at the start
of each run from the link's ``lang`` (each session's script runs in its own thread, so one process
serves every student in their own language), and a notebook wraps a figure call in
``with use("zh"):``. The figure caches key every figure by the language too
(:func:`posviz.ui.cache.chart`).

Catalogues are gettext ``.po`` files in ``posviz/locale/<lang>/LC_MESSAGES/posviz.po``, read by a
small reader (:func:`read_po`; Babel, a test dependency, reads them too and the tests compare). An
untranslated or fuzzy entry falls back to the English text. Placeholders are ``{name}`` fields of
``str.format``, filled after the lookup.

No Streamlit here: the encodings' messages and the figures use it as the ui does.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from pathlib import Path

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "posviz"
DEFAULT = "en"
# The languages the app offers, each by its own name (the switch shows them so).
LANGUAGES: dict[str, str] = {"en": "English", "zh": "简体中文"}

_LANG: ContextVar[str] = ContextVar("posviz_lang", default=DEFAULT)


def current() -> str:
    """The language of this run (or notebook cell): ``"en"`` unless set."""
    return _LANG.get()


def activate(lang: str) -> Token[str]:
    """Make ``lang`` this run's language (an unknown one reads as English)."""
    return _LANG.set(lang if lang in LANGUAGES else DEFAULT)


@contextmanager
def use(lang: str) -> Iterator[None]:
    """Within the block, texts are in ``lang``: ``with use("zh"): alibi.slopes(heads=8)``."""
    token = activate(lang)
    try:
        yield
    finally:
        _LANG.reset(token)


def N_(message: str) -> str:  # noqa: N802  (gettext's own name for "mark, translate later")
    """Mark ``message`` for the catalogue without translating it (a module-level text shown later)."""
    return message


def _(message: str) -> str:
    """``message`` in this run's language (English when the catalogue has no translation)."""
    lang = _LANG.get()
    if lang == DEFAULT or not message:
        return message
    return catalogue(lang).messages.get(message) or message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for ``n`` in this run's language (format ``{n}`` after)."""
    lang = _LANG.get()
    if lang != DEFAULT:
        forms = catalogue(lang).plurals.get(singular)
        if forms:
            return forms[min(catalogue(lang).plural_index(n), len(forms) - 1)]
    return singular if n == 1 else plural


def placeholders(text: str) -> set[str]:
    """The ``{name}`` fields of a text (``{{`` and ``}}`` are literal braces)."""
    return {m.group(1) for m in re.finditer(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)(?:[!:][^{}]*)?\}", text)}


# ------------------------------------------------------------------ catalogues


@dataclass
class Catalogue:
    """One language's messages: ``msgid -> msgstr``, and ``singular -> [forms]`` for plural entries."""

    lang: str
    messages: dict[str, str] = field(default_factory=dict)
    plurals: dict[str, list[str]] = field(default_factory=dict)
    plural_forms: str = "nplurals=2; plural=(n != 1);"
    headers: dict[str, str] = field(default_factory=dict)

    def plural_index(self, n: int) -> int:
        """The plural form for ``n`` by the catalogue's ``Plural-Forms`` (the usual ones only)."""
        rule = re.search(r"plural\s*=\s*([^;]+)", self.plural_forms)
        expr = rule.group(1).strip() if rule else "(n != 1)"
        if expr in ("0", "(0)"):
            return 0
        if expr in ("(n != 1)", "n != 1"):
            return int(n != 1)
        if expr in ("(n > 1)", "n > 1"):
            return int(n > 1)
        raise ValueError(f"unsupported Plural-Forms {self.plural_forms!r}")


def catalogue_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def catalogue(lang: str) -> Catalogue:
    """The catalogue of ``lang`` (read once per process; an empty one when there is no file)."""
    path = catalogue_path(lang)
    return read_po(path.read_text(encoding="utf-8"), lang) if path.is_file() else Catalogue(lang)


@dataclass
class PoEntry:
    """One entry of a ``.po`` file as written (before fuzzy or empty entries are dropped)."""

    msgid: str = ""
    msgid_plural: str | None = None
    msgstr: str = ""
    msgstr_plural: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    line: int = 0


def _unquote(text: str, line: int) -> str:
    text = text.strip()
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise ValueError(f"line {line}: expected a quoted string, got {text!r}")
    return ast.literal_eval(text)  # C-like escapes (\n, \", \\, \t) read as Python reads them


def parse_po(text: str) -> list[PoEntry]:
    """The entries of a ``.po`` file (header entry included, obsolete ``#~`` entries left out)."""
    entries: list[PoEntry] = []
    entry: PoEntry | None = None
    target: tuple[str, int | None] | None = None  # which field a continuation line extends
    seen_msgstr = False

    def finish() -> None:
        nonlocal entry, target, seen_msgstr
        if entry is not None:
            entries.append(entry)
        entry, target, seen_msgstr = None, None, False

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            finish()
            continue
        if line.startswith("#"):
            if seen_msgstr:  # a comment after a complete entry starts the next one
                finish()
            if line.startswith("#,"):
                entry = entry or PoEntry(line=number)
                entry.flags |= {f.strip() for f in line[2:].split(",") if f.strip()}
            continue
        keyword, _space, rest = line.partition(" ")
        if keyword.startswith('"'):
            if entry is None or target is None:
                raise ValueError(f"line {number}: a string outside an entry")
            name, index = target
            value = _unquote(line, number)
            if name == "msgstr" and index is not None:
                entry.msgstr_plural[index] += value
            else:
                setattr(entry, name, getattr(entry, name) + value)
            continue
        if keyword == "msgid" and seen_msgstr:
            finish()
        if keyword == "msgctxt":
            raise ValueError(f"line {number}: msgctxt is not used by posviz's catalogues")
        entry = entry or PoEntry(line=number)
        if keyword == "msgid":
            entry.msgid, target = _unquote(rest, number), ("msgid", None)
        elif keyword == "msgid_plural":
            entry.msgid_plural, target = _unquote(rest, number), ("msgid_plural", None)
        elif keyword == "msgstr":
            entry.msgstr, target, seen_msgstr = _unquote(rest, number), ("msgstr", None), True
        elif m := re.fullmatch(r"msgstr\[(\d+)\]", keyword):
            index = int(m.group(1))
            entry.msgstr_plural[index] = _unquote(rest, number)
            target, seen_msgstr = ("msgstr", index), True
        else:
            raise ValueError(f"line {number}: unknown keyword {keyword!r}")
    finish()
    return entries


def read_po(text: str, lang: str) -> Catalogue:
    """A :class:`Catalogue` of a ``.po`` file's translated, non-fuzzy entries."""
    cat = Catalogue(lang)
    for e in parse_po(text):
        if e.msgid == "":
            cat.headers = dict(
                (k.strip(), v.strip()) for k, _s, v in (h.partition(":") for h in e.msgstr.splitlines()) if k
            )
            cat.plural_forms = cat.headers.get("Plural-Forms", cat.plural_forms)
            continue
        if "fuzzy" in e.flags:
            continue
        if e.msgid_plural is not None:
            forms = [e.msgstr_plural[i] for i in sorted(e.msgstr_plural)]
            if forms and all(forms):
                cat.plurals[e.msgid] = forms
        elif e.msgstr:
            cat.messages[e.msgid] = e.msgstr
    return cat

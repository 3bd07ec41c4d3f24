"""A lecture deck: ordered steps, each a posviz link with a title and presenter notes.

Plain Python (no streamlit). A deck file is TOML, or the same fields in JSON::

    title = "RoPE and stretching the context"
    lang = "zh"  # optional: the slides show in this language (posviz.i18n.LANGUAGES)

    [[step]]
    title = "Frequencies"
    link = "/rope?base=10000&dim=64#1-frequencies"
    notes = '''
    Markdown for the teacher (drawn as Markdown, never as HTML).
    '''

A deck is untrusted input (an upload, a link): every field is checked and capped,
and whatever is wrong becomes a notice (a sentence, user text escaped) while the
rest of the deck keeps working. A link carries a deck by name (``deck=<name>``, a
file ``decks/<name>.toml``) or whole (``deck=z.<base64 of zlib of its JSON>``).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import tomllib
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from posviz.i18n import LANGUAGES, N_, _
from posviz.schemes import PAGES
from posviz.ui.params import clean_text, quote_raw

DECKS_DIR = Path(__file__).resolve().parents[3] / "decks"
MAX_FILE_BYTES = 64 * 1024  # a 20-step deck with generous notes is about 12 KB
MAX_STEPS = 40
MAX_TITLE = 120
MAX_NOTES = 4000
MAX_LINK = 2000
MAX_PARAMS = 48
MAX_INLINE = 24 * 1024  # characters of a whole deck carried in a link
MAX_NOTICES = 12  # per deck: a hostile file does not fill the screen
DECK_KEYS = ("deck", "slide", "room", "view")  # the deck's own URL keys: never part of a step's link
NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
ANCHOR = re.compile(r"[A-Za-z0-9_-]{1,80}")
INLINE = "z."  # a name never holds a dot
PAGE_KEYS = frozenset(p.key for p in PAGES)


@dataclass(frozen=True)
class Step:
    """One view of a lecture: a page, its link's parameters (raw text, as in a link), an anchor, notes."""

    title: str
    page: str = ""  # URL path ("" is the home page)
    params: tuple[tuple[str, str], ...] = ()  # (key, raw value) in link order, each key once
    anchor: str = ""  # a heading's id on the page ("#..." in the link)
    notes: str = ""  # Markdown
    problems: tuple[str, ...] = ()  # notices about this step's link, shown while it is open

    @property
    def link(self) -> str:
        """``/<page>?<params>#<anchor>``: what the address bar shows for this step."""
        return (
            f"/{self.page}"
            + (f"?{urlencode(self.params)}" if self.params else "")
            + (f"#{self.anchor}" if self.anchor else "")
        )


@dataclass(frozen=True)
class Deck:
    title: str
    steps: tuple[Step, ...] = ()
    lang: str = ""  # the language its slides show in ("zh"); "" keeps the viewer's
    problems: tuple[str, ...] = field(default=(), compare=False)  # notices about the file as a whole

    def step(self, slide: int) -> Step:
        """The step at 1-based ``slide`` (clamped into the deck)."""
        return self.steps[min(max(slide, 1), len(self.steps)) - 1]


EMPTY = Deck(N_("Untitled deck"))  # its title is translated where it is shown


def parse_link(text: str) -> tuple[str, tuple[tuple[str, str], ...], str, list[str]]:
    """A posviz link (``/t5?num_buckets=16#3-...``, or a full address) -> page, params, anchor, notices."""
    notes: list[str] = []
    text = text.strip()
    if len(text) > MAX_LINK:
        notes.append(
            _("its link is longer than the {limit} characters allowed; only its first {limit} are used").format(
                limit=MAX_LINK
            )
        )
        text = text[:MAX_LINK]
    try:
        parts = urlsplit(text)
    except ValueError:
        return (
            "",
            (),
            "",
            [*notes, _("its link {link} is not a link; it opens the home page").format(link=quote_raw(text))],
        )
    segments = [s for s in parts.path.split("/") if s]
    page = segments[-1] if segments else ""
    if page not in PAGE_KEYS:
        notes.append(
            _("its link names /{page}, which is not a posviz page; it opens the home page").format(page=quote_raw(page))
        )
        page = ""
    params: dict[str, str] = {}
    pairs = parse_qsl(parts.query, keep_blank_values=True, max_num_fields=10 * MAX_PARAMS)
    for key, value in pairs:
        if key in DECK_KEYS:
            continue  # a link copied while presenting: the deck's own keys are not the view's
        if key in params:
            notes.append(_("its link gives {key} twice; the last value is used").format(key=quote_raw(key)))
        elif len(params) >= MAX_PARAMS:
            notes.append(_("its link has more than {limit} settings; the rest are left out").format(limit=MAX_PARAMS))
            break
        params[key] = value
    anchor = parts.fragment
    if anchor and not ANCHOR.fullmatch(anchor):
        notes.append(
            _("its anchor #{anchor} is not a heading's id (letters, digits, - and _); left out").format(
                anchor=quote_raw(anchor)
            )
        )
        anchor = ""
    return page, tuple(params.items()), anchor, notes


def _text(raw: Any, what: str, limit: int, notes: list[str]) -> str:
    if raw is None:
        return ""
    if not isinstance(raw, str):
        notes.append(_("{what} is not text; left out").format(what=what))
        return ""
    text, changed = clean_text(raw, limit)
    notes.extend(_("{what} {change}").format(what=what, change=c) for c in changed)
    return text


def _step(raw: Any, n: int) -> tuple[Step, list[str]]:
    """Step ``n`` (1-based) from its table; problems with its link stay with the step, the rest are returned."""
    where = _("Step {n}").format(n=n)
    if not isinstance(raw, dict):
        problem = _("{where} of the deck is not a table of title, link and notes.").format(where=where)
        return Step(where, problems=(problem,)), []
    file_notes: list[str] = []
    unknown = sorted(set(raw) - {"title", "link", "notes"}, key=str)
    if unknown:
        names = ", ".join(quote_raw(str(k)) for k in unknown[:5])
        file_notes.append(
            _("{where} of the deck has fields posviz does not read ({names}); they are ignored.").format(
                where=where, names=names
            )
        )
    title = _text(raw.get("title"), _("{where}'s title").format(where=where), MAX_TITLE, file_notes)
    title = title.replace("\n", " ").strip()
    notes = _text(raw.get("notes"), _("{where}'s notes").format(where=where), MAX_NOTES, file_notes)
    link_notes: list[str] = []
    link = _text(raw.get("link"), "its link", MAX_LINK, link_notes)
    page, params, anchor, found = parse_link(link)
    problems = tuple(_("{where} of the deck: {problem}.").format(where=where, problem=p) for p in [*link_notes, *found])
    return Step(title or where, page, params, anchor, notes, problems), file_notes


def from_data(data: Any) -> Deck:
    """A deck from parsed TOML or JSON (a dict with ``title`` and a list ``step``); never raises."""
    if not isinstance(data, dict):
        return replace(EMPTY, problems=(_("The deck is not a table with a title and a list of steps."),))
    notes: list[str] = []
    unknown = sorted(set(data) - {"title", "step", "lang"}, key=str)
    if unknown:
        names = ", ".join(quote_raw(str(k)) for k in unknown[:5])
        notes.append(_("The deck has fields posviz does not read ({names}); they are ignored.").format(names=names))
    title = _text(data.get("title"), _("The deck's title"), MAX_TITLE, notes).replace("\n", " ").strip()
    lang = data.get("lang", "")
    if lang not in ("", *LANGUAGES):
        shown = quote_raw(str(lang), 20)
        notes.append(
            _("The deck's lang {lang} is not a language posviz has ({languages}); it is ignored.").format(
                lang=shown, languages=", ".join(LANGUAGES)
            )
        )
        lang = ""
    raw_steps = data.get("step", [])
    if not isinstance(raw_steps, list):
        notes.append(_("The deck's step is not a list of steps ([[step]] tables)."))
        raw_steps = []
    if len(raw_steps) > MAX_STEPS:
        notes.append(
            _("The deck has {count} steps; only its first {limit} are used.").format(
                count=len(raw_steps), limit=MAX_STEPS
            )
        )
        raw_steps = raw_steps[:MAX_STEPS]
    steps = []
    for n, raw in enumerate(raw_steps, start=1):
        step, found = _step(raw, n)
        steps.append(step)
        notes.extend(found)
    if not steps:
        notes.append(_("The deck has no steps: add views to it with “Add this view to the deck”."))
    return Deck(title or EMPTY.title, tuple(steps), problems=tuple(_capped(notes)), lang=lang)


def _capped(notes: list[str]) -> list[str]:
    if len(notes) <= MAX_NOTICES:
        return notes
    more = _("… and {count} more notices about this deck.").format(count=len(notes) - MAX_NOTICES + 1)
    return [*notes[: MAX_NOTICES - 1], more]


def loads(data: bytes | str, *, name: str = "deck.toml") -> Deck:
    """A deck from a file's bytes (TOML, or JSON when ``name`` ends in ``.json``); never raises."""
    if len(data) > MAX_FILE_BYTES:
        return replace(
            EMPTY, problems=(_("The deck file is larger than the {kb} KB allowed.").format(kb=MAX_FILE_BYTES // 1024),)
        )
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            return replace(EMPTY, problems=(_("The deck file is not UTF-8 text."),))
    try:
        parsed = json.loads(data) if name.lower().endswith(".json") else tomllib.loads(data)
    except (ValueError, RecursionError) as err:  # tomllib.TOMLDecodeError and JSONDecodeError are ValueErrors
        kind = "JSON" if name.lower().endswith(".json") else "TOML"
        where = quote_raw(str(err), 120)
        return replace(
            EMPTY, problems=(_("The deck file is not valid {kind} ({error}).").format(kind=kind, error=where),)
        )
    return from_data(parsed)


def to_data(deck: Deck) -> dict[str, Any]:
    """The deck as plain data (what ``from_data`` reads back)."""
    steps = [{"title": s.title, "link": s.link, "notes": s.notes} for s in deck.steps]
    return {"title": deck.title, **({"lang": deck.lang} if deck.lang else {}), "step": steps}


def _toml_string(text: str) -> str:
    """A TOML basic string: every quote, backslash and control character escaped."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml_notes(text: str) -> str:
    """Notes as a TOML multi-line basic string, readable in the file (line breaks kept)."""
    body = []
    for ch in text:
        if ch == "\\":
            body.append("\\\\")
        elif ch == '"':
            body.append('\\"')  # never three in a row, nor one against the closing quotes
        elif ch in "\n\t":
            body.append(ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            body.append(f"\\u{ord(ch):04x}")
        else:
            body.append(ch)
    return '"""\n' + "".join(body) + '"""'


def dumps(deck: Deck) -> str:
    """The deck as a TOML file (``loads`` reads it back to the same deck)."""
    lines = [f"title = {_toml_string(deck.title)}"] + ([f"lang = {_toml_string(deck.lang)}"] if deck.lang else [])
    for s in deck.steps:
        lines += ["", "[[step]]", f"title = {_toml_string(s.title)}", f"link = {_toml_string(s.link)}"]
        if s.notes:
            lines.append(f"notes = {_toml_notes(s.notes)}")
    return "\n".join(lines) + "\n"


def encode(deck: Deck) -> str:
    """The whole deck as one link value: ``z.`` + base64url of its compressed JSON."""
    raw = json.dumps(to_data(deck), ensure_ascii=False, separators=(",", ":")).encode()
    return INLINE + base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def decode(value: str) -> Deck:
    """A deck carried whole in a link (see ``encode``); never raises, never inflates past the file cap."""
    bad = replace(EMPTY, problems=(_("The link's deck=z.… is damaged (cut off or changed); it cannot be read."),))
    if len(value) > MAX_INLINE:
        too_long = _("The link's deck is longer than the {limit} characters allowed.").format(limit=MAX_INLINE)
        return replace(EMPTY, problems=(too_long,))
    body = value[len(INLINE) :]
    try:
        packed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_FILE_BYTES + 1)
    except (binascii.Error, ValueError, zlib.error):
        return bad
    if len(raw) > MAX_FILE_BYTES or inflater.unconsumed_tail:
        too_big = _("The link's deck is larger than the {kb} KB allowed.").format(kb=MAX_FILE_BYTES // 1024)
        return replace(EMPTY, problems=(too_big,))
    return loads(raw, name="deck.json") if inflater.eof else bad


def shipped_names() -> list[str]:
    """The decks in ``decks/``, by name (the file's stem)."""
    return sorted(p.stem for p in DECKS_DIR.glob("*.toml") if NAME.fullmatch(p.stem))


def from_link_value(value: str) -> Deck:
    """The deck a link's ``deck=`` names: a shipped deck's name, or a whole deck (``z.…``)."""
    value = value.strip()
    if value.startswith(INLINE):
        return decode(value)
    if NAME.fullmatch(value) and value in shipped_names():
        return loads((DECKS_DIR / f"{value}.toml").read_bytes(), name=f"{value}.toml")
    names = ", ".join(shipped_names())
    unknown = _("The link's deck={value} is not one of the decks ({names}).").format(
        value=quote_raw(value), names=names
    )
    return replace(EMPTY, problems=(unknown,))

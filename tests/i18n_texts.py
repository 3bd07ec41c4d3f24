"""What a reader reads on a page, and the English left in a translated one.

:func:`english_left` finds English prose in a text: a run of three or more English words that holds
an everyday English word ("the", "of", "is" ...). Names of schemes, models and code (RoPE, YaRN,
``q_len``, ``Qwen/Qwen3-8B``) stay as they are in Chinese ML writing and are never such a run;
code, formulas, links and placeholders are taken out first.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

# Words that only English prose has between names: a run holding one of them is a sentence left in English.
EVERYDAY = frozenset(
    [
        "the",
        "of",
        "is",
        "are",
        "was",
        "be",
        "been",
        "a",
        "an",
        "and",
        "or",
        "not",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "each",
        "every",
        "which",
        "what",
        "when",
        "where",
        "how",
        "why",
        "than",
        "then",
        "there",
        "here",
        "can",
        "will",
        "would",
        "should",
        "must",
        "may",
        "only",
        "also",
        "more",
        "less",
        "most",
        "into",
        "over",
        "under",
        "between",
        "after",
        "before",
        "about",
        "per",
        "all",
        "any",
        "one",
        "two",
        "three",
        "you",
        "your",
        "we",
        "our",
        "they",
        "their",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "no",
        "yes",
        "if",
        "so",
        "but",
        "while",
        "shown",
        "show",
        "drawn",
        "draw",
        "use",
        "used",
        "uses",
        "using",
        "open",
        "opens",
        "click",
        "choose",
        "move",
        "moves",
        "see",
    ]
)
# Texts left in English on purpose: what a model's config calls itself, and the switch's own name.
ALLOWED = (
    "English",
    "Hugging Face",
)
_SCRIPT = re.compile(r"<(script|style)\b.*?</\1>", re.S | re.I)
_CODE = re.compile(r"```.*?```|`[^`]*`|\$\$.*?\$\$|\$[^$\n]*\$|\\\(.*?\\\)|\\\[.*?\\\]", re.S)
_URL = re.compile(r"https?://\S+|\b[\w.-]+/[\w./-]+")
_TAG = re.compile(r"<[^>]+>|%\{[^}]*\}|\{[^{}]*\}|&[a-z]+;")
_WORDS = re.compile(r"[A-Za-z][A-Za-z'’-]*(?:[ \t]+[A-Za-z][A-Za-z'’-]*)+")


def english_left(text: str | None) -> list[str]:
    """The runs of English prose in ``text`` (empty for a fully translated text)."""
    if not text:
        return []
    text = html.unescape(_TAG.sub(" ", _URL.sub(" ", _CODE.sub(" ", text))))
    for allowed in ALLOWED:
        text = text.replace(allowed, " ")
    found = []
    for m in _WORDS.finditer(text):
        words = m.group(0).split()
        if len(words) >= 3 and any(w.lower().strip("'’-") in EVERYDAY for w in words):
            found.append(m.group(0))
    return found


def _strings(value: Any, keys: tuple[str, ...]) -> Iterator[str]:
    """Every string under ``value`` at a key in ``keys`` (nested dicts and lists)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k in keys and isinstance(v, str):
                yield v
            else:
                yield from _strings(v, keys)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, keys)


FIGURE_TEXT_KEYS = ("text", "name", "hovertemplate", "texttemplate", "ticktext", "title")


def figure_texts(spec: dict) -> list[str]:
    """The texts a figure shows: titles, axis and legend titles, trace names, annotations, hover text."""
    out = list(_strings(spec.get("layout", {}), FIGURE_TEXT_KEYS))
    for trace in spec.get("data", []):
        out += list(_strings({k: v for k, v in trace.items() if k in FIGURE_TEXT_KEYS or k == "colorbar"},
                             FIGURE_TEXT_KEYS))  # fmt: skip
        for key in ("text", "customdata", "ticktext"):
            value = trace.get(key)
            if isinstance(value, list):
                out += [v for v in _flat(value) if isinstance(v, str)]
    return out


def _flat(value: list) -> Iterable[Any]:
    for v in value:
        if isinstance(v, list):
            yield from _flat(v)
        else:
            yield v


def page_texts(at: Any) -> list[tuple[str, str]]:
    """(where, text) of every text an AppTest page shows: prose, headings, notices, labels, help,
    option captions, tables, buttons, expanders, the navigation, and every figure's texts."""
    out: list[tuple[str, str]] = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning", "error", "success"):
        out += [(kind, _SCRIPT.sub(" ", e.value)) for e in getattr(at, kind)]
    for kind in ("expander", "tabs", "button", "toggle", "radio", "selectbox", "slider", "number_input",
                 "text_area", "text_input", "checkbox", "select_slider", "multiselect"):  # fmt: skip
        for e in getattr(at, kind, []):
            label = getattr(e, "label", None)
            if label:
                out.append((kind, label))
            helptext = getattr(e.proto, "help", "")
            if helptext:
                out.append((f"{kind} help", helptext))
            for caption in getattr(e.proto, "captions", []):
                out.append((f"{kind} caption", caption))
    for e in at.metric:
        out += [("metric", e.label), ("metric", str(e.value))]
        if e.proto.help:
            out.append(("metric help", e.proto.help))
    for e in at.get("html"):
        out.append(("html", _SCRIPT.sub(" ", e.proto.body)))
    for e in at.get("bidi_component"):
        if e.proto.component_name == "posviz_plot":
            doc = json.loads(e.proto.bytes)
            out += [("figure", t) for t in figure_texts(doc["figure"])]
            alt = doc.get("alt") or doc.get("config", {}).get("alt")
            if alt:
                out.append(("figure alt", alt))
    return out

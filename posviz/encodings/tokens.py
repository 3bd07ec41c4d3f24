"""A simple, visible tokeniser: words and punctuation marks.

Not a subword tokeniser: each run of letters and digits (with inner
apostrophes, "don't") is one token, and every other visible character is a
token of its own. Whitespace separates tokens and is dropped.
"""

from __future__ import annotations

import re

TOKEN_PATTERN = r"\w+(?:['’]\w+)*|[^\w\s]"
SENTENCE_ENDS = frozenset(".!?…")

_TOKEN = re.compile(TOKEN_PATTERN)


def tokenize(text: str, *, limit: int | None = None) -> list[str]:
    """The tokens of ``text`` in order, at most ``limit`` of them.

    >>> tokenize("It's late. Go!")
    ["It's", 'late', '.', 'Go', '!']
    """
    out = []
    for match in _TOKEN.finditer(text):
        if limit is not None and len(out) >= limit:
            break
        out.append(match.group())
    return out


def count_tokens(text: str) -> int:
    """How many tokens :func:`tokenize` finds, without keeping them."""
    return sum(1 for _ in _TOKEN.finditer(text))


def is_sentence_end(token: str) -> bool:
    """A token that ends a sentence: ``.``, ``!``, ``?`` or ``…``."""
    return token in SENTENCE_ENDS


def is_word(token: str) -> bool:
    return bool(token) and (token[0].isalnum() or token[0] == "_")

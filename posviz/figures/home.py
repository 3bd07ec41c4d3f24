"""The home page's tables: the permutation demo (why attention needs position) and the map of schemes.

Plain functions of plain arguments returning what the page shows; the numbers come from
:mod:`posviz.encodings.permutation`, the schemes from the registry. No Streamlit here.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from posviz.encodings.permutation import shuffle_outputs
from posviz.figures.layout import number
from posviz.i18n import N_, _
from posviz.schemes import SCHEMES

SENTENCE = ("dog", "bites", "man")  # the tokens the toy head reads, in every language
SHUFFLED = ("man", "bites", "dog")
DIM = 4
# What a reader reads: each word, and each order as a sentence (in Chinese "狗咬人", no spaces).
WORDS = {"dog": N_("dog"), "bites": N_("bites"), "man": N_("man")}
SAYS = {SENTENCE: N_("dog bites man"), SHUFFLED: N_("man bites dog")}


def said(words: tuple[str, ...]) -> str:
    """``SENTENCE`` or ``SHUFFLED`` as the reader reads it, in the run's language."""
    return _(SAYS[words])


@dataclass(frozen=True)
class PermutationDemo:
    """Each word's output in both orders, and the largest change of any word's output under the shuffle."""

    table: pd.DataFrame  # a row per (position term, word)
    without: float  # the largest change without a position term (float rounding: about 1e-7)
    with_bias: float  # ... and with a T5 relative bias


def change_text(change: float) -> str:
    """A change in a word's output; float32 rounding (about 1e-7) reads as no change."""
    return _("0 (float rounding)") if change < 1e-5 else number(change, 3)


def _vector(values: list[float]) -> str:
    return ", ".join(f"{v:+.3f}" for v in values)


def permutation_demo(*, seed: int = 0) -> PermutationDemo:
    """Each word of ``SENTENCE`` and its output in ``SENTENCE`` and in ``SHUFFLED``, without and with a T5 bias
    (one toy head of ``DIM`` dimensions drawn from ``seed``); the table's words in the run's language."""
    rows, largest = [], {}
    before_name = _("output in '{sentence}'").format(sentence=said(SENTENCE))
    after_name = _("output in '{sentence}'").format(sentence=said(SHUFFLED))
    for with_bias in (False, True):
        out = shuffle_outputs(SENTENCE, SHUFFLED, dim=DIM, seed=seed, with_bias=with_bias)
        changes = out.change.tolist()
        largest[with_bias] = max(changes)
        for w, before, after, change in zip(SENTENCE, out.before.tolist(), out.after.tolist(), changes, strict=True):
            rows.append(
                {
                    _("position term"): _("T5 bias") if with_bias else _("none"),
                    _("word"): _(WORDS[w]),
                    before_name: _vector(before),
                    after_name: _vector(after),
                    _("largest change"): change_text(change),
                }
            )
    return PermutationDemo(pd.DataFrame(rows), without=largest[False], with_bias=largest[True])


def scheme_table() -> pd.DataFrame:
    """The map: every scheme of the registry, in the order the papers appeared (in the run's language)."""
    columns = (_("scheme"), _("paper"), _("kind"), _("how"))
    return pd.DataFrame(
        [dict(zip(columns, (_(s.title), _(s.paper), _(s.kind), _(s.how)), strict=True)) for s in SCHEMES]
    )

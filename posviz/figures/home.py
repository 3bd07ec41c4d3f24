"""The home page's tables: the permutation demo (why attention needs position) and the map of schemes.

Plain functions of plain arguments returning what the page shows; the numbers come from
:mod:`posviz.encodings.permutation`, the schemes from the registry. No Streamlit here.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from posviz.encodings.permutation import shuffle_outputs
from posviz.figures.layout import number
from posviz.schemes import SCHEMES

SENTENCE = ("dog", "bites", "man")
SHUFFLED = ("man", "bites", "dog")
DIM = 4


@dataclass(frozen=True)
class PermutationDemo:
    """Each word's output in both orders, and the largest change of any word's output under the shuffle."""

    table: pd.DataFrame  # a row per (position term, word)
    without: float  # the largest change without a position term (float rounding: about 1e-7)
    with_bias: float  # ... and with a T5 relative bias


def change_text(change: float) -> str:
    """A change in a word's output; float32 rounding (about 1e-7) reads as no change."""
    return "0 (float rounding)" if change < 1e-5 else number(change, 3)


def _vector(values: list[float]) -> str:
    return ", ".join(f"{v:+.3f}" for v in values)


def permutation_demo(*, seed: int = 0) -> PermutationDemo:
    """Each word of ``SENTENCE`` and its output in ``SENTENCE`` and in ``SHUFFLED``, without and with a T5 bias
    (one toy head of ``DIM`` dimensions drawn from ``seed``)."""
    rows, largest = [], {}
    for with_bias in (False, True):
        out = shuffle_outputs(SENTENCE, SHUFFLED, dim=DIM, seed=seed, with_bias=with_bias)
        changes = out.change.tolist()
        largest[with_bias] = max(changes)
        for w, before, after, change in zip(SENTENCE, out.before.tolist(), out.after.tolist(), changes, strict=True):
            rows.append(
                {
                    "position term": "T5 bias" if with_bias else "none",
                    "word": w,
                    f"output in '{' '.join(SENTENCE)}'": _vector(before),
                    f"output in '{' '.join(SHUFFLED)}'": _vector(after),
                    "largest change": change_text(change),
                }
            )
    return PermutationDemo(pd.DataFrame(rows), without=largest[False], with_bias=largest[True])


def scheme_table() -> pd.DataFrame:
    """The map: every scheme of the registry, in the order the papers appeared."""
    return pd.DataFrame([dict(scheme=s.title, paper=s.paper, kind=s.kind, how=s.how) for s in SCHEMES])

"""The home page's permutation demo and the map of schemes (from the registry)."""

from __future__ import annotations

import pandas as pd
import torch

from posviz.encodings.t5 import t5_permutation_outputs
from posviz.figures.layout import number
from posviz.schemes import SCHEMES
from posviz.ui.cache import cached_view

SENTENCE = ("dog", "bites", "man")
SHUFFLED = ("man", "bites", "dog")
DIM = 4


def _outputs(words: tuple[str, ...], with_bias: bool, seed: int) -> torch.Tensor:
    return t5_permutation_outputs(words, tuple(sorted(set(SENTENCE))), dim=DIM, seed=seed, with_bias=with_bias)


@cached_view(max_entries=4)
def permutation_demo(seed: int = 0) -> tuple[pd.DataFrame, float, float]:
    """Each word's output in both orders, without and with a position bias.

    Returns:
        A table per word, and the largest change of any word's output under the
        shuffle without and with the bias.
    """
    rows, worst = [], {False: 0.0, True: 0.0}
    for with_bias in (False, True):
        a, b = _outputs(SENTENCE, with_bias, seed), _outputs(SHUFFLED, with_bias, seed)
        for w in SENTENCE:
            va, vb = a[SENTENCE.index(w)], b[SHUFFLED.index(w)]
            change = float((va - vb).abs().max())
            worst[with_bias] = max(worst[with_bias], change)
            rows.append(
                {
                    "position term": "T5 bias" if with_bias else "none",
                    "word": w,
                    f"output in '{' '.join(SENTENCE)}'": ", ".join(f"{v:+.3f}" for v in va.tolist()),
                    f"output in '{' '.join(SHUFFLED)}'": ", ".join(f"{v:+.3f}" for v in vb.tolist()),
                    "largest change": change_text(change),
                }
            )
    return pd.DataFrame(rows), worst[False], worst[True]


def change_text(change: float) -> str:
    """A change in a word's output; float32 rounding (about 1e-7) reads as no change."""
    return "0 (float rounding)" if change < 1e-5 else number(change, 3)


def scheme_frame() -> pd.DataFrame:
    """The map: every scheme of the registry, in the order the papers appeared."""
    return pd.DataFrame([dict(scheme=s.title, paper=s.paper, kind=s.kind, how=s.how) for s in SCHEMES])

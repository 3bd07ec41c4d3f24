"""The compare page's CSVs: one text per view, in no language, shared by every language's chart."""

from __future__ import annotations

from posviz.figures import compare
from posviz.i18n import use

TOY = dict(seq_len=6, dim=8, base=10000.0, causal=True, seed=3, schemes="beyond")
FIGURES = (compare.term_profile, compare.term_grid, compare.attention_grid, compare.attention_row)


def test_each_view_csv_is_made_once_for_every_language():
    names = ",".join(compare.comparison(6, 8, 10000.0, True, 3, "beyond").names)  # the registry's, in English
    for fn in FIGURES:
        with use("en"):
            english = fn(**TOY)
        with use("zh"):
            chinese = fn(**TOY)
        assert chinese.csv() is english.csv()  # one text, made once (a chart is per language)
        assert english.csv().splitlines()[0].endswith(names)

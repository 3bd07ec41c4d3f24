"""The permutation demo: attention without position is permutation-equivariant, with a T5 bias it is not."""

from __future__ import annotations

import itertools

import pytest
import torch

from posviz.encodings.permutation import shuffle_outputs
from posviz.encodings.t5 import t5_permutation_outputs

WORDS = ("the", "dog", "bites", "a", "man")


@pytest.mark.parametrize("order", list(itertools.permutations(range(4)))[1:])
def test_without_position_a_shuffle_changes_no_output(order):
    sentence = WORDS[:4]
    shuffled = tuple(sentence[i] for i in order)
    out = shuffle_outputs(sentence, shuffled, dim=4, seed=1, with_bias=False)
    assert out.before.shape == out.after.shape == (4, 4) and out.change.shape == (4,)
    assert float(out.change.max()) < 1e-5  # float rounding only
    biased = shuffle_outputs(sentence, shuffled, dim=4, seed=1, with_bias=True)
    assert float(biased.change.max()) > 0.1  # a relative bias sees the new order (the toy head of the page: dim 4)


def test_rows_follow_the_sentence_and_change_is_the_largest_component_gap():
    sentence, shuffled = ("dog", "bites", "man"), ("man", "dog", "bites")
    out = shuffle_outputs(sentence, shuffled, dim=4, seed=0, with_bias=True)
    vocabulary = ("bites", "dog", "man")
    a = t5_permutation_outputs(sentence, vocabulary, dim=4, seed=0, with_bias=True)
    b = t5_permutation_outputs(shuffled, vocabulary, dim=4, seed=0, with_bias=True)
    assert torch.equal(out.before, a)
    for row, (i, j) in enumerate([(0, 1), (1, 2), (2, 0)]):  # dog, bites, man: their rows in each order
        assert torch.equal(out.before[row], a[i]) and torch.equal(out.after[row], b[j])
        assert float(out.change[row]) == max(abs(x - y) for x, y in zip(a[i].tolist(), b[j].tolist(), strict=True))


def test_identity_shuffle_changes_nothing_even_with_a_bias():
    out = shuffle_outputs(WORDS, WORDS, dim=4, seed=2, with_bias=True)
    assert torch.equal(out.before, out.after) and float(out.change.max()) == 0.0


@pytest.mark.parametrize(
    ("sentence", "shuffled"),
    [(("a", "b"), ("a", "c")), (("a", "a"), ("a", "a")), (("a", "b"), ("a",)), (("a", "b"), ("b", "a", "a"))],
)
def test_a_shuffle_must_reorder_distinct_words(sentence, shuffled):
    with pytest.raises(ValueError, match="shuffled must reorder"):
        shuffle_outputs(sentence, shuffled, dim=4, seed=0, with_bias=False)

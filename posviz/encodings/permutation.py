"""Why attention needs position: each word's output of a toy head before and after a shuffle of the words.

Without a position term self-attention is permutation-equivariant: shuffling the words shuffles
their outputs and changes none of them (up to float rounding). With a position term (here a T5
relative bias) the same shuffle changes what each word computes.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from posviz.encodings.t5 import t5_permutation_outputs


@dataclass(frozen=True)
class ShuffleOutputs:
    """Each word's output in both orders, rows in the order of the first sentence."""

    before: torch.Tensor  # (n, dim) each word's output in ``sentence``
    after: torch.Tensor  # (n, dim) the same word's output in ``shuffled``
    change: torch.Tensor  # (n,) max over components of |after - before|, per word


def shuffle_outputs(
    sentence: tuple[str, ...], shuffled: tuple[str, ...], *, dim: int, seed: int, with_bias: bool
) -> ShuffleOutputs:
    """Each word's output of one toy head (:func:`~posviz.encodings.t5.t5_permutation_outputs`, its vectors
    drawn from ``seed``) in ``sentence`` and in ``shuffled``, without or with a T5 bias.

    ``shuffled`` must hold the words of ``sentence``, each once, in another order.
    """
    if len(set(sentence)) != len(sentence) or sorted(shuffled) != sorted(sentence):
        raise ValueError(
            f"shuffled must reorder the distinct words of the sentence: got {sentence!r} and {shuffled!r}."
        )
    vocabulary = tuple(sorted(set(sentence)))
    a = t5_permutation_outputs(sentence, vocabulary, dim=dim, seed=seed, with_bias=with_bias)  # (n, dim)
    b = t5_permutation_outputs(shuffled, vocabulary, dim=dim, seed=seed, with_bias=with_bias)  # (n, dim)
    after = b[torch.tensor([shuffled.index(w) for w in sentence])]  # (n, dim): rows in the sentence's order
    return ShuffleOutputs(before=a, after=after, change=(after - a).abs().amax(dim=-1))

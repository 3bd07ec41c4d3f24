"""The T5 page's notes: the step and pitfall texts with this page's numbers filled in."""

from __future__ import annotations

from posviz.encodings.t5 import t5_garbage_value, t5_half, t5_last_exact, t5_max_exact
from posviz.i18n import _
from posviz.ui.t5.settings import T5Settings


def pitfall_shape_note(s: T5Settings) -> str:
    """What adding the transpose(0, 2) bias does when q_len != k_len."""
    scores, wrong = (1, s.heads, s.q_len, s.k_len), (1, s.heads, s.k_len, s.q_len)
    if min(s.q_len, s.k_len) == 1:
        side = max(s.q_len, s.k_len)
        return _(
            "With q_len = {q_len} and k_len = {k_len}, adding the transposed bias {wrong} to scores {scores} "
            "silently broadcasts both to (1, {heads}, {side}, {side}): a wrong shape and no error."
        ).format(q_len=s.q_len, k_len=s.k_len, wrong=wrong, scores=scores, heads=s.heads, side=side)
    return _(
        "With q_len = {q_len} ≠ k_len = {k_len}, adding the transposed bias {wrong} to scores {scores} "
        "fails with a shape error. Set q_len = k_len to see the version that fails silently."
    ).format(q_len=s.q_len, k_len=s.k_len, wrong=wrong, scores=scores)


def step_note(template: str, s: T5Settings) -> str:
    """A pipeline step's explanation with this page's numbers filled in."""
    max_exact = t5_max_exact(s.num_buckets, bidirectional=s.bidirectional)
    return template.format(
        half=t5_half(s.num_buckets, bidirectional=s.bidirectional),
        bidirectional_half=t5_half(s.num_buckets, bidirectional=True),  # the note describes both modes
        max_exact=max_exact,
        max_exact_minus_1=t5_last_exact(s.num_buckets, bidirectional=s.bidirectional),
        garbage=t5_garbage_value(max_exact),
    )

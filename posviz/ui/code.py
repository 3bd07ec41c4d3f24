"""Pieces shared by the schemes' PyTorch snippets (plain text, no streamlit)."""

from __future__ import annotations

import io
import tokenize

from posviz.figures.axes import Axes
from posviz.i18n import DEFAULT, _, current


def translated_comments(code: str) -> str:
    """``code`` with each ``# comment`` in the run's language (the code itself stays as it is).

    A comment is looked up whole in the catalogue (``tools.i18n`` lists the snippets' comments); one
    it does not hold, such as a pasted reference implementation's, is left as written.
    """
    if current() == DEFAULT or "#" not in code:
        return code
    lines = code.splitlines(keepends=True)
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(code).readline) if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return code
    for tok in reversed(tokens):
        row, col = tok.start
        text = tok.string[1:].strip()
        translated = _(text)
        if translated != text:
            line = lines[row - 1]
            lines[row - 1] = line[:col] + "# " + translated + line[col + len(tok.string) :]
    return "".join(lines)


def shown_args(stride: int, start: int = 0, count: int | None = None) -> str:
    """The arguments after ``length`` of a ``shown(...)`` call that draws a window's positions."""
    return f"{stride}" if count is None else f"{stride}, start={start}, count={count}"


def shown_lines(axes: Axes | None) -> list[str]:
    """The lines that define ``q_pos`` and ``k_pos``, the positions a matrix figure draws on ``axes``
    (every position without axes); they need ``q_len``, ``k_len``, ``offset`` and :data:`SHOWN_FN`."""
    q_args = shown_args(axes.q_stride, axes.q_from, axes.q_count) if axes else shown_args(1)
    k_args = shown_args(axes.k_stride, axes.k_from, axes.k_count) if axes else shown_args(1)
    return [
        f"q_pos = shown(q_len, {q_args}) + offset  # query positions i",
        f"k_pos = shown(k_len, {k_args})  # key positions j",
    ]


SHOWN_FN = '''\
def shown(length, stride, start=0, count=None):
    """Every stride-th position of [start, start + count) (default: all of [0, length)) and its last."""
    stop = length if count is None else start + count
    pos = torch.arange(start, stop, stride)
    return pos if pos[-1] == stop - 1 else torch.cat([pos, torch.tensor([stop - 1])])
'''


CURVE_FN = '''\
def curve_positions(last, dense, points, start=0):
    """Every value from start up to dense, then `points` log-spaced values up to last (sorted, unique)."""
    if last <= start:
        return torch.tensor([start])
    near = torch.arange(start, min(dense, last) + 1)
    far = torch.logspace(0, math.log10(last), max(points, 2), dtype=torch.float64).round().long().clamp(1, last)
    far[-1] = last
    return torch.unique(torch.cat([near, far[far >= start]]))
'''


GET_SLOPES = '''\
def get_slopes(n):
    """ofirpress/attention_with_linear_biases: the slope of each of n heads."""
    def get_slopes_power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (
        get_slopes_power_of_2(closest_power_of_2)
        + get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
    )
'''


T5_BUCKET_FN = '''\
def relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    """Hugging Face T5Attention._relative_position_bucket."""
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    relative_position_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    relative_position_if_large = torch.min(
        relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
    )
    relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
    return relative_buckets
'''

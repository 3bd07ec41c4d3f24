"""Pieces shared by the schemes' PyTorch snippets (plain text, no streamlit)."""


def shown_args(stride: int, start: int = 0, count: int | None = None) -> str:
    """The arguments after ``length`` of a ``shown(...)`` call that draws a window's positions."""
    return f"{stride}" if count is None else f"{stride}, start={start}, count={count}"


SHOWN_FN = '''\
def shown(length, stride, start=0, count=None):
    """Every stride-th position of [start, start + count) (default: all of [0, length)) and its last."""
    stop = length if count is None else start + count
    pos = torch.arange(start, stop, stride)
    return pos if pos[-1] == stop - 1 else torch.cat([pos, torch.tensor([stop - 1])])
'''

"""Pieces shared by the schemes' PyTorch snippets (plain text, no streamlit)."""

SHOWN_FN = '''\
def shown(length, stride, start=0, count=None):
    """Every stride-th position of [start, start + count) (default: all of [0, length)) and its last."""
    stop = length if count is None else start + count
    pos = torch.arange(start, stop, stride)
    return pos if pos[-1] == stop - 1 else torch.cat([pos, torch.tensor([stop - 1])])
'''

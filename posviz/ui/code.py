"""Pieces shared by the schemes' PyTorch snippets (plain text, no streamlit)."""

SHOWN_FN = '''\
def shown(length, stride):
    """Every stride-th position and the last: the positions the figure draws."""
    pos = torch.arange(0, length, stride)
    return pos if pos[-1] == length - 1 else torch.cat([pos, torch.tensor([length - 1])])
'''

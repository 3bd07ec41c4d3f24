"""The CoPE page's notes that depend on the settings and the text (plain text)."""

from __future__ import annotations

from posviz.encodings.positions import display_positions, display_stride
from posviz.figures.cope import COPE_MAX_TOKENS, MAIN_POINTS
from posviz.figures.layout import number
from posviz.i18n import _
from posviz.ui.cope.settings import COPE_MAX_CHARS


def allowance_note(n: int) -> str:
    """What the page allows, and what it does with a text of ``n`` tokens."""
    shown = len(display_positions(n, MAIN_POINTS)) if n else 0
    limits = dict(n=n, chars=COPE_MAX_CHARS, tokens=COPE_MAX_TOKENS)
    if shown < n:
        return _(
            "{n} tokens. The page reads up to {chars} characters and {tokens} tokens; heatmaps draw {shown} of the "
            "{n} query rows and keys (every {stride}th, plus the last); only those rows are computed, each against "
            "every key."
        ).format(**limits, shown=shown, stride=display_stride(n, MAIN_POINTS))
    return _("{n} tokens. The page reads up to {chars} characters and {tokens} tokens.").format(**limits)


def cut_note(total: int) -> str | None:
    """The warning for a text longer than the page reads; None when it is read whole."""
    if total <= COPE_MAX_TOKENS:
        return None
    return _("The text has {total} tokens; the page reads the first {tokens}.").format(
        total=total, tokens=COPE_MAX_TOKENS
    )


def leak_note(query: int, future_sum: float, npos_max: int) -> str:
    """What the pitfall does to the inspected query's row, whose future keys' gates sum to ``future_sum``."""
    if future_sum == 0:
        return _(
            "Query i = {query} has no future gates that fire (it is the last token, or no later key's gate "
            "is above 0): its row is unchanged. Pick an earlier query to see its positions shift."
        ).format(query=query)
    return _(
        "Query i = {query}: its future keys' gates sum to {total}, so with the mask after the "
        "gates each of its positions is that much too large (up to the clamp at {top})."
    ).format(query=query, total=number(future_sum, 3), top=npos_max - 1)

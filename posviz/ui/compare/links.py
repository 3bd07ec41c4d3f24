"""Links from the compare page to each compared scheme's page, with the shared settings, keyed by registry key."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

from posviz.encodings.compare import ALIBI_HEADS, COPE_NPOS
from posviz.schemes import BY_KEY, COMPARED
from posviz.ui.compare.settings import CompareSettings

Params = dict[str, str]


def _sinusoidal(s: CompareSettings) -> Params:
    return {"seq_len": str(s.seq_len), "base": f"{s.base:g}", "dim": str(s.dim), "seed": str(s.seed)}


# Scheme key -> (URL path of the page that shows it, its query parameters for these settings).
LINKS: dict[str, tuple[str, Callable[[CompareSettings], Params]]] = {
    "none": ("", lambda s: {}),
    "sinusoidal": ("sinusoidal", _sinusoidal),
    "learned": ("sinusoidal", _sinusoidal),  # section 5 of the sinusoidal page
    "shaw": (
        "shaw",
        lambda s: {"q_len": str(s.seq_len), "k_len": str(s.seq_len), "dim": str(s.dim), "seed": str(s.seed)},
    ),
    "t5": (
        "t5",
        lambda s: {
            "q_len": str(s.seq_len),
            "k_len": str(s.seq_len),
            "seed": str(s.seed),
            "bidirectional": str(not s.causal).lower(),
        },
    ),
    "rope": ("rope", _sinusoidal),
    "alibi": (
        "alibi",
        lambda s: {"seq_len": str(s.seq_len), "heads": str(ALIBI_HEADS), "causal": str(s.causal).lower()},
    ),
    "cope": ("cope", lambda s: {"mode": "random", "npos_max": str(COPE_NPOS), "dim": str(s.dim), "seed": str(s.seed)}),
}
# What a link opens, where it is not the scheme's own page.
OPENS = {
    "none": "the home page: why attention needs position",
    "learned": "the sinusoidal page (section 5) with these settings",
}


def page_links(s: CompareSettings) -> list[tuple[str, str, Params]]:
    """``(scheme key, url path, query params)`` in the registry's order: each scheme's page with these settings."""
    return [(c.key, LINKS[c.key][0], LINKS[c.key][1](s)) for c in COMPARED]


def link_markdown(s: CompareSettings) -> str:
    """A markdown list of links, one per scheme, to its page with these settings (they open in a new tab).

    Built from numbers and the registry's fixed names only, never from user text. ``st.page_link`` with
    ``query_params`` switches pages inside the session and, with URL-bound widgets, loses the
    parameters on the way (Streamlit 1.67); a plain link opens the page as a shared link would.
    """
    lines = []
    for key, path, params in page_links(s):
        name = BY_KEY[key].short
        url = (path or "./") + ("?" + urlencode(params) if params else "")
        what = OPENS.get(key, f"the {name} page with these settings")
        lines.append(f"- **{name}**: [{what}]({url})")
    return "\n".join(lines)

"""Links from the compare page to each compared scheme's page, with the shared settings.

The registry (each scheme's ``compared``) names the function giving a scheme's link settings and,
when it is not the scheme's own page, the page it opens; ``link_<key>`` here for the schemes posviz
ships with, a new scheme's in its own files.
"""

from __future__ import annotations

from urllib.parse import urlencode

from posviz.encodings.compare import ALIBI_HEADS, COPE_NPOS
from posviz.i18n import _
from posviz.schemes import COMPARED, load
from posviz.ui.compare.settings import CompareSettings

Params = dict[str, str]


def link_none(*, seq_len: int, dim: int, base: float, seed: int, causal: bool) -> Params:
    return {}


def link_sinusoidal(*, seq_len: int, dim: int, base: float, seed: int, causal: bool) -> Params:
    return {"seq_len": str(seq_len), "base": f"{base:g}", "dim": str(dim), "seed": str(seed)}


link_learned = link_sinusoidal  # section 5 of the sinusoidal page
link_rope = link_sinusoidal


def link_shaw(*, seq_len: int, dim: int, base: float, seed: int, causal: bool) -> Params:
    return {"q_len": str(seq_len), "k_len": str(seq_len), "dim": str(dim), "seed": str(seed)}


def link_t5(*, seq_len: int, dim: int, base: float, seed: int, causal: bool) -> Params:
    return {"q_len": str(seq_len), "k_len": str(seq_len), "seed": str(seed), "bidirectional": str(not causal).lower()}


def link_alibi(*, seq_len: int, dim: int, base: float, seed: int, causal: bool) -> Params:
    return {"seq_len": str(seq_len), "heads": str(ALIBI_HEADS), "causal": str(causal).lower()}


def link_cope(*, seq_len: int, dim: int, base: float, seed: int, causal: bool) -> Params:
    return {"mode": "random", "npos_max": str(COPE_NPOS), "dim": str(dim), "seed": str(seed)}


def page_links(s: CompareSettings) -> list[tuple[str, str, Params]]:
    """``(scheme key, url path, query params)`` in the registry's order: each scheme's page with these settings."""
    settings = dict(seq_len=s.seq_len, dim=s.dim, base=s.base, seed=s.seed, causal=s.causal)
    return [
        (c.key, c.key if c.compared.opens is None else c.compared.opens, load(c.compared.link)(**settings))
        for c in COMPARED
        if c.compared
    ]


def link_markdown(s: CompareSettings) -> str:
    """A markdown list of links, one per scheme, to its page with these settings (they open in a new tab).

    Built from numbers and the registry's fixed names (in this run's language) only, never from user text.
    ``st.page_link`` with ``query_params`` switches pages inside the session and, with URL-bound widgets, loses the
    parameters on the way (Streamlit 1.67); a plain link opens the page as a shared link would.
    """
    lines = []
    for c, (_key, path, params) in zip(COMPARED, page_links(s), strict=True):
        url = (path or "./") + ("?" + urlencode(params) if params else "")
        opens = c.compared.opens_text if c.compared else None
        name = _(c.short)
        what = _(opens) if opens else _("the {name} page with these settings").format(name=name)
        lines.append(f"- **{name}**: [{what}]({url})")
    return "\n".join(lines)

"""A deck as one self-contained HTML file: slides, notes, figures, clicker keys, a presenter window, print.

The file holds everything it needs (Plotly's cartesian bundle, the figure specs, the front end in
``assets/deck.js`` and ``assets/deck.css``) and fetches nothing: it works opened from a USB stick,
with no server and no network. The deck is untrusted text: titles and notes are escaped (notes are a
small Markdown subset made into HTML here, after escaping), and the slide data sits in a JSON script
block with every ``<``, ``>`` and ``&`` escaped.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from posviz.deck.slides import Slide
from posviz.i18n import DEFAULT, LANGUAGES, _, use

ASSETS = Path(__file__).resolve().parent / "assets"
BUNDLE = Path(__file__).resolve().parents[2] / "static" / "plotly-cartesian.min.js"


def _inline(text: str) -> str:
    """Inline Markdown on escaped text: `code`, **bold**, *italic* (nothing else becomes a tag)."""
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for part in parts:
        if len(part) >= 2 and part.startswith("`") and part.endswith("`"):
            out.append(f"<code>{part[1:-1]}</code>")
            continue
        part = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", part)
        part = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", part)
        out.append(part)
    return "".join(out)


def notes_html(markdown: str) -> str:
    """Notes (Markdown) as safe HTML: paragraphs, ``-`` lists, `code`, **bold**, *italic*; all else as text."""
    blocks: list[str] = []
    items: list[str] = []
    para: list[str] = []

    def close() -> None:
        if para:
            blocks.append(f"<p>{_inline(' '.join(para))}</p>")
            para.clear()
        if items:
            blocks.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in items) + "</ul>")
            items.clear()

    for raw in html.escape(markdown, quote=True).splitlines():
        line = raw.strip()
        if not line:
            close()
        elif re.match(r"[-*] ", line):
            if para:
                close()
            items.append(line[2:].strip())
        elif items and raw.startswith((" ", "\t")):
            items[-1] += " " + line  # a list item's continued line
        else:
            if items:
                close()
            para.append(line)
    close()
    return "".join(blocks)


def _json_for_script(data: Any) -> str:
    """JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` left as such."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _script_text(code: str) -> str:
    """Code for a ``<script>`` element: a ``</script`` inside it would end the element."""
    return re.sub(r"</(script)", r"<\\/\1", code, flags=re.IGNORECASE)


def ui_texts() -> dict[str, str]:
    """The file's own words (buttons, the presenter window's lines), in the current language; ``{name}``
    fields are filled in by deck.js."""
    return {
        "noFigureSlide": _("No figure on this slide."),
        "previous": _("Previous"),
        "next": _("Next"),
        "noNotes": _("No notes for this slide."),
        "nextTitle": _("Next: {title}"),
        "noFigure": _("No figure."),
        "lastSlide": _("Last slide."),
        "meta": _("{title} · slide {slide} of {last} · {time} · presenter window"),
        "presenter": _("Presenter window (P)"),
    }


def build(title: str, slides: list[Slide], lang: str = DEFAULT) -> str:
    """The whole HTML file for a deck titled ``title`` with ``slides``, its own words in ``lang``."""
    with use(lang):
        texts = ui_texts()
    data = {
        "title": title,
        "text": texts,
        "slides": [{"title": s.title, "notes": notes_html(s.notes), "figure": s.figure, "alt": s.alt} for s in slides],
    }
    template = (ASSETS / "deck.html").read_text(encoding="utf-8")
    parts = {
        "LANG": html.escape(lang if lang in LANGUAGES else DEFAULT),
        "TITLE": html.escape(title),
        "CSS": re.sub(r"</(style)", r"<\\/\1", (ASSETS / "deck.css").read_text(encoding="utf-8"), flags=re.IGNORECASE),
        "PLOTLY": _script_text(BUNDLE.read_text(encoding="utf-8")),
        "DATA": _json_for_script(data),
        "JS": _script_text((ASSETS / "deck.js").read_text(encoding="utf-8")),
    }
    return re.sub(r"\{\{(LANG|TITLE|CSS|PLOTLY|DATA|JS)\}\}", lambda m: parts[m.group(1)], template)

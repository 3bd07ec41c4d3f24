"""One definition per URL parameter, and the Python-side parsing of URL values.

Streamlit's ``bind="query-params"`` seeds a widget from the link but silently
drops values it cannot parse and does not enforce ``step``; :func:`parse`
reads the raw text itself so the page can say what it refused or changed.
No streamlit here: this module is plain Python and tested on its own.

``PARAMS`` holds the keys several pages share (the same meaning on every
page); a scheme's own keys are defined in its ui package's settings.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from posviz.i18n import LANGUAGES, N_, _

MAX_LEN = 131072
MAX_CURVE_LEN = 1048576  # 1-D curves (one value per position) go further than matrices

Kind = Literal["int", "float", "choice", "bool", "text"]
Widget = Literal["slider", "number", "toggle", "radio", "select", "text_area"]


@dataclass(frozen=True)
class Param:
    """A control bound to the URL key ``key``: the same meaning on every page."""

    key: str
    label: str
    kind: Kind
    default: Any
    widget: Widget
    help: str = ""
    min: float | None = None
    max: float | None = None
    step: float | None = None  # whole numbers step by 1 unless given
    even: bool = False
    options: tuple[str, ...] = ()
    option_labels: dict[str, str] = field(default_factory=dict)
    # kind "text": ``max`` is the most characters kept


def narrowed(p: Param, *, default: Any = None, options: tuple[str, ...] | None = None) -> Param:
    """``p`` as one page offers it: its own default (``seq_len`` is 8 on the skew walk-through), or fewer
    choices (``layout`` is interleaved or half for RoPE); a default outside them falls back to the first."""
    if options is not None:
        p = replace(p, options=tuple(options), default=p.default if p.default in options else options[0])
    return p if default is None else replace(p, default=default)


def length(key: str, label: str, *, default: int, help: str) -> Param:
    """A count of positions (a length or a distance) typed in a number box: 1 .. ``MAX_LEN``."""
    return Param(key, label, "int", default, "number", min=1, max=MAX_LEN, help=help)


# The key axis's controls are the query axis's, with their own key, label and help.
Q_LEN = length(
    "q_len",
    N_("Query length q_len"),
    default=128,
    help=N_("Number of query positions. Large values are drawn as a strided sample."),
)
Q_START = Param(
    "q_start",
    N_("Window: first query i"),
    "int",
    0,
    "number",
    min=0,
    max=MAX_LEN - 1,
    help=N_("Position of the window's first query (moved back when the window would run past the end)."),
)

PARAMS: dict[str, Param] = {
    p.key: p
    for p in [
        Param(
            "lang",
            N_("Language · 语言"),
            "choice",
            "en",
            "radio",
            options=tuple(LANGUAGES),
            option_labels=dict(LANGUAGES),  # each language by its own name, never translated
            help=N_("The language of every page, figure and deck; links keep it (lang=zh)."),
        ),
        Param(
            "lecture",
            N_("Lecture mode"),
            "bool",
            False,
            "toggle",
            help=N_("Large fonts and taller figures for a projector; explanations fold into expanders."),
        ),
        Q_LEN,
        replace(
            Q_LEN,
            key="k_len",
            label=N_("Key length k_len"),
            help=N_("Number of key positions (more than q_len with a cache or memory)."),
        ),
        Param(
            "align",
            N_("Queries sit at"),
            "choice",
            "start",
            "radio",
            options=("start", "end"),
            option_labels={
                "start": N_("i = 0, 1, ... as in the seeds"),
                "end": N_("i = k_len - q_len, ...: cached decoding, Transformer-XL"),
            },
            help=N_("Where the queries are among the keys: i = 0.. or i = k_len - q_len.."),
        ),
        Param(
            "heads",
            N_("Heads"),
            "int",
            8,
            "slider",
            min=1,
            max=64,
            help=N_("Columns of the bias table: each head learns its own scalar per bucket."),
        ),
        Param(
            "head",
            N_("Head shown"),
            "int",
            0,
            "slider",
            min=0,
            max=63,
            help=N_("Which head's bias and attention to draw."),
        ),
        Param(
            "seed",
            N_("Seed"),
            "int",
            0,
            "number",
            min=0,
            max=2**31 - 1,
            help=N_("Seeds the random bias table and the toy queries and keys."),
        ),
        Param("step", N_("Step"), "int", 1, "slider", min=1, max=64, help=N_("Step of the walk-through.")),
        # A zoom into any matrix view (T5, Shaw, ALiBi): drawn at full resolution when small enough.
        Param(
            "window",
            N_("Window size (0: whole view)"),
            "int",
            0,
            "number",
            min=0,
            max=MAX_LEN,
            help=N_(
                "Zoom: draw only this many queries and keys from the positions below. A small window is drawn "
                "cell by cell; a larger one is strided, and each figure's subtitle says which. 0 draws the whole "
                "view, strided."
            ),
        ),
        Q_START,
        replace(
            Q_START,
            key="k_start",
            label=N_("Window: first key j"),
            help=N_("Position of the window's first key (moved back when the window would run past the end)."),
        ),
        # Curves and vectors: a page narrows the bounds or sets its own default with setting(..., default=).
        Param(
            "seq_len",
            N_("Sequence length seq_len"),
            "int",
            512,
            "number",
            min=1,
            max=MAX_CURVE_LEN,
            help=N_("Number of positions. Large values are drawn as a strided sample."),
        ),
        Param(
            "dim",
            N_("Dimension dim"),
            "int",
            64,
            "number",
            min=2,
            max=512,
            even=True,
            help=N_("Size of each query, key or embedding vector (even: sin/cos and rotation pairs)."),
        ),
        # Frequencies (RoPE, sinusoidal, compare)
        Param(
            "base",
            N_("Base of the frequencies"),
            "float",
            10000.0,
            "number",
            min=2.0,
            max=1e9,
            step=1.0,
            help=N_("Frequencies fall from 1 to base^(-(dim-2)/dim): 10000 in the papers, 500000 in Llama 3."),
        ),
        Param(
            "layout",
            N_("Layout"),
            "choice",
            "interleaved",
            "radio",
            options=("interleaved", "half", "concat"),
            option_labels={
                "interleaved": N_("pairs (x[2k], x[2k+1]): the papers, Meta LLaMA"),
                "half": N_("pairs (x[k], x[k+d/2]): GPT-NeoX, Hugging Face"),
                "concat": N_("[sin | cos]: tensor2tensor, fairseq, Transformer-XL"),
            },
            help=N_("Which components form a pair (RoPE: interleaved or half; sinusoidal: interleaved or concat)."),
        ),
        # ALiBi and compare
        Param(
            "causal",
            N_("Causal (decoder)"),
            "bool",
            True,
            "toggle",
            help=N_("On: each query sees keys j <= i, bias -m (i - j). Off: every key, symmetric bias -m |i - j|."),
        ),
    ]
}


def format_value(param: Param, value: Any) -> str:
    """How a value reads in a notice or a link."""
    if param.kind == "bool":
        return "on" if value else "off"
    if param.kind == "float":
        return f"{value:g}"
    return str(value)


def plain(text: str) -> str:
    """Untrusted text made inert inside markdown: every markup character escaped."""
    return "".join("\\" + ch if ch in "\\`*_{}[]()<>#+-.!|~$&:=;'\"" else ch for ch in text)


def clean_text(raw: str, limit: int) -> tuple[str, list[str]]:
    """Free text made safe to keep: what was changed, as phrases for a notice.

    Line breaks become ``\\n``; control and invisible format characters (NUL,
    escape codes, bidirectional overrides) are removed; at most ``limit``
    characters are kept.
    """
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    kept = "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf", "Cs"))
    notes = []
    if kept != text:
        notes.append(_("held control characters, which were removed"))
    if len(kept) > limit:
        kept = kept[:limit]
        notes.append(
            _("is longer than the {limit} characters allowed; only its first {limit} are used").format(limit=limit)
        )
    return kept, notes


def quote_raw(raw: str, limit: int = 40) -> str:
    """URL text made safe to show inside markdown: printable, short, escaped."""
    text = "".join(ch if ch.isprintable() else "?" for ch in raw)
    if len(text) > limit:
        text = text[:limit] + "..."
    return plain(text)


def parse(
    param: Param, raw: str | list[str], *, min_value: float | None = None, max_value: float | None = None
) -> tuple[Any, str | None]:
    """Value to use for the URL text ``raw``, and a notice if it was not taken as is.

    Out of range lands on the nearest bound; text that is no value of the kind falls back
    to the default; a key given more than once takes its last value (as Streamlit does).

    Args:
        param: the parameter's definition.
        raw: the text after ``key=`` in the link, or every such text when the key repeats.
        min_value, max_value: tighter bounds that depend on other settings.

    Returns:
        ``(value, notice)``: ``notice`` is None when ``raw`` was used unchanged,
        otherwise a sentence saying what was refused or adjusted and why.
    """
    if isinstance(raw, list):
        value, notice = parse(param, raw[-1], min_value=min_value, max_value=max_value)
        if len(raw) == 1:
            return value, notice
        listed = ", ".join(quote_raw(r, 12) for r in raw[:4]) + (", ..." if len(raw) > 4 else "")
        said = _("{key} appears {count} times in the link ({listed}); the last one is used: ").format(
            key=param.key, count=len(raw), listed=listed
        )
        return value, said + (notice or f"{param.key}={format_value(param, value)}.")
    lo = param.min if min_value is None else min_value
    hi = param.max if max_value is None else max_value
    shown = f"{param.key}={quote_raw(raw)}"
    default = param.default
    if param.kind in ("int", "float") and lo is not None and hi is not None:
        default = min(max(default, lo), hi)
    fallback = _("using {value} instead").format(value=format_value(param, default))

    if param.kind == "bool":
        word = raw.strip().lower()
        if word in ("true", "1", "yes", "on"):
            return True, None
        if word in ("false", "0", "no", "off"):
            return False, None
        return default, _("{shown} in the link is not on or off (true/false, 1/0); {fallback}.").format(
            shown=shown, fallback=fallback
        )

    if param.kind == "text":
        text, notes = clean_text(raw, int(param.max or len(raw)))
        return text, _("{shown} in the link {notes}.").format(shown=shown, notes=_and(notes)) if notes else None

    if param.kind == "choice":
        word = raw.strip().lower()
        if word in param.options:
            return word, None
        in_all = _("… ({count} in all)").format(count=len(param.options))
        listed = param.options if len(param.options) <= 8 else (*param.options[:6], in_all)
        allowed = ", ".join(listed)
        return default, _("{shown} in the link is not one of {allowed}; {fallback}.").format(
            shown=shown, allowed=allowed, fallback=fallback
        )

    try:
        number = float(raw.strip())
    except ValueError:
        if param.kind == "int":
            return default, _("{shown} in the link is not a whole number; {fallback}.").format(
                shown=shown, fallback=fallback
            )
        return default, _("{shown} in the link is not a number; {fallback}.").format(shown=shown, fallback=fallback)
    not_finite = _("{shown} in the link is not a finite number; {fallback}.").format(shown=shown, fallback=fallback)
    if math.isnan(number) or (math.isinf(number) and "inf" in raw.lower()):
        return default, not_finite
    # A number too large for a float (a 400-digit q_len) is inf here: out of range below.

    notes = []
    if lo is not None and number < lo:
        notes.append(_("below the smallest allowed, {value}").format(value=format_value(param, lo)))
        number = lo
    elif hi is not None and number > hi:
        notes.append(_("above the largest allowed, {value}").format(value=format_value(param, hi)))
        number = hi
    if math.isinf(number):  # no bound on that side
        return default, not_finite
    step = param.step or (1 if param.kind == "int" else 0)
    if step:
        base = lo if lo is not None else 0
        snapped = round(base + round((number - base) / step) * step, 10)
        if hi is not None and snapped > hi:
            snapped -= step
        if not notes and not math.isclose(snapped, number, rel_tol=0, abs_tol=1e-9):
            whole = param.kind == "int" and step == 1
            notes.append(
                _("not a whole number")
                if whole
                else _("not a multiple of the step {step}").format(step=format_value(param, step))
            )
        number = snapped  # within float noise of the grid: onto it, without a word
    if param.even and int(number) % 2:
        number = int(number) - 1 if lo is None or int(number) - 1 >= lo else int(number) + 1
        notes.append(_("odd, and it must be even"))
    value: Any = int(round(number)) if param.kind == "int" else float(number)
    if notes:
        return value, _("{shown} in the link is {notes}; using {value}.").format(
            shown=shown, notes=_and(notes), value=format_value(param, value)
        )
    return value, None


def _and(notes: list[str]) -> str:
    """Phrases of a notice joined as one ("below ... and odd, and it must be even"), in the run's language."""
    return _(" and ").join(notes)


def link_text(p: Param, value: Any) -> str:
    """A widget's value as Streamlit writes it in the address bar (what ``parse`` reads back to the same value)."""
    if p.kind == "bool":
        return "true" if value else "false"
    if p.kind == "int":
        return str(int(value))
    if p.kind == "float":
        return f"{float(value):.10g}"
    return str(value)

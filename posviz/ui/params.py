"""One definition per URL parameter, and the Python-side parsing of URL values.

Streamlit's ``bind="query-params"`` seeds a widget from the link but silently
drops values it cannot parse and does not enforce ``step``; :func:`parse`
reads the raw text itself so the page can say what it refused or changed.
No streamlit here: this module is plain Python and tested on its own.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Literal

MAX_LEN = 131072
MAX_CURVE_LEN = 1048576  # 1-D curves (one value per position) go further than matrices

Kind = Literal["int", "float", "choice", "bool", "text"]
Widget = Literal["slider", "number", "toggle", "radio", "text_area"]


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
    step: float | None = None
    even: bool = False
    options: tuple[str, ...] = ()
    option_labels: dict[str, str] = field(default_factory=dict)
    # kind "text": ``max`` is the most characters kept


# CoPE page: the text it tokenises, and how many tokens it reads.
COPE_MAX_CHARS = 20000
COPE_MAX_TOKENS = 4096
COPE_TEXT = (
    "The cat sat on the mat. It was warm there! Then the dog came in, and it sat down too. "
    "Both slept. Who woke up first?"
)


PARAMS: dict[str, Param] = {
    p.key: p
    for p in [
        Param(
            "lecture",
            "Lecture mode",
            "bool",
            False,
            "toggle",
            help="Large fonts and taller figures for a projector; explanations fold into expanders.",
        ),
        Param(
            "q_len",
            "Query length q_len",
            "int",
            128,
            "number",
            min=1,
            max=MAX_LEN,
            step=1,
            help="Number of query positions. Large values are drawn as a strided sample.",
        ),
        Param(
            "k_len",
            "Key length k_len",
            "int",
            128,
            "number",
            min=1,
            max=MAX_LEN,
            step=1,
            help="Number of key positions (more than q_len with a cache or memory).",
        ),
        Param(
            "align",
            "Queries sit at",
            "choice",
            "start",
            "radio",
            options=("start", "end"),
            option_labels={
                "start": "i = 0, 1, ... as in the seeds",
                "end": "i = k_len - q_len, ...: cached decoding, Transformer-XL",
            },
            help="Where the queries are among the keys: i = 0.. or i = k_len - q_len..",
        ),
        Param(
            "num_buckets",
            "Buckets num_buckets",
            "int",
            32,
            "slider",
            min=1,
            max=256,
            step=1,
            help="Total number of buckets (T5 uses 32); halved per direction when bidirectional.",
        ),
        Param(
            "max_distance",
            "Max distance max_distance",
            "int",
            128,
            "number",
            min=1,
            max=MAX_LEN,
            step=1,
            help="Distances from here on share the last bucket (T5 uses 128).",
        ),
        Param(
            "bidirectional",
            "Bidirectional (encoder)",
            "bool",
            True,
            "toggle",
            help="On: encoder, past and future keys get separate buckets. Off: decoder, "
            "every future key shares bucket 0.",
        ),
        Param(
            "heads",
            "Heads",
            "int",
            8,
            "slider",
            min=1,
            max=64,
            step=1,
            help="Columns of the bias table: each head learns its own scalar per bucket.",
        ),
        Param(
            "head",
            "Head shown",
            "int",
            0,
            "slider",
            min=0,
            max=63,
            step=1,
            help="Which head's bias and attention to draw.",
        ),
        Param(
            "scale",
            "Bias scale",
            "float",
            1.0,
            "slider",
            min=-4.0,
            max=4.0,
            step=0.05,
            help="Multiplies the bias (1 in T5; the seed notebooks call it rp_scale).",
        ),
        Param(
            "seed",
            "Seed",
            "int",
            0,
            "number",
            min=0,
            max=2**31 - 1,
            step=1,
            help="Seeds the random bias table and the toy queries and keys.",
        ),
        Param("step", "Step", "int", 1, "slider", min=1, max=64, step=1, help="Step of the walk-through."),
        # A zoom into any matrix view (T5, Shaw, ALiBi): drawn at full resolution when small enough.
        Param(
            "window",
            "Window size (0: whole view)",
            "int",
            0,
            "number",
            min=0,
            max=MAX_LEN,
            step=1,
            help="Zoom: draw only this many queries and keys from the positions below (at most 192 per axis "
            "are drawn, so a window of 192 or less shows every cell). 0 draws the whole view, strided.",
        ),
        Param(
            "q_start",
            "Window: first query i",
            "int",
            0,
            "number",
            min=0,
            max=MAX_LEN - 1,
            step=1,
            help="Position of the window's first query (moved back when the window would run past the end).",
        ),
        Param(
            "k_start",
            "Window: first key j",
            "int",
            0,
            "number",
            min=0,
            max=MAX_LEN - 1,
            step=1,
            help="Position of the window's first key (moved back when the window would run past the end).",
        ),
        # Shared by several pages; a page narrows the bounds or sets its own
        # default through control(key, min_value=, max_value=, default=).
        Param(
            "seq_len",
            "Sequence length seq_len",
            "int",
            512,
            "number",
            min=1,
            max=MAX_CURVE_LEN,
            step=1,
            help="Number of positions. Large values are drawn as a strided sample.",
        ),
        Param(
            "dim",
            "Dimension dim",
            "int",
            64,
            "number",
            min=2,
            max=512,
            step=1,
            even=True,
            help="Size of each query, key or embedding vector (even: sin/cos and rotation pairs).",
        ),
        # Shaw and skew pages
        Param(
            "clip",
            "Clip distance K",
            "int",
            8,
            "number",
            min=0,
            max=4096,
            step=1,
            help="Largest distance with its own table row; the table has 2K + 1 rows (tensor2tensor's "
            "max_relative_position).",
        ),
        Param(
            "separate",
            "Separate value table a^V",
            "bool",
            True,
            "toggle",
            help="On: keys and values get their own tables (a^K, a^V), as in the paper. Off: one shared table.",
        ),
        Param(
            "row",
            "Query row shown",
            "int",
            16,
            "slider",
            min=0,
            max=MAX_LEN - 1,
            step=1,
            help="Which query's lookup R[i] to draw (0 is the first query).",
        ),
        Param(
            "variant",
            "Variant",
            "choice",
            "masked",
            "radio",
            options=("masked", "unmasked", "rel_shift"),
            option_labels={
                "masked": "Music Transformer: L relative columns, causal",
                "unmasked": "2L − 1 relative columns, every pair",
                "rel_shift": "Transformer-XL _rel_shift, with memory",
            },
            help="Which relative-to-absolute trick to walk through.",
        ),
        Param(
            "mem_len",
            "Memory length mem_len",
            "int",
            3,
            "number",
            min=0,
            max=256,
            step=1,
            help="Transformer-XL: cached keys before the first query (k_len = seq_len + mem_len).",
        ),
        Param(
            "colour",
            "Colour cells by",
            "choice",
            "distance",
            "radio",
            options=("distance", "row"),
            option_labels={"distance": "the relative position they hold", "row": "the query row they came from"},
            help="Either way a value keeps its colour through every step, so the eye can follow it.",
        ),
        # RoPE page
        Param(
            "base",
            "Base of the frequencies",
            "float",
            10000.0,
            "number",
            min=2.0,
            max=1e9,
            step=1.0,
            help="Frequencies fall from 1 to base^(-(dim-2)/dim): 10000 in the papers, 500000 in Llama 3.",
        ),
        Param("m", "Position m", "int", 2, "number", min=0, max=MAX_CURVE_LEN - 1, step=1, help="Query position."),
        Param("n", "Position n", "int", 5, "number", min=0, max=MAX_CURVE_LEN - 1, step=1, help="Key position."),
        Param(
            "layout",
            "Layout",
            "choice",
            "interleaved",
            "radio",
            options=("interleaved", "half", "concat"),
            option_labels={
                "interleaved": "pairs (x[2k], x[2k+1]): the papers, Meta LLaMA",
                "half": "pairs (x[k], x[k+d/2]): GPT-NeoX, Hugging Face",
                "concat": "[sin | cos]: tensor2tensor, fairseq, Transformer-XL",
            },
            help="Which components form a pair (RoPE: interleaved or half; sinusoidal: interleaved or concat).",
        ),
        Param(
            "method",
            "Scaling method",
            "choice",
            "default",
            "radio",
            options=("default", "linear", "dynamic", "yarn", "llama3"),
            option_labels={
                "default": "no scaling",
                "linear": "position interpolation",
                "dynamic": "dynamic NTK",
                "yarn": "YaRN",
                "llama3": "Llama 3.1",
            },
            help="Context-extension method, as Hugging Face rope_type.",
        ),
        Param(
            "factor",
            "Scaling factor",
            "float",
            4.0,
            "number",
            min=1.0,
            max=256.0,
            step=0.25,
            help="How many times longer the new context is than the original one.",
        ),
        Param(
            "original_max_position",
            "Original context original_max_position",
            "int",
            4096,
            "number",
            min=16,
            max=MAX_CURVE_LEN,
            step=1,
            help="The context length the model was trained on (max_position_embeddings for dynamic).",
        ),
        Param(
            "beta_fast",
            "beta_fast (turns)",
            "float",
            32.0,
            "number",
            min=0.25,
            max=4096.0,
            step=0.25,
            help="YaRN: pairs that turn more often than this inside the original context are kept.",
        ),
        Param(
            "beta_slow",
            "beta_slow (turns)",
            "float",
            1.0,
            "number",
            min=0.25,
            max=4096.0,
            step=0.25,
            help="YaRN: pairs that turn fewer times than this inside the original context are interpolated.",
        ),
        Param(
            "mscale",
            "mscale",
            "float",
            0.0,
            "number",
            min=0.0,
            max=10.0,
            step=0.001,
            help="YaRN (DeepSeek): with mscale_all_dim, the attention factor is a ratio; 0 means unset.",
        ),
        Param(
            "mscale_all_dim",
            "mscale_all_dim",
            "float",
            0.0,
            "number",
            min=0.0,
            max=10.0,
            step=0.001,
            help="YaRN (DeepSeek): see mscale; 0 means unset.",
        ),
        Param(
            "attention_factor",
            "attention_factor",
            "float",
            0.0,
            "number",
            min=0.0,
            max=10.0,
            step=0.001,
            help="YaRN: multiplies cos and sin; 0 means unset (computed from factor).",
        ),
        Param(
            "truncate",
            "truncate",
            "bool",
            True,
            "toggle",
            help="YaRN: round the ramp's ends to whole pairs (floor and ceil), as the reference does.",
        ),
        Param(
            "low_freq_factor",
            "low_freq_factor",
            "float",
            1.0,
            "number",
            min=0.25,
            max=1024.0,
            step=0.25,
            help="llama3: wavelengths above original_max_position / low_freq_factor are divided by factor.",
        ),
        Param(
            "high_freq_factor",
            "high_freq_factor",
            "float",
            4.0,
            "number",
            min=0.25,
            max=1024.0,
            step=0.25,
            help="llama3: wavelengths below original_max_position / high_freq_factor are kept.",
        ),
        # CoPE page
        Param(
            "text",
            "Text",
            "text",
            COPE_TEXT,
            "text_area",
            max=COPE_MAX_CHARS,
            help=f"Words and punctuation marks become tokens; at most {COPE_MAX_CHARS} characters and "
            f"{COPE_MAX_TOKENS} tokens are read.",
        ),
        Param(
            "mode",
            "Gates come from",
            "choice",
            "count-sentences",
            "radio",
            options=("count-tokens", "count-sentences", "random", "custom"),
            option_labels={
                "count-tokens": "every gate 1: a relative position",
                "count-sentences": "1 on . ! ? only: counts sentences",
                "random": "sigmoid(q · k / temperature), toy q, k",
                "custom": "a gate per token, from the table",
            },
            help="Where the gates g_ij come from; a trained model computes sigmoid(q_i · k_j).",
        ),
        Param(
            "npos_max",
            "Positions npos_max",
            "int",
            16,
            "number",
            min=1,
            max=COPE_MAX_TOKENS + 1,
            step=1,
            help="Number of position embeddings e[0] .. e[npos_max - 1]; positions are clamped to npos_max - 1.",
        ),
        Param(
            "temperature",
            "Temperature",
            "float",
            8.0,
            "slider",
            min=0.5,
            max=32.0,
            step=0.5,
            help="Random mode: gates sigmoid(q · k / temperature). The paper divides by √dim (8 for dim = 64).",
        ),
        Param(
            "query",
            "Query token i",
            "int",
            0,
            "slider",
            min=0,
            max=COPE_MAX_TOKENS - 1,
            step=1,
            help="The query whose positions, interpolation and counting are inspected.",
        ),
        Param(
            "key",
            "Key token j",
            "int",
            0,
            "slider",
            min=0,
            max=COPE_MAX_TOKENS - 1,
            step=1,
            help="The key (j <= i) whose position p_ij is interpolated.",
        ),
        Param(
            "mask_after",
            "Apply the mask after the gates (wrong)",
            "bool",
            False,
            "toggle",
            help="The pitfall: gates of future keys are summed into every position before the mask.",
        ),
        # Sinusoidal, ALiBi and compare pages
        Param(
            "causal",
            "Causal (decoder)",
            "bool",
            True,
            "toggle",
            help="On: each query sees keys j <= i, bias -m (i - j). Off: every key, symmetric bias -m |i - j|.",
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
        notes.append("held control characters, which were removed")
    if len(kept) > limit:
        kept = kept[:limit]
        notes.append(f"is longer than the {limit} characters allowed; only its first {limit} are used")
    return kept, notes


def quote_raw(raw: str, limit: int = 40) -> str:
    """URL text made safe to show inside markdown: printable, short, escaped."""
    text = "".join(ch if ch.isprintable() else "?" for ch in raw)
    if len(text) > limit:
        text = text[:limit] + "..."
    return plain(text)


def parse(
    param: Param, raw: str, *, min_value: float | None = None, max_value: float | None = None
) -> tuple[Any, str | None]:
    """Value to use for the URL text ``raw``, and a notice if it was not taken as is.

    Args:
        param: the parameter's definition.
        raw: the text after ``key=`` in the link.
        min_value, max_value: tighter bounds that depend on other settings.

    Returns:
        ``(value, notice)``: ``notice`` is None when ``raw`` was used unchanged,
        otherwise a sentence saying what was refused or adjusted and why.
    """
    lo = param.min if min_value is None else min_value
    hi = param.max if max_value is None else max_value
    shown = f"{param.key}={quote_raw(raw)}"
    default = param.default
    if param.kind in ("int", "float") and lo is not None and hi is not None:
        default = min(max(default, lo), hi)
    fallback = f"using {format_value(param, default)} instead"

    if param.kind == "bool":
        word = raw.strip().lower()
        if word in ("true", "1", "yes", "on"):
            return True, None
        if word in ("false", "0", "no", "off"):
            return False, None
        return default, f"{shown} in the link is not on or off (true/false, 1/0); {fallback}."

    if param.kind == "text":
        text, notes = clean_text(raw, int(param.max or len(raw)))
        return text, f"{shown} in the link {' and '.join(notes)}." if notes else None

    if param.kind == "choice":
        word = raw.strip().lower()
        if word in param.options:
            return word, None
        allowed = ", ".join(param.options)
        return default, f"{shown} in the link is not one of {allowed}; {fallback}."

    try:
        number = float(raw.strip())
    except ValueError:
        what = "a whole number" if param.kind == "int" else "a number"
        return default, f"{shown} in the link is not {what}; {fallback}."
    if math.isnan(number) or (math.isinf(number) and "inf" in raw.lower()):
        return default, f"{shown} in the link is not a finite number; {fallback}."
    # A number too large for a float (a 400-digit q_len) is inf here: out of range below.

    # Out of range falls back to the default, as Streamlit's own binding does.
    if lo is not None and number < lo:
        return default, f"{shown} in the link is below the smallest allowed, {format_value(param, lo)}; {fallback}."
    if hi is not None and number > hi:
        return default, f"{shown} in the link is above the largest allowed, {format_value(param, hi)}; {fallback}."
    notes = []
    step = param.step or 0
    if step:
        base = lo if lo is not None else 0
        snapped = base + round((number - base) / step) * step
        snapped = round(snapped, 10)
        if hi is not None and snapped > hi:
            snapped -= step
        if not math.isclose(snapped, number, rel_tol=0, abs_tol=1e-9):
            whole = param.kind == "int" and step == 1
            notes.append("not a whole number" if whole else f"not a multiple of the step {format_value(param, step)}")
            number = snapped
    if param.even and int(number) % 2:
        number = int(number) - 1 if lo is None or int(number) - 1 >= lo else int(number) + 1
        notes.append("odd, and it must be even")
    value: Any = int(round(number)) if param.kind == "int" else float(number)
    if notes:
        return value, f"{shown} in the link is {' and '.join(notes)}; using {format_value(param, value)}."
    return value, None

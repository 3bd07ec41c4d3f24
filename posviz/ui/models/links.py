"""Links from a model to the scheme page that shows its encoding, with the model's numbers filled in.

Built from numbers and fixed names only, never from the config's text, as plain markdown links that
open a new page the way a shared link does (see the compare page's links). A value past what the
scheme page offers (BERT's 768-dimensional table on a page that draws at most 512) is left out, and
the link says so: the page then opens with its own default for it.
"""

from __future__ import annotations

from urllib.parse import urlencode

from posviz.encodings.model_rope import RopeSpec
from posviz.encodings.models import ModelPositions
from posviz.encodings.rope_scaling import METHODS
from posviz.ui.params import MAX_CURVE_LEN, MAX_LEN, PARAMS

Params = dict[str, str]
TRAINED_FALLBACK = 2048  # ALiBi link length when a config sets none (BLOOM trained at 2,048)


def _number(x: float) -> str:
    return f"{x:.10g}"


def _fit(params: dict[str, float | int | str], limits: dict[str, int]) -> tuple[Params, list[str]]:
    """The parameters as link text, leaving out a number past its page's largest value (named in ``left``)."""
    kept, left = {}, []
    for key, value in params.items():
        if key in limits and isinstance(value, int | float) and value > limits[key]:
            left.append(f"{key} {value:,} is past the page's {limits[key]:,}")
        else:
            kept[key] = value if isinstance(value, str) else _number(value)
    return kept, left


def rope_params(spec: RopeSpec) -> tuple[Params, list[str]]:
    """The RoPE page with this attention kind's RoPE: rotary dims, base, layout, method and its options."""
    method = spec.rope_type if spec.rope_type in METHODS else "default"
    params: dict = {"dim": spec.rotary_dim, "base": spec.base, "layout": spec.layout, "method": method}
    params["show_scaling"] = "true"  # the RoPE page's scaling section, open, drawn with these values
    params["seq_len"] = min(spec.extended_context, MAX_CURVE_LEN)
    if method != "default":
        params["factor"] = spec.factor
    if method in ("dynamic", "yarn", "llama3"):
        params["original_max_position"] = spec.original_max_position
    if method in ("yarn", "llama3"):
        for key, value in spec.options:
            if isinstance(value, bool):
                params[key] = "true" if value else "false"
            elif value is not None:
                params[key] = value
    return _fit(params, {"dim": PARAMS["dim"].max})


def page_links(mp: ModelPositions) -> list[tuple[str, str, Params, list[str]]]:
    """``(what it opens, url path, query params, what was left out)``, one per RoPE kind or one for the family."""
    out = []
    if mp.ropes:
        groups: dict[RopeSpec, list[str]] = {}
        for kind, spec in mp.ropes:
            groups.setdefault(spec, []).append(kind)
        for spec, kinds in groups.items():
            what = f"the RoPE page with its {' and '.join(kinds)} layers' RoPE ({spec.rope_type})"
            if spec.rope_type not in METHODS:
                what += f"; {spec.rope_type} is not on that page, so it opens the unscaled RoPE of the same base"
            params, left = rope_params(spec)
            out.append((what, "rope", params, left))
    elif mp.t5 is not None:
        t = mp.t5
        span = min(2 * t.max_distance, MAX_LEN)
        params = dict(num_buckets=t.num_buckets, max_distance=t.max_distance, heads=t.heads, bidirectional="true")
        kept, left = _fit({**params, "q_len": span, "k_len": span}, {"heads": PARAMS["heads"].max})
        out.append(("the T5 page with its buckets, maximum distance and heads (the encoder)", "t5", kept, left))
    elif mp.alibi is not None:
        seq_len = min(mp.max_position or TRAINED_FALLBACK, MAX_LEN)
        kept, left = _fit({"heads": mp.alibi.heads, "seq_len": seq_len, "causal": "true"}, {})
        out.append(("the ALiBi page with its heads", "alibi", kept, left))
    elif mp.table is not None:
        size = mp.table.size - mp.table.offset
        params = {"seq_len": min(size, MAX_LEN), "dim": mp.table.dim}
        if mp.family == "sinusoidal":
            params.update(layout=mp.table.layout or "interleaved", base=10000.0)
            what = "the sinusoidal page with its table"
        else:
            what = "the sinusoidal page, whose section 5 sets a learned table beside the fixed one"
        kept, left = _fit(params, {"dim": PARAMS["dim"].max})
        out.append((what, "sinusoidal", kept, left))
    return out


def link_markdown(mp: ModelPositions) -> str:
    """A markdown list of links (they open in a new tab); numbers and fixed names only."""
    lines = []
    for what, path, params, left in page_links(mp):
        url = path + ("?" + urlencode(params) if params else "")
        note = f" ({'; '.join(left)}: it opens with its own default)" if left else ""
        lines.append(f"- [Open {what}]({url}){note}")
    return "\n".join(lines)

"""Links from a model to the scheme page that shows its encoding, with the model's numbers filled in.

Built from numbers and fixed names only, never from the config's text, as plain markdown links that
open a new page the way a shared link does (see the compare page's links). A value past what the
scheme page offers (BERT's 768-dimensional table on a page that draws at most 512) is left out, and
the link says so: the page then opens with its own default for it.
"""

from __future__ import annotations

from urllib.parse import urlencode

from posviz.encodings.model_rope import RopeSpec
from posviz.encodings.model_vision import ENCODER_OF, ENCODERS, PRESETS, VisionFacts
from posviz.encodings.models import ModelPositions
from posviz.encodings.rope_scaling import METHODS
from posviz.i18n import _
from posviz.ui.params import MAX_CURVE_LEN, MAX_LEN, PARAMS

Params = dict[str, str]
TRAINED_FALLBACK = 2048  # ALiBi link length when a config sets none (BLOOM trained at 2,048)
VISION_LIMITS = {"merge": 4, "tokens_per_second": 100}  # the largest values /vision's controls offer


def _number(x: float) -> str:
    return f"{x:.10g}"


def _fit(params: dict[str, float | int | str], limits: dict[str, int]) -> tuple[Params, list[str]]:
    """The parameters as link text, leaving out a number past its page's largest value (named in ``left``)."""
    kept, left = {}, []
    for key, value in params.items():
        if key in limits and isinstance(value, int | float) and value > limits[key]:
            left.append(
                _("{key} {value:,} is past the page's {limit:,}").format(key=key, value=value, limit=limits[key])
            )
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


def _differs(what: str, mine: object, page: object, preset: str) -> list[str]:
    said = _("{what} {mine} is not the page's {preset} preset ({page})")
    return [] if mine == page else [said.format(what=what, mine=mine, preset=preset, page=page)]


def vision_params(v: VisionFacts, text: RopeSpec | None) -> tuple[Params, list[str]]:
    """/vision with this model's encoder, merge size and M-RoPE preset (its own URL keys; the rest from presets).

    /vision draws a head's size and base from the preset it names: where this config's differ, ``left`` says so.
    """
    encoder = ENCODER_OF.get(v.encoder, v.encoder)
    params: dict = {"encoder": encoder, "merge": v.merge, "show_offsets": "true", "show_split": "true"}
    name, head = ENCODERS[encoder]
    left = _differs(_("the vision head_dim"), v.head_dim, head["head_dim"], name)
    left += _differs(_("the vision rope_theta"), f"{v.theta:,.10g}", f"{head['rope_theta']:,.10g}", name)
    preset = PRESETS.get(v.model_type)
    if v.mrope_section is not None and preset is not None:
        params["vl_model"] = v.model_type
        if v.tokens_per_second is not None and preset.seconds:
            params["tokens_per_second"] = v.tokens_per_second
        left += _differs("mrope_section", list(v.mrope_section), list(preset.mrope_section), preset.name)
        if text is not None:
            left += _differs(_("the text rope_theta"), f"{text.base:,.10g}", f"{preset.rope_theta:,.10g}", preset.name)
            left += _differs(_("the text head_dim"), text.rotary_dim, preset.head_dim, preset.name)
    kept, over = _fit(params, VISION_LIMITS)
    return kept, over + left


def page_links(mp: ModelPositions) -> list[tuple[str, str, Params, list[str]]]:
    """``(what it opens, url path, query params, what was left out)``, one per RoPE kind or one for the family,
    and one to /vision for a vision-language model."""
    out = []
    if mp.ropes:
        groups: dict[RopeSpec, list[str]] = {}
        for kind, spec in mp.ropes:
            groups.setdefault(spec, []).append(kind)
        for spec, kinds in groups.items():
            what = _("the RoPE page with its {kinds} layers' RoPE ({rope_type})").format(
                kinds=_(" and ").join(kinds), rope_type=spec.rope_type
            )
            if spec.rope_type not in METHODS:
                what += _("; {rope_type} is not on that page, so it opens the unscaled RoPE of the same base").format(
                    rope_type=spec.rope_type
                )
            params, left = rope_params(spec)
            out.append((what, "rope", params, left))
    elif mp.t5 is not None:
        t = mp.t5
        span = min(2 * t.max_distance, MAX_LEN)
        params = dict(num_buckets=t.num_buckets, max_distance=t.max_distance, heads=t.heads, bidirectional="true")
        kept, left = _fit({**params, "q_len": span, "k_len": span}, {"heads": PARAMS["heads"].max})
        out.append((_("the T5 page with its buckets, maximum distance and heads (the encoder)"), "t5", kept, left))
    elif mp.alibi is not None:
        seq_len = min(mp.max_position or TRAINED_FALLBACK, MAX_LEN)
        kept, left = _fit({"heads": mp.alibi.heads, "seq_len": seq_len, "causal": "true"}, {})
        out.append((_("the ALiBi page with its heads"), "alibi", kept, left))
    elif mp.table is not None:
        size = mp.table.size - mp.table.offset
        params = {"seq_len": min(size, MAX_LEN), "dim": mp.table.dim}
        if mp.family == "sinusoidal":
            params.update(layout=mp.table.layout or "interleaved", base=10000.0)
            what = _("the sinusoidal page with its table")
        else:
            what = _("the sinusoidal page, whose section 5 sets a learned table beside the fixed one")
        kept, left = _fit(params, {"dim": PARAMS["dim"].max})
        out.append((what, "sinusoidal", kept, left))
    if mp.vision is not None:
        what = (
            _("the vision page with its vision encoder, merge size and M-RoPE")
            if mp.vision.mrope_section
            else _("the vision page with its vision encoder, merge size")
        )
        out.append((what, "vision", *vision_params(mp.vision, mp.ropes[0][1] if mp.ropes else None)))
    return out


def link_markdown(mp: ModelPositions) -> str:
    """A markdown list of links (they open in a new tab); numbers and fixed names only."""
    lines = []
    for what, path, params, left in page_links(mp):
        url = path + ("?" + urlencode(params) if params else "")
        note = _(" ({left}: it opens with its own default)").format(left=_("; ").join(left)) if left else ""
        lines.append(_("- [Open {what}]({url}){note}").format(what=what, url=url, note=note))
    return "\n".join(lines)

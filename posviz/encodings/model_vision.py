"""A vision-language config's position facts: the language model's M-RoPE and the vision encoder's 2-D RoPE.

    v = vision_facts(built)   # built: the config object transformers' class made (model_hf.hf_config)
    v.mrope_section, v.interleaved, v.tokens_per_second   # the text side: how t, h, w share the pairs
    v.patch_size, v.merge, v.head_dim, v.theta            # the vision encoder: its 2-D RoPE

Read from transformers' configuration objects (the wrapper and its ``vision_config``); where the
modeling code decides instead (``mrope_section`` when the config sets none, Qwen3-VL's interleaving),
:data:`MROPE` holds the rule with the line of transformers' source that states it (a test checks it).
Also the published facts /vision draws for each model (:data:`PRESETS`, :data:`ENCODERS`).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

from posviz.encodings.multimodal import vision_head_dim, vision_model
from posviz.i18n import _


@dataclass(frozen=True)
class Preset:
    """The facts of a model's language side that /vision draws (from its published config.json)."""

    name: str
    head_dim: int
    mrope_section: tuple[int, int, int]
    interleaved: bool
    rope_theta: float
    seconds: bool  # time ids in seconds (tokens_per_second) rather than frame index


PRESETS = {
    "qwen2_vl": Preset("Qwen2-VL", 128, (16, 24, 24), False, 1_000_000.0, False),
    "qwen2_5_vl": Preset("Qwen2.5-VL", 128, (16, 24, 24), False, 1_000_000.0, True),
    "qwen3_vl": Preset("Qwen3-VL", 128, (24, 20, 20), True, 5_000_000.0, False),
}
# Vision encoders' heads, from each model's published vision config (head_dim, rope_theta).
ENCODERS = {
    "pixtral": ("Pixtral", {"head_dim": 64, "rope_theta": 10000.0}),
    "qwen2_vl": ("Qwen2-VL / 2.5-VL vision", {"head_dim": 80, "rope_theta": 10000.0}),
    "qwen3_vl": ("Qwen3-VL vision", {"head_dim": 72, "rope_theta": 10000.0}),
    "gemma4": ("Gemma 4 vision", {"head_dim": 64, "rope_theta": 100.0}),
}
ENCODER_OF = {"qwen2_5_vl": "qwen2_vl"}  # the vision models that share another's rotary module


@dataclass(frozen=True)
class MRopeRule:
    """How a model's text rotary module splits its pairs between t, h and w, where no config field says."""

    section: tuple[int, int, int]  # mrope_section when rope_parameters has none
    interleaved: bool
    source: str  # the line of modeling_<type>.py that states it


_BLOCKS = 'self.mrope_section = config.rope_parameters.get("mrope_section", [16, 24, 24])'
MROPE = {
    "qwen2_vl": MRopeRule((16, 24, 24), False, _BLOCKS),
    "qwen2_5_vl": MRopeRule((16, 24, 24), False, _BLOCKS),
    "qwen3_vl": MRopeRule(
        (24, 20, 20), True, 'self.mrope_section = config.rope_parameters.get("mrope_section", [24, 20, 20])'
    ),
}
MERGE_FIELDS = ("spatial_merge_size", "pooling_kernel_size")  # m x m patches become one token


@dataclass(frozen=True)
class VisionFacts:
    """Position facts of a vision-language model: M-RoPE (Qwen-VL) and the vision encoder's 2-D RoPE."""

    model_type: str  # the wrapper's (qwen2_5_vl, gemma4, mistral3, llava)
    encoder: str  # multimodal.VISION_MODELS key: pixtral, qwen2_vl, qwen2_5_vl, qwen3_vl, gemma4
    encoder_type: str  # the vision config's own model_type
    patch_size: int  # pixels per side of a patch
    merge: int  # m: m x m patches merge (or pool) into one token after the encoder; 1 when none
    merge_field: str  # where m comes from ("" when the model merges nothing)
    head_dim: int  # the vision head: half its pairs turn with the row, half with the column
    theta: float
    mrope_section: tuple[int, int, int] | None = None  # pairs for t, h, w (None: 1-D positions for text)
    section_from_config: bool = False  # rope_parameters.mrope_section, or the modeling code's default
    interleaved: bool = False
    tokens_per_second: float | None = None  # Qwen2.5-VL: time ids per second of video


def _whole(value: object, name: str, lo: int = 1, hi: int = 1 << 16) -> int:
    if isinstance(value, list | tuple) and value and all(v == value[0] for v in value):
        value = value[0]  # a square patch given as [p, p]
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not lo <= value <= hi:
        raise ValueError(
            _("{field} must be a whole number in [{lo}, {hi:,}], got {value}.").format(
                field=name, lo=lo, hi=hi, value=str(value)[:40]
            )
        )
    return int(value)


def _get(config: Any, name: str) -> Any:
    try:
        return getattr(config, name, None)
    except Exception:  # noqa: BLE001  a config that refuses a read has no such fact
        return None


def vision_facts(built: Any) -> VisionFacts | None:
    """The VL facts of a config transformers built, or None for a model without a RoPE vision encoder.

    Raises:
        ValueError: naming the field, for a vision config posviz cannot read (a bad patch or merge size).
    """
    vision = _get(built, "vision_config")
    try:
        encoder = vision_model(_get(vision, "model_type") or "")
    except ValueError:
        return None  # no vision config, or an encoder without 2-D RoPE (CLIP, SigLIP)
    head_dim, theta = vision_head_dim(encoder, vision)
    patch = _whole(_get(vision, "patch_size"), "vision_config.patch_size")
    merge, merge_field = 1, ""
    for where, config in (("vision_config.", vision), ("", built)):
        for name in MERGE_FIELDS:
            if _get(config, name) is not None:
                merge, merge_field = _whole(_get(config, name), where + name, hi=64), where + name
                break
        if merge_field:
            break
    model_type = str(_get(built, "model_type") or "")
    rule = MROPE.get(model_type)
    section, from_config, tokens = None, False, None
    if rule is not None:
        text = built.get_text_config(decoder=True)
        params = _get(text, "rope_parameters") or {}
        given = params.get("mrope_section") if isinstance(params, dict) else None
        from_config = given is not None
        raw = given if from_config else rule.section
        if not isinstance(raw, list | tuple) or len(raw) != 3:
            raise ValueError(
                _("rope_parameters.mrope_section must list three pair counts (t, h, w), got {value}.").format(
                    value=f"{raw!r:.40}"
                )
            )
        section = tuple(_whole(v, "rope_parameters.mrope_section", lo=0, hi=4096) for v in raw)
        per_second = _get(vision, "tokens_per_second")
        if per_second is not None:
            tokens = float(_whole(per_second, "vision_config.tokens_per_second", hi=10**6))
    return VisionFacts(model_type, encoder, str(_get(vision, "model_type")), patch, merge, merge_field, head_dim,
                       theta, section, from_config, rule.interleaved if rule else False, tokens)  # fmt: skip

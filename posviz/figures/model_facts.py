"""A real model's facts as tables: its position facts, and a vision-language model's M-RoPE and encoder.

Every value is text (numbers formatted here), so a table of mixed facts renders as written. Each function
takes what identifies the model (``slug`` and ``upload``, as in :mod:`posviz.figures.model_layers`).
"""

from __future__ import annotations

import pandas as pd

from posviz.encodings.model_bias import last_exact_distance
from posviz.encodings.model_load import read_model
from posviz.encodings.model_vision import VisionFacts
from posviz.encodings.models import ModelPositions
from posviz.i18n import _


def _frame(rows: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame({_("fact"): list(rows), _("value"): list(rows.values())})


def _family_rows(mp: ModelPositions) -> dict[str, str]:
    if mp.t5 is not None:
        t = mp.t5
        return {
            _("relative buckets"): _("{buckets} ({half} per direction in the encoder)").format(
                buckets=t.num_buckets, half=t.num_buckets // 2
            ),
            _("exact distances (encoder)"): _("0 to {last}").format(last=last_exact_distance(t.num_buckets)),
            "max_distance": _("{max_distance:,}: every distance from here on shares the last bucket").format(
                max_distance=t.max_distance
            ),
            _("bias table"): _("{buckets} buckets × {heads} heads, ").format(buckets=t.num_buckets, heads=t.heads)
            + (_("one per layer") if t.per_layer_bias else _("learned in the first layer, shared by all")),
        }
    if mp.alibi is not None:
        return {
            _("slopes"): _("{heads} heads, fixed, 2^(−8h/n) (interleaved when n is not a power of two)").format(
                heads=mp.alibi.heads
            ),
            "alibi_bias_max": f"{mp.alibi.bias_max:g}",
        }
    if mp.table is not None:
        t = mp.table
        rows = {_("position table"): _("{rows:,} rows × {dim:,}").format(rows=t.size, dim=t.dim)}
        if t.offset:
            rows[_("rows before position 0")] = str(t.offset)
        if t.layout:
            rows[_("layout")] = _("[sin | cos] halves") if t.layout == "concat" else _("interleaved sin/cos pairs")
        rows[_("past the table")] = _("position {position:,} has no row: the input must be shorter").format(
            position=t.size - t.offset
        )
        return rows
    return {}


def model_facts(*, slug: str, upload: bytes | None = None, checkpoint: str = "") -> pd.DataFrame:
    """One model's position facts, as a two-column table; ``checkpoint`` names it ("" for an unnamed upload)."""
    mp = read_model(slug, upload)
    stacks = [x.stack for x in mp.layers]
    depth = f"{mp.num_layers}"
    if "encoder" in stacks and "decoder" in stacks:
        depth += _(" ({encoder} encoder + {decoder} decoder)").format(
            encoder=stacks.count("encoder"), decoder=stacks.count("decoder")
        )
    rows = {_("checkpoint"): checkpoint or _("uploaded config.json"), "model_type": mp.model_type or _("(none)")}
    rows |= {_("position family"): mp.family, _("layers"): depth, _("attention heads"): f"{mp.heads:,}"}
    tokens = _("{tokens:,} tokens")
    no_limit = _("no limit in the config")
    rows[_("longest input")] = tokens.format(tokens=mp.max_position) if mp.max_position else no_limit
    if mp.ropes:
        if mp.max_position is None:  # recurrent_gemma: RoPE, and no context limit at all
            rows[_("trained context")] = rows[_("extended context")] = no_limit
        else:
            trained = tokens.format(tokens=mp.trained_context) if mp.trained_context else _("not stated (linear)")
            rows[_("trained context")] = trained
            rows[_("extended context")] = tokens.format(tokens=mp.extended_context)
    return _frame(rows | _family_rows(mp))


def _vision_rows(v: VisionFacts) -> dict[str, str]:
    rows = {}
    if v.mrope_section is not None:
        t, h, w = v.mrope_section
        where = "rope_parameters" if v.section_from_config else _("not in the config: the modeling code's default")
        rows[_("M-RoPE mrope_section (t, h, w pairs)")] = f"[{t}, {h}, {w}] ({where})"
        rows[_("t, h, w across the pairs")] = (
            _("interleaved t h w t h w …: every axis gets fast and slow pairs")
            if v.interleaved
            else _("in blocks: t the fastest {t} pairs, h the next {h}, w the slowest {w}").format(t=t, h=h, w=w)
        )
        if v.tokens_per_second is not None:
            rows["tokens_per_second"] = _("{rate:g} time ids per second of video (vision_config)").format(
                rate=v.tokens_per_second
            )
    else:
        rows["M-RoPE"] = _("none: the language model gives every token, image tokens too, one position (1-D RoPE)")
    rows[_("vision encoder")] = _("{encoder}: 2-D RoPE over the patch grid").format(encoder=v.encoder_type)
    rows[_("patch size")] = _("{size} × {size} pixels").format(size=v.patch_size)
    merge = (
        _("{merge} × {merge} patches per token ({field})").format(merge=v.merge, field=v.merge_field)
        if v.merge_field
        else _("none: a token per patch")
    )
    rows[_("merge size")] = merge
    quarter = v.head_dim // 4
    rows[_("vision head dim")] = _("{dim}: {quarter} pairs turn with the row, {quarter} with the column").format(
        dim=v.head_dim, quarter=quarter
    )
    rows[_("vision rope_theta")] = f"{v.theta:,.10g}"
    return rows


def vision_table(*, slug: str, upload: bytes | None = None) -> pd.DataFrame | None:
    """A vision-language model's M-RoPE and vision-encoder facts (None for a text-only model)."""
    mp = read_model(slug, upload)
    return None if mp.vision is None else _frame(_vision_rows(mp.vision))

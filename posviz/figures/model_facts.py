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


def _frame(rows: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame({"fact": list(rows), "value": list(rows.values())})


def _family_rows(mp: ModelPositions) -> dict[str, str]:
    if mp.t5 is not None:
        t = mp.t5
        return {
            "relative buckets": f"{t.num_buckets} ({t.num_buckets // 2} per direction in the encoder)",
            "exact distances (encoder)": f"0 to {last_exact_distance(t.num_buckets)}",
            "max_distance": f"{t.max_distance:,}: every distance from here on shares the last bucket",
            "bias table": f"{t.num_buckets} buckets × {t.heads} heads, "
            + ("one per layer" if t.per_layer_bias else "learned in the first layer, shared by all"),
        }
    if mp.alibi is not None:
        return {
            "slopes": f"{mp.alibi.heads} heads, fixed, 2^(−8h/n) (interleaved when n is not a power of two)",
            "alibi_bias_max": f"{mp.alibi.bias_max:g}",
        }
    if mp.table is not None:
        t = mp.table
        rows = {"position table": f"{t.size:,} rows × {t.dim:,}"}
        if t.offset:
            rows["rows before position 0"] = str(t.offset)
        if t.layout:
            rows["layout"] = "[sin | cos] halves" if t.layout == "concat" else "interleaved sin/cos pairs"
        rows["past the table"] = f"position {t.size - t.offset:,} has no row: the input must be shorter"
        return rows
    return {}


def model_facts(*, slug: str, upload: bytes | None = None, checkpoint: str = "") -> pd.DataFrame:
    """One model's position facts, as a two-column table; ``checkpoint`` names it ("" for an unnamed upload)."""
    mp = read_model(slug, upload)
    stacks = [x.stack for x in mp.layers]
    depth = f"{mp.num_layers}"
    if "encoder" in stacks and "decoder" in stacks:
        depth += f" ({stacks.count('encoder')} encoder + {stacks.count('decoder')} decoder)"
    rows = {"checkpoint": checkpoint or "uploaded config.json", "model_type": mp.model_type or "(none)"}
    rows |= {"position family": mp.family, "layers": depth, "attention heads": f"{mp.heads:,}"}
    rows["longest input"] = f"{mp.max_position:,} tokens" if mp.max_position else "no limit in the config"
    if mp.ropes:
        if mp.max_position is None:  # recurrent_gemma: RoPE, and no context limit at all
            rows["trained context"] = rows["extended context"] = "no limit in the config"
        else:
            rows["trained context"] = f"{mp.trained_context:,} tokens" if mp.trained_context else "not stated (linear)"
            rows["extended context"] = f"{mp.extended_context:,} tokens"
    return _frame(rows | _family_rows(mp))


def _vision_rows(v: VisionFacts) -> dict[str, str]:
    rows = {}
    if v.mrope_section is not None:
        t, h, w = v.mrope_section
        where = "rope_parameters" if v.section_from_config else "not in the config: the modeling code's default"
        rows["M-RoPE mrope_section (t, h, w pairs)"] = f"[{t}, {h}, {w}] ({where})"
        rows["t, h, w across the pairs"] = (
            "interleaved t h w t h w …: every axis gets fast and slow pairs"
            if v.interleaved
            else f"in blocks: t the fastest {t} pairs, h the next {h}, w the slowest {w}"
        )
        if v.tokens_per_second is not None:
            rows["tokens_per_second"] = f"{v.tokens_per_second:g} time ids per second of video (vision_config)"
    else:
        rows["M-RoPE"] = "none: the language model gives every token, image tokens too, one position (1-D RoPE)"
    rows["vision encoder"] = f"{v.encoder_type}: 2-D RoPE over the patch grid"
    rows["patch size"] = f"{v.patch_size} × {v.patch_size} pixels"
    merge = f"{v.merge} × {v.merge} patches per token ({v.merge_field})" if v.merge_field else "none: a token per patch"
    rows["merge size"] = merge
    quarter = v.head_dim // 4
    rows["vision head dim"] = f"{v.head_dim}: {quarter} pairs turn with the row, {quarter} with the column"
    rows["vision rope_theta"] = f"{v.theta:,.10g}"
    return rows


def vision_table(*, slug: str, upload: bytes | None = None) -> pd.DataFrame | None:
    """A vision-language model's M-RoPE and vision-encoder facts (None for a text-only model)."""
    mp = read_model(slug, upload)
    return None if mp.vision is None else _frame(_vision_rows(mp.vision))

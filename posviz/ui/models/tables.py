"""The models page's fact tables: one per model, and one per model's RoPE (a column per attention kind).

Every value is text (numbers formatted here), so a table of mixed facts renders as written.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from posviz.encodings.model_vision import VisionFacts
from posviz.encodings.models import ModelPositions
from posviz.encodings.t5 import t5_max_exact
from posviz.ui.cache import cached_view
from posviz.ui.models.settings import RopeKey
from posviz.ui.models.views import RopeGroup, load, rope_view


def ranges(indices: np.ndarray) -> str:
    """``[3, 4, 5, 9]`` -> ``"3–5, 9"``: runs of consecutive pair indices."""
    out, run = [], []
    for i in (int(x) for x in indices):
        if run and i != run[-1] + 1:
            out.append(f"{run[0]}–{run[-1]}" if len(run) > 1 else str(run[0]))
            run = []
        run.append(i)
    if run:
        out.append(f"{run[0]}–{run[-1]}" if len(run) > 1 else str(run[0]))
    return ", ".join(out)


def _frame(rows: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame({"fact": list(rows), "value": list(rows.values())})


def _family_rows(mp: ModelPositions) -> dict[str, str]:
    if mp.t5 is not None:
        t = mp.t5
        return {
            "relative buckets": f"{t.num_buckets} ({t.num_buckets // 2} per direction in the encoder)",
            "exact distances (encoder)": f"0 to {t5_max_exact(t.num_buckets, bidirectional=True) - 1}",
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


@cached_view(max_entries=64)
def model_facts(slug: str, upload: bytes | None = None) -> pd.DataFrame:
    """One model's position facts, as a two-column table."""
    m = load(slug, upload)
    mp = m.mp
    stacks = [x.stack for x in mp.layers]
    depth = f"{mp.num_layers}"
    if "encoder" in stacks and "decoder" in stacks:
        depth += f" ({stacks.count('encoder')} encoder + {stacks.count('decoder')} decoder)"
    rows = {"checkpoint": m.model_id or "uploaded config.json", "model_type": mp.model_type or "(none)"}
    rows |= {"position family": mp.family, "layers": depth, "attention heads": f"{mp.heads:,}"}
    rows["longest input"] = f"{mp.max_position:,} tokens" if mp.max_position else "no limit in the config"
    if mp.ropes:
        if mp.max_position is None:  # recurrent_gemma: RoPE, and no context limit at all
            rows["trained context"] = rows["extended context"] = "no limit in the config"
        else:
            rows["trained context"] = f"{mp.trained_context:,} tokens" if mp.trained_context else "not stated (linear)"
            rows["extended context"] = f"{mp.extended_context:,} tokens"
    return _frame(rows | _family_rows(mp))


def _group_column(g: RopeGroup, seq_len: int | None) -> dict[str, str]:
    s = g.spec
    at = f"at {seq_len:,} tokens" if seq_len else "(any length)"
    col = {
        "layers": str(g.layers),
        "base (rope_theta)": f"{s.base:,.10g}",
        "head dim → rotary dims": f"{s.head_dim} → {2 * s.turning_pairs} ({s.turning_pairs} pairs turn)",
        "pairs": "interleaved (x[2k], x[2k+1])" if s.layout == "interleaved" else "halves (x[k], x[k + d/2])",
        "scaling (rope_type)": s.rope_type,
        "factor": f"{s.factor:g}",
        "trained context": f"{s.trained_context:,}" if s.trained_context else "not stated",
        "extended context": f"{s.extended_context:,}",
    }
    for key, value in s.options:
        if isinstance(value, tuple):
            col[key] = f"{len(value)} factors, {min(value):.3g} to {max(value):.3g}"
        elif isinstance(value, bool):
            col[key] = "true" if value else "false"
        elif value is not None:
            col[key] = f"{value:g}" if isinstance(value, float) else str(value)
    col[f"attention factor {at}"] = f"{g.attention_factor:.6g}"
    if s.softmax_scale_factor != 1.0:
        col["softmax scale × (MLA)"] = f"{s.softmax_scale_factor:.6g}"
    never = f"{len(g.never)} of {len(g.inv_freq)}"
    col["pairs that never complete a turn"] = never + (f": k = {ranges(g.never)}" if len(g.never) else "")
    return col


@cached_view(max_entries=64)
def rope_facts(k: RopeKey, upload: bytes | None = None) -> pd.DataFrame:
    """The RoPE of each attention kind: a row per fact, a column per distinct RoPE."""
    columns = {g.label: _group_column(g, k.seq_len) for g in rope_view(k, upload)}
    facts = list(dict.fromkeys(f for col in columns.values() for f in col))
    data = {"fact": facts} | {label: [col.get(f, "—") for f in facts] for label, col in columns.items()}
    return pd.DataFrame(data)


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


@cached_view(max_entries=64)
def vision_table(slug: str, upload: bytes | None = None) -> pd.DataFrame | None:
    """A vision-language model's M-RoPE and vision-encoder facts (None for a text-only model)."""
    mp = load(slug, upload).mp
    return None if mp is None or mp.vision is None else _frame(_vision_rows(mp.vision))

"""Code that rebuilds the models page's figures with posviz's public API (a test runs every snippet).

Plain text generation from a shipped slug (or, for an upload, a ``config.json`` next to the code) and
numbers; never the config's own text.
"""

from __future__ import annotations

MODELS_PARTS = ("strip", "rope", "masks", "reach", "t5", "alibi")


def _load(slug: str) -> list[str]:
    if "/" in slug:  # a Hub id, validated by posviz.hub (letters, digits, . _ - / @ only)
        return [
            "from posviz.encodings.models import model_positions, read_config",
            "from posviz.hub import fetch_config, parse_model_ref",
            "",
            f'config = fetch_config(parse_model_ref("{slug}"))  # its config.json, from the Hub',
            "mp = model_positions(read_config(config))",
        ]
    if slug:
        return [
            "from posviz.encodings.models import model_positions, shipped_models",
            "",
            f'mp = model_positions(shipped_models()["{slug}"])  # the config.json shipped with posviz',
        ]
    return [
        "import json",
        "",
        "from posviz.encodings.models import model_positions, read_config",
        "",
        'with open("config.json", "rb") as f:  # the file you uploaded',
        "    mp = model_positions(read_config(f.read()))",
    ]


def models_snippet(
    slug: str, *, part: str, kind: str = "full", seq_len: int | None = None, position: int = 0, layers: int = 1
) -> str:
    """Code for one figure.

    Args:
        slug: the shipped model ("" for an uploaded config.json, a Hub id for a model read from the Hub).
        part: ``"strip"`` (``layers``: one Layer each), ``"rope"`` (``inv_freq``, ``default``, ``wavelength``:
            (pairs,)), ``"masks"`` (``masks``: (kinds, keys) bool over ``k_pos``), ``"reach"`` (``reach``:
            (layers + 1,) tokens back), ``"t5"`` (``bucket``: per ``r``) or ``"alibi"`` (``slopes``: (heads,)).
        kind: the attention kind of the RoPE figures.
        seq_len: the sequence length the RoPE figures are for (dynamic NTK and LongRoPE read it).
        position, layers: the token drawn and the layers passed.
    """
    if part not in MODELS_PARTS:
        raise ValueError(f"part must be one of {MODELS_PARTS}; got {part!r}")
    lines = ["import math", "", "import torch", "", *_load(slug)]
    if part == "strip":
        lines.append("layers = [(x.attention, x.window, x.rope) for x in mp.layers]  # one per layer, first to last")
    elif part == "rope":
        lines += [
            f'inv_freq, attention_factor = mp.rope("{kind}", seq_len={seq_len})  # (rotary_dim // 2,) radians/token',
            f'spec = mp.rope_spec("{kind}")',
            "default = spec.default_inv_freq()  # the unscaled RoPE of the same base",
            "wavelength = 2 * math.pi / inv_freq  # tokens per turn of each pair",
            "never = (wavelength > spec.extended_context).nonzero().flatten()  # pairs that never complete a turn",
        ]
    elif part == "masks":
        lines += [
            "from posviz.encodings.model_layers import attention_mask",
            "from posviz.encodings.positions import display_positions",
            "",
            f"position = {position}",
            "k_pos = display_positions(position + 1, 400)  # a strided sample of the keys 0 .. position",
            "order = ('full', 'sliding', 'chunked')",
            "kinds = {(x.attention, x.window, x.causal) for x in mp.layers}  # one mask row per distinct kind",
            "kinds = sorted(kinds, key=lambda a: (order.index(a[0]), a[1] or 0, not a[2]))",
            "q = torch.tensor([position])",
            "masks = torch.stack([attention_mask(a, w, q, k_pos)[0] for a, w, _ in kinds])  # (kinds, keys) bool",
        ]
    elif part == "reach":
        lines += [
            "from posviz.encodings.model_layers import reach_curve",
            "",
            f"reach = reach_curve(mp.layers[:{layers}], {position})  # tokens back after 0 .. {layers} layers",
        ]
    elif part == "t5":
        lines += [
            "from posviz.encodings.t5 import t5_bucket",
            "",
            "t = mp.t5",
            "r = torch.arange(-2 * t.max_distance, 2 * t.max_distance + 1)  # relative positions j - i",
            "bucket = t5_bucket(r, bidirectional=True, num_buckets=t.num_buckets, max_distance=t.max_distance)",
        ]
    else:
        lines += [
            "from posviz.encodings.alibi import alibi_slopes",
            "",
            "slopes = alibi_slopes(mp.alibi.heads)  # (heads,): 2^(-8h/n) for n a power of two",
        ]
    return "\n".join(lines) + "\n"

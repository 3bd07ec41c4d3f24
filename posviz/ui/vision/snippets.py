"""PyTorch code that reproduces each of the /vision page's figures, with the page's values filled in.

Plain text generation (no streamlit). The code is written out as transformers 5.23 computes it
(``get_rope_index``, ``recomposition_frequencies``, each vision rotary module), with torch only;
a test executes every snippet and compares its tensors with the page's.
"""

from __future__ import annotations

from posviz.encodings.model_vision import ENCODERS, PRESETS
from posviz.encodings.multimodal_pairs import other_patch
from posviz.encodings.multimodal_prompt import STAMP_TOKENS, TEMPORAL_PATCH, seconds_per_grid
from posviz.encodings.v2pe import TOKENS_PER_TILE
from posviz.encodings.video_rope import VIDEO_MODELS
from posviz.figures.v2pe import MAX_TILES
from posviz.figures.v2pe import RUNS as V2PE_RUNS
from posviz.ui.vision.settings import VisionSettings


def sequence_lines(k: VisionSettings) -> str:
    """The sequence as token types and grids (the processor's mm_token_type_ids, image/video_grid_thw)."""
    lines = [
        f"m = {k.merge}  # spatial_merge_size: m x m patches make one token",
        f"image = (1, {k.image_rows} * m, {k.image_cols} * m)  # image_grid_thw: (t, h, w) in patches",
        f"types = [0] * {k.text_before} + [1] * {k.image_rows * k.image_cols} + [0] * {k.text_mid}"
        "  # 0 text, 1 image, 2 video",
    ]
    if k.video:
        lines.append(f"video = ({k.frames}, {k.video_rows} * m, {k.video_cols} * m)  # video_grid_thw")
        per_frame = k.video_rows * k.video_cols
        if k.vl_model == "qwen3_vl":
            lines.append(f"for f in range({k.frames}):  # Qwen3-VL: a timestamp, then one run per frame")
            lines.append(f"    types += [0] * ({STAMP_TOKENS} if f else 0) + [2] * {per_frame}")
            lines.append("grids = [(1, image[1], image[2])] + [(1, video[1], video[2])] * video[0]")
        else:
            lines.append(f"types += [2] * {k.frames * per_frame}")
            lines.append("grids = [image, video]")
    else:
        lines.append("grids = [image]")
    lines.append(f"types += [0] * {k.text_after}")
    return "\n".join(lines)


def ids_snippet(k: VisionSettings) -> str:
    """get_rope_index for one sequence, both resume rules."""
    interval = "1.0"
    if k.video and PRESETS[k.vl_model].seconds:
        interval = (
            f"{k.tokens_per_second} * torch.tensor({seconds_per_grid(k.fps)!r}, dtype=torch.float32)"
            f" if kind == 2 else 1  # tokens_per_second x second_per_grid_t ({TEMPORAL_PATCH} frames / {k.fps:g} fps)"
        )
    return f'''\
import itertools
import torch

{sequence_lines(k)}


def rope_index(types, grids, m, original=False):
    """{PRESETS[k.vl_model].name}'s get_rope_index (transformers 5.23) for one sequence: (3, seq) ids."""
    blocks, start, grids = [], 0, iter(grids)
    for kind, run in itertools.groupby(types):
        n = len(list(run))
        if original and blocks:  # the original Qwen code: every block at the largest id so far + 1
            start = int(blocks[-1].max()) + 1
        if kind == 0:  # text: the same id on t, h and w
            blocks.append(torch.arange(n).expand(3, -1) + start)
            start += n
            continue
        t, h, w = next(grids)
        interval = {interval}
        tt = (torch.arange(t) * interval).long() + start  # (t,) frame ids
        hh, ww = torch.arange(h // m) + start, torch.arange(w // m) + start
        ids = torch.stack(torch.meshgrid(tt, hh, ww, indexing="ij")).reshape(3, -1)  # (3, t*h*w/m^2)
        blocks.append(ids)
        start += max(h, w) // m  # transformers 5.23: text resumes at start + the larger side
    return torch.cat(blocks, dim=1)  # (3, seq): temporal, height, width


ids = rope_index(types, grids, m)
ids_original = rope_index(types, grids, m, original=True)
print(ids)
'''


def pairs_snippet(vl_model: str) -> str:
    p = PRESETS[vl_model]
    return f"""\
import torch

head_dim, rope_theta, mrope_section = {p.head_dim}, {p.rope_theta!r}, {list(p.mrope_section)}
inv_freq = 1.0 / rope_theta ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)  # (64,)
wavelength = 2 * torch.pi / inv_freq  # tokens per turn of each pair

# Qwen2-VL / Qwen2.5-VL (recomposition_frequencies): pairs in blocks t | h | w
blocks = torch.repeat_interleave(torch.arange(3), torch.tensor(mrope_section))  # 0 t, 1 h, 2 w
# Qwen3-VL: interleaved; pair k takes h if k % 3 == 1, w if k % 3 == 2 (below 3 * section), else t
interleaved = torch.zeros(head_dim // 2, dtype=torch.long)
interleaved[1 : 3 * mrope_section[1] : 3] = 1
interleaved[2 : 3 * mrope_section[2] : 3] = 2
for name, axes in (("blocks", blocks), ("interleaved", interleaved)):
    for a, axis in enumerate("thw"):
        w = wavelength[axes == a]
        print(name, axis, len(w), "pairs, wavelengths", float(w.min()), "to", float(w.max()))
"""


_VISION_FREQ = {
    "pixtral": """\
inv = 1.0 / theta ** (torch.arange(0, head_dim, 2).float() / head_dim)  # (head_dim/2,): one table
inv_freq = torch.cat([inv[0::2], inv[1::2]])  # PixtralVisionRotaryEmbedding: rows even, columns odd
axis = torch.arange(2).repeat_interleave(head_dim // 4)  # 0 row, 1 column""",
    "qwen2_vl": """\
inv = 1.0 / theta ** (torch.arange(0, head_dim // 2, 2).float() / (head_dim // 2))  # (head_dim/4,)
inv_freq = torch.cat([inv, inv])  # Qwen2VLVisionRotaryEmbedding: the same frequencies for rows, then columns
axis = torch.arange(2).repeat_interleave(head_dim // 4)  # 0 row, 1 column""",
    "gemma4": """\
inv = 1.0 / theta ** (torch.arange(0, head_dim // 2, 2).float() / (head_dim // 2))  # (head_dim/4,)
inv_freq = torch.cat([inv, inv])  # Gemma4VisionRotaryEmbedding: the same frequencies, columns first
axis = 1 - torch.arange(2).repeat_interleave(head_dim // 4)  # 1 column, then 0 row""",
}
_VISION_FREQ["qwen3_vl"] = _VISION_FREQ["qwen2_vl"].replace("Qwen2VL", "Qwen3VL")
_PAIR_DIMS = {
    "gemma4": """\
q4 = head_dim // 4  # apply_multidimensional_rope: rotate_half within each half of the head
k = torch.arange(head_dim // 2)
first = torch.where(k < q4, k, head_dim // 2 + k - q4)
pair_dims = torch.stack([first, first + q4], dim=1)  # (head_dim/2, 2) channels of each pair""",
}
_HALF = """\
k = torch.arange(head_dim // 2)
pair_dims = torch.stack([k, k + head_dim // 2], dim=1)  # rotate_half: pair k is (k, k + head_dim/2)"""


def offsets_snippet(k: VisionSettings) -> str:
    cfg = ENCODERS[k.encoder][1]
    h, w = k.image_rows * k.merge, k.image_cols * k.merge
    return f'''\
import torch

head_dim, theta = {cfg["head_dim"]}, {cfg["rope_theta"]!r}  # {ENCODERS[k.encoder][0]}
H, W = {h}, {w}  # the image in patches
{_VISION_FREQ[k.encoder]}
rows, cols = torch.meshgrid(torch.arange(H), torch.arange(W), indexing="ij")
coords = torch.stack([rows.flatten(), cols.flatten()]).float()  # (2, H*W)
angles = coords[axis].T * inv_freq  # (H*W, head_dim/2), patches row-major
{_PAIR_DIMS.get(k.encoder, _HALF)}


def rope(x, angles):
    a, b = x[..., pair_dims[:, 0]], x[..., pair_dims[:, 1]]
    out = x.clone()
    out[..., pair_dims[:, 0]] = a * angles.cos() - b * angles.sin()
    out[..., pair_dims[:, 1]] = a * angles.sin() + b * angles.cos()
    return out


gen = torch.Generator().manual_seed({k.seed})
q = torch.randn(head_dim, generator=gen, dtype=torch.float64)
k = q  # the same vector as query and key


def by_offset(row, col):
    """Score of the query at (row, col) with the key at every patch, placed at (dh, dw)."""
    rq = rope(q[None], angles[row * W + col][None].double())[0]  # (head_dim,)
    scores = (rope(k.expand(H * W, -1), angles.double()) @ rq).reshape(H, W)
    out = torch.full((2 * H - 1, 2 * W - 1), float("nan"), dtype=torch.float64)
    out[H - 1 - row : 2 * H - 1 - row, W - 1 - col : 2 * W - 1 - col] = scores
    return out


chosen, other = by_offset({k.q_row}, {k.q_col}), by_offset{other_patch(h, w, k.q_row, k.q_col)}
both = ~(chosen.isnan() | other.isnan())
print("largest difference:", float((chosen - other)[both].abs().max()))  # float rounding only
'''


def split_snippet() -> str:
    parts = ["import torch\n", "splits = {}"]
    for key, (name, cfg) in ENCODERS.items():
        parts.append(f"\n# {name}\nhead_dim, theta = {cfg['head_dim']}, {cfg['rope_theta']!r}")
        parts.append(_VISION_FREQ[key])
        parts.append(f"splits[{name!r}] = (axis, 2 * torch.pi / inv_freq)  # row/column and patches per turn")
    parts.append("\nfor name, (axis, wavelength) in splits.items():\n    print(name, axis.tolist())")
    return "\n".join(parts) + "\n"


def time_snippet(k: VisionSettings) -> str:
    return f"""\
import torch

t = {k.frames if k.video else 1}  # temporal patches, {TEMPORAL_PATCH} frames each
second_per_grid_t = {TEMPORAL_PATCH} / {k.fps!r}  # seconds per temporal patch at {k.fps:g} fps
tokens_per_second = {k.tokens_per_second}

frame_ids = torch.arange(t)  # Qwen2-VL, Qwen3-VL: the frame index
interval = tokens_per_second * torch.tensor(second_per_grid_t, dtype=torch.float32)
second_ids = (torch.arange(t) * interval).long()  # Qwen2.5-VL: floor(seconds x tokens_per_second)
resume = max({k.video_rows}, {k.video_cols})  # 5.23: the next text starts at the video's start + this
print(frame_ids, second_ids, resume)
"""


def video_head_snippet(video_model: str, frames: int, height: int, width: int) -> str:
    """Each pair's angle for every patch of the latent, as diffusers' Wan / HunyuanVideo rotary modules."""
    m = VIDEO_MODELS[video_model]
    hunyuan = video_model == "hunyuan_video"
    text = "\n# HunyuanVideo: the text tokens after the video get cos 1, sin 0 (no rotation)" if hunyuan else ""
    rule = "" if hunyuan else "  (Wan: h = w = 2 (d // 6))"
    return f"""\
import torch

head_dim, theta = {m.head_dim}, {m.theta!r}  # {m.name}
dims = {list(m.dims)}  # components of the head for time, height, width{rule}
F, H, W = {frames}, {height}, {width}  # the latent in patches
# one frequency ladder per axis, restarted: theta ** (-2k / d_axis)
inv_freq = torch.cat([theta ** (-torch.arange(0, d, 2, dtype=torch.float64) / d) for d in dims])  # (head_dim/2,)
axis = torch.cat([torch.full((d // 2,), a) for a, d in enumerate(dims)])  # 0 time, 1 height, 2 width
f, h, w = torch.meshgrid(torch.arange(F), torch.arange(H), torch.arange(W), indexing="ij")
positions = torch.stack([f.flatten(), h.flatten(), w.flatten()], dim=-1).double()  # (F*H*W, 3), frame-major
angles = positions[:, axis] * inv_freq  # (F*H*W, head_dim/2)
cos = angles.cos().repeat_interleave(2, dim=-1)  # (F*H*W, head_dim): pairs (x[2k], x[2k+1]) interleaved
sin = angles.sin().repeat_interleave(2, dim=-1){text}
print(angles.shape, axis.bincount().tolist())
"""


def video_ladders_snippet(video_model: str) -> str:
    m = VIDEO_MODELS[video_model]
    q = PRESETS["qwen3_vl"]
    return f"""\
import torch

# {m.name}: one ladder per axis
dims, theta = {list(m.dims)}, {m.theta!r}
inv_freq = torch.cat([theta ** (-torch.arange(0, d, 2, dtype=torch.float64) / d) for d in dims])
video_axis = torch.cat([torch.full((d // 2,), a) for a, d in enumerate(dims)])  # 0 t, 1 h, 2 w
video_wavelength = 2 * torch.pi / inv_freq  # positions per turn

# {q.name}: one ladder over the whole head, interleaved t h w t h w ...
head_dim, rope_theta, mrope_section = {q.head_dim}, {q.rope_theta!r}, {list(q.mrope_section)}
inv_freq = 1.0 / rope_theta ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
qwen_axis = torch.zeros(head_dim // 2, dtype=torch.long)
qwen_axis[1 : 3 * mrope_section[1] : 3] = 1
qwen_axis[2 : 3 * mrope_section[2] : 3] = 2
qwen_wavelength = 2 * torch.pi / inv_freq
for name, axis in (("video", video_axis), ("qwen3_vl", qwen_axis)):
    print(name, axis.bincount().tolist())
"""


def v2pe_ids_snippet(stride: int) -> str:
    return f'''\
import math

import torch

stride = {stride}  # delta = stride / 256: a visual token's step (256 tokens per 448 x 448 tile)
delta = stride / {TOKENS_PER_TILE}
runs = {list(V2PE_RUNS)!r}


def position_ids(runs, delta):
    """V2PE (get_rope_pos_id): text +1, image tokens +delta, text after an image at ceil(last) + 1."""
    ids, last = [], -1.0
    for kind, count in runs:
        if kind == "text":
            start = math.ceil(last) + 1
            ids += [float(start + n) for n in range(count)]
        else:
            ids += [last + delta * (n + 1) for n in range(count)]
        last = ids[-1]
    return torch.tensor(ids, dtype=torch.float64)


v2pe = position_ids(runs, delta)
ordinary = position_ids(runs, 1.0)  # stride 256: the ordinary ids
print(v2pe[{V2PE_RUNS[0][1] - 1}:{V2PE_RUNS[0][1] + 3}], v2pe[-{V2PE_RUNS[2][1] + 1}:])
'''


def v2pe_context_snippet(stride: int) -> str:
    return f"""\
import torch

stride, tokens_per_tile = {stride}, {TOKENS_PER_TILE}
tiles = torch.arange(1, {MAX_TILES + 1})
tokens = tiles * tokens_per_tile
ordinary = tokens  # one position per token
v2pe = torch.ceil(tokens * stride / tokens_per_tile).long()  # the image's last position, rounded up
print(ordinary[-1].item(), v2pe[-1].item())
"""

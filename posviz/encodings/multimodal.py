"""RoPE for images and video: M-RoPE position ids, which pairs carry t/h/w, and 2-D vision RoPE.

As Hugging Face ``transformers`` 5.23 computes them (read from its code, tested equal to it):

- ``Qwen2VLModel.get_rope_index`` (and Qwen2.5-VL's, Qwen3-VL's): each token gets three
  ids (temporal, height, width). Text gets the same id on all three; a vision block of
  grid ``(t, h, w)`` patches, merged ``spatial_merge_size`` x ``spatial_merge_size``,
  gets ``start + (frame, row, column)``, and the next text resumes at
  ``start + max(h, w) / spatial_merge_size`` (the original Qwen code resumed at the
  largest id so far + 1; the two differ after a video whose time ids outrun its grid).
- ``Qwen2VLRotaryEmbedding.recomposition_frequencies``: pairs in three blocks
  (``mrope_section`` = [t, h, w]); ``Qwen3VLTextRotaryEmbedding``: interleaved t h w t h w ...
- ``PixtralVisionRotaryEmbedding``, ``Qwen2VLVisionRotaryEmbedding`` (2.5 and 3 share it),
  ``Gemma4VisionRotaryEmbedding``: a patch at (row, column) rotates half of a head's pairs
  by its row and half by its column.

Notation: ``t, h, w`` frames, rows, columns of a grid in patches (before merging);
``m`` the spatial merge size; ``seq`` tokens; ``n = rotary_dim / 2`` frequency pairs.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import torch

from posviz.i18n import _

MODELS = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl")  # the text models with M-RoPE ids
RESUMES = ("transformers", "original")  # where text resumes after a vision block
VISION_MODELS = ("pixtral", "qwen2_vl", "qwen2_5_vl", "qwen3_vl", "gemma4")
VISION_THETA = {"pixtral": 10000.0, "qwen2_vl": 10000.0, "qwen2_5_vl": 10000.0, "qwen3_vl": 10000.0, "gemma4": 100.0}
TEXT, IMAGE, VIDEO = 0, 1, 2  # transformers' mm_token_type_ids


def _whole(value: Any, name: str, *, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        raise ValueError(
            _("{name} must be a whole number of at least {least}, got {value!r}.").format(
                name=name, least=least, value=value
            )
        )
    return int(value)


def _grids(grids: Any, name: str, merge: int) -> list[tuple[int, int, int]]:
    """``grids`` as a list of (t, h, w), each h and w a multiple of the merge size."""
    rows = grids.tolist() if isinstance(grids, torch.Tensor) else list(grids)
    out = []
    for i, grid in enumerate(rows):
        if len(grid) != 3:
            raise ValueError(_("{name}[{i}] must be (t, h, w), got {grid!r}.").format(name=name, i=i, grid=grid))
        t, h, w = (_whole(v, f"{name}[{i}]", least=1) for v in grid)
        if h % merge or w % merge:
            raise ValueError(
                _(
                    "{name}[{i}] = {grid}: h and w must be multiples of spatial_merge_size={merge} "
                    "(the vision encoder merges m x m patches into one token)."
                ).format(name=name, i=i, grid=(t, h, w), merge=merge)
            )
        out.append((t, h, w))
    return out


def vision_block_ids(start: int, grid: tuple[int, int, int], merge: int, time_interval: Any = 1) -> torch.Tensor:
    """The ids of one vision block, as transformers' ``get_vision_position_ids``.

    Returns:
        (3, t * h/m * w/m) int64: ``start + floor(frame * time_interval)``, ``start + row``,
        ``start + column``, frame-major then row-major over the merged grid.
    """
    t, h, w = grid[0], grid[1] // merge, grid[2] // merge
    frames = (torch.arange(t) * time_interval).long()  # float32 product, truncated like transformers
    tt, hh, ww = torch.meshgrid(frames, torch.arange(h) + start, torch.arange(w) + start, indexing="ij")
    ids = torch.stack([tt, hh, ww]).reshape(3, -1)  # (3, t*h*w)
    ids[0] += start  # after the time scaling, as transformers does
    return ids


def token_types(*runs: tuple[int, int]) -> torch.Tensor:
    """A sequence's ``mm_token_type_ids`` from ``(type, count)`` runs: ``token_types((TEXT, 3), (VIDEO, 8))``.

    Returns:
        (seq,) int64.
    """
    return torch.cat(
        [torch.full((count,), kind, dtype=torch.int64) for kind, count in runs] or [torch.zeros(0, dtype=torch.int64)]
    )


def mrope_position_ids(
    token_types: torch.Tensor,
    image_grids: Sequence[Sequence[int]] | torch.Tensor = (),
    video_grids: Sequence[Sequence[int]] | torch.Tensor = (),
    *,
    model: str = "qwen2_vl",
    spatial_merge_size: int = 2,
    tokens_per_second: float = 2,
    seconds_per_grid: Sequence[float] | torch.Tensor = (),
    resume: str = "transformers",
) -> torch.Tensor:
    """M-RoPE ids of one sequence: transformers 5.23's ``get_rope_index`` for Qwen2-VL, Qwen2.5-VL, Qwen3-VL.

    Args:
        token_types: (seq,) integers, 0 text, 1 image, 2 video (transformers' ``mm_token_type_ids``).
            Each run of image (video) tokens is one image (video) of the grids, in order;
            Qwen3-VL takes one run per video frame (its processor puts a timestamp between frames).
        image_grids, video_grids: (t, h, w) per image / video in patches before merging
            (``image_grid_thw``, ``video_grid_thw``).
        model: ``"qwen2_vl"``, ``"qwen2_5_vl"`` or ``"qwen3_vl"``.
        spatial_merge_size: m; a run holds ``t * h/m * w/m`` tokens.
        tokens_per_second: Qwen2.5-VL only: a video's time id is ``floor(frame * seconds * tokens_per_second)``.
        seconds_per_grid: Qwen2.5-VL only: seconds per temporal patch of each video
            (``second_per_grid_ts``); empty means 1 for every video.
        resume: ``"transformers"`` (5.23: text resumes at a block's start + max(h, w)/m) or
            ``"original"`` (the original Qwen code: every block starts at the largest id so far + 1).

    Returns:
        (3, seq) int64: temporal, height, width ids.
    """
    if model not in MODELS:
        raise ValueError(_("model must be one of {models}, got {model!r}.").format(models=MODELS, model=model))
    if resume not in RESUMES:
        raise ValueError(_("resume must be one of {resumes}, got {resume!r}.").format(resumes=RESUMES, resume=resume))
    merge = _whole(spatial_merge_size, "spatial_merge_size", least=1)
    types = torch.as_tensor(token_types)
    if types.ndim != 1 or types.is_floating_point() or types.is_complex():
        raise ValueError(
            _("token_types must be a 1-D integer tensor, got shape {shape}, {dtype}.").format(
                shape=tuple(types.shape), dtype=types.dtype
            )
        )
    if types.numel() and not bool(((types >= 0) & (types <= 2)).all()):
        raise ValueError(_("token_types must hold only 0 (text), 1 (image) and 2 (video)."))
    images, videos = _grids(image_grids, "image_grids", merge), _grids(video_grids, "video_grids", merge)
    seconds = torch.as_tensor(seconds_per_grid, dtype=torch.float32).reshape(-1)
    if seconds.numel() and seconds.numel() != len(videos):
        raise ValueError(
            _("seconds_per_grid has {values} values for {videos} videos; give one per video.").format(
                values=seconds.numel(), videos=len(videos)
            )
        )
    if not bool(torch.isfinite(seconds).all()) or bool((seconds < 0).any()):
        raise ValueError(_("seconds_per_grid must be finite and not negative."))
    if isinstance(tokens_per_second, bool) or not isinstance(tokens_per_second, numbers.Real):
        raise ValueError(_("tokens_per_second must be a number, got {value!r}.").format(value=tokens_per_second))
    if not 0 <= tokens_per_second < 1e6:
        raise ValueError(
            _("tokens_per_second must be between 0 and 10^6, got {value!r}.").format(value=tokens_per_second)
        )

    # Qwen2.5-VL spaces a video's frames by seconds; the others (and every image) by 1.
    intervals: list[Any] = [1] * len(videos)
    if model == "qwen2_5_vl":
        per_video = seconds if seconds.numel() else torch.ones(len(videos), dtype=torch.float32)
        intervals = [tokens_per_second * s for s in per_video]  # 0-d float32, as transformers multiplies
    if model == "qwen3_vl":  # one grid per frame (timestamps separate them)
        videos = [(1, h, w) for t, h, w in videos for _frame in range(t)]
        intervals = [1] * len(videos)
    queues = {IMAGE: iter([(g, 1) for g in images]), VIDEO: iter(zip(videos, intervals, strict=True))}
    names = {IMAGE: "image_grids", VIDEO: "video_grids"}

    blocks: list[torch.Tensor] = []
    start = 0  # where the next block begins
    for kind, run in itertools.groupby(types.tolist()):
        length = len(list(run))
        if resume == "original" and blocks:
            start = int(blocks[-1].max()) + 1
        if kind == TEXT:
            blocks.append(torch.arange(length).expand(3, -1) + start)  # (3, length): same id on each axis
            start += length
            continue
        grid, interval = next(queues[kind], (None, None))
        if grid is None:
            raise ValueError(
                _("token_types has more {kind} runs than {grids} has grids.").format(
                    kind=names[kind][:-6], grids=names[kind]
                )
            )
        tokens = grid[0] * (grid[1] // merge) * (grid[2] // merge)
        if tokens != length:
            raise ValueError(
                _(
                    "token_types has a run of {length} {kind} tokens where {grids} grid {grid} "
                    "merged {merge} x {merge} gives {tokens}."
                ).format(length=length, kind=names[kind][:-6], grids=names[kind], grid=grid, merge=merge, tokens=tokens)
            )
        blocks.append(vision_block_ids(start, grid, merge, interval))
        start += max(grid[1], grid[2]) // merge
    for kind, queue in queues.items():
        if next(queue, None) is not None:
            raise ValueError(
                _("{grids} has more grids than token_types has {kind} runs.").format(
                    grids=names[kind], kind=names[kind][:-6]
                )
            )
    if not blocks:
        return torch.zeros(3, 0, dtype=torch.long)
    return torch.cat(blocks, dim=1)  # (3, seq)


def mrope_axes(rotary_dim: int, mrope_section: Sequence[int], *, interleaved: bool = False) -> torch.Tensor:
    """Which id (0 temporal, 1 height, 2 width) turns each frequency pair, as the Qwen-VL text rotary modules do.

    Blocks (Qwen2-VL, Qwen2.5-VL, ``recomposition_frequencies``): the first ``mrope_section[0]`` pairs
    take t, the next ``mrope_section[1]`` h, the last ``mrope_section[2]`` w, so t gets only the
    fastest frequencies and w only the slowest. Interleaved (Qwen3-VL): pair k takes h when
    ``k % 3 == 1 and k < 3 * mrope_section[1]``, w when ``k % 3 == 2 and k < 3 * mrope_section[2]``,
    else t, so every axis gets fast and slow frequencies.

    Returns:
        (rotary_dim // 2,) int64 in {0, 1, 2}.
    """
    dim = _whole(rotary_dim, "rotary_dim", least=2)
    if dim % 2:
        raise ValueError(_("rotary_dim must be even (RoPE turns pairs), got {dim}.").format(dim=dim))
    section = list(mrope_section)
    if len(section) != 3:
        raise ValueError(_("mrope_section must have three entries (t, h, w), got {section!r}.").format(section=section))
    section = [_whole(v, "mrope_section", least=0) for v in section]
    if sum(section) != dim // 2:
        raise ValueError(
            _("mrope_section {section} adds up to {total}, but rotary_dim {dim} has {pairs} pairs.").format(
                section=section, total=sum(section), dim=dim, pairs=dim // 2
            )
        )
    if not interleaved:
        return torch.repeat_interleave(torch.arange(3), torch.tensor(section))  # (n,)
    axes = torch.zeros(dim // 2, dtype=torch.long)  # t unless overwritten
    axes[1 : 3 * section[1] : 3] = 1
    axes[2 : 3 * section[2] : 3] = 2
    return axes


def _field(config: Any, *names: str) -> Any:
    for name in names:
        value = config.get(name) if isinstance(config, Mapping) else getattr(config, name, None)
        if value is not None:
            return value
    return None


def vision_model(model_type: str) -> str:
    """``model_type`` as one of VISION_MODELS (``"gemma4_vision"`` -> ``"gemma4"``)."""
    key = str(model_type).removesuffix("_vision").removesuffix("_vision_model")
    if key not in VISION_MODELS:
        raise ValueError(
            _("model_type must be one of {models}, got {model_type!r}.").format(
                models=VISION_MODELS, model_type=model_type
            )
        )
    return key


def vision_head_dim(model_type: str, config: Any) -> tuple[int, float]:
    """A vision encoder's head width and RoPE base, read as its rotary module reads them.

    ``config``: a vision config (transformers object or dict) with ``head_dim`` or
    ``hidden_size`` (Qwen2-VL: ``embed_dim``) and ``num_attention_heads`` (or ``num_heads``),
    and ``rope_parameters["rope_theta"]`` (or ``rope_theta``).
    """
    key = vision_model(model_type)
    dim = _field(config, "head_dim")
    if dim is None:
        width = _field(config, "embed_dim" if key == "qwen2_vl" else "hidden_size", "hidden_size")
        heads = _field(config, "num_attention_heads", "num_heads")
        if width is None or heads is None:
            raise ValueError(_("config needs head_dim, or hidden_size and num_attention_heads."))
        dim = _whole(width, "config hidden_size", least=1) // _whole(heads, "config num_attention_heads", least=1)
    dim = _whole(dim, "config head_dim", least=4)
    if dim % 4:
        raise ValueError(_("config head_dim must be a multiple of 4 (two axes of pairs), got {dim}.").format(dim=dim))
    rope = _field(config, "rope_parameters") or {}
    theta = rope.get("rope_theta") if isinstance(rope, Mapping) else None
    theta = theta if theta is not None else _field(config, "rope_theta")
    theta = VISION_THETA[key] if theta is None else theta
    if isinstance(theta, bool) or not isinstance(theta, numbers.Real) or not 1 < float(theta) < float("inf"):
        raise ValueError(_("config rope_theta must be a finite number above 1, got {theta!r}.").format(theta=theta))
    return dim, float(theta)


def vision_rope_frequencies(model_type: str, config: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """Which axis turns each pair of a vision head, and how fast, in the model's own pair order.

    Pixtral: one table of ``head_dim / 2`` frequencies; its even entries go to the row, its odd ones
    to the column. Qwen-VL vision: ``head_dim / 4`` frequencies (exponent over ``head_dim / 2``),
    the same for row then column. Gemma 4 vision: the same frequencies, column then row.

    Returns:
        axis (n,) int64, 0 row (height) and 1 column (width); inv_freq (n,) float32; ``n = head_dim / 2``.
    """
    key = vision_model(model_type)
    dim, theta = vision_head_dim(key, config)
    quarter = dim // 4
    if key == "pixtral":
        inv = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float) / dim))  # (dim/2,)
        inv_freq = torch.cat([inv[0::2], inv[1::2]])  # rows take the even, columns the odd
    else:
        spatial = dim // 2
        inv = 1.0 / (theta ** (torch.arange(0, spatial, 2, dtype=torch.float) / spatial))  # (dim/4,)
        inv_freq = torch.cat([inv, inv])
    axis = torch.arange(2).repeat_interleave(quarter)  # (dim/2,): first half one axis, second the other
    if key == "gemma4":
        axis = 1 - axis  # column first
    return axis, inv_freq


def vision_rope_angles(model_type: str, config: Any, height: int, width: int) -> torch.Tensor:
    """The rotation angle of every patch and pair of a vision encoder's 2-D RoPE.

    Args:
        model_type: ``"pixtral"``, ``"qwen2_vl"``, ``"qwen2_5_vl"``, ``"qwen3_vl"`` or ``"gemma4"``.
        config: the vision config (see :func:`vision_head_dim`).
        height, width: the grid in patches.

    Returns:
        (height * width, head_dim // 2) float32: ``row * inv_freq`` or ``column * inv_freq`` per
        pair, patches row-major, pairs in the order of the model's rotary module (pair ``k`` turns
        the channels :func:`vision_pair_dims` gives).
    """
    rows = _whole(height, "height", least=1)
    cols = _whole(width, "width", least=1)
    axis, inv_freq = vision_rope_frequencies(model_type, config)
    rr, cc = torch.meshgrid(torch.arange(rows), torch.arange(cols), indexing="ij")
    coords = torch.stack([rr.flatten(), cc.flatten()]).float()  # (2, h*w): row, column
    return coords[axis].T * inv_freq  # (h*w, n)


def vision_pair_dims(model_type: str, head_dim: int) -> torch.Tensor:
    """The two channels of a head that each pair turns, as the model's ``apply_rotary_pos_emb`` pairs them.

    Pixtral and Qwen-VL rotate the whole head with ``rotate_half``: pair k is (k, k + d/2).
    Gemma 4 splits the head in two and rotates each half with ``rotate_half``: pair k < d/4
    is (k, k + d/4), pair d/4 + k is (d/2 + k, d/2 + d/4 + k).

    Returns:
        (head_dim // 2, 2) int64 channel indices.
    """
    key = vision_model(model_type)
    dim = _whole(head_dim, "head_dim", least=4)
    if dim % 4:
        raise ValueError(_("head_dim must be a multiple of 4, got {dim}.").format(dim=dim))
    k = torch.arange(dim // 2)
    if key == "gemma4":
        quarter = dim // 4
        first = torch.where(k < quarter, k, dim // 2 + k - quarter)
        return torch.stack([first, first + quarter], dim=1)
    return torch.stack([k, k + dim // 2], dim=1)


def apply_vision_rope(x: torch.Tensor, angles: torch.Tensor, pair_dims: torch.Tensor) -> torch.Tensor:
    """Rotate each pair of channels of ``x`` by its angle.

    Args:
        x: (..., patches, head_dim).
        angles: (patches, head_dim // 2), from :func:`vision_rope_angles`.
        pair_dims: (head_dim // 2, 2), from :func:`vision_pair_dims`.

    Returns:
        (..., patches, head_dim), ``x``'s dtype: ``(a, b) -> (a cos - b sin, a sin + b cos)`` per pair.
    """
    if x.shape[-1] != 2 * angles.shape[-1] or x.shape[-2] != angles.shape[0]:
        raise ValueError(
            _("x {shape} does not match angles {angles}.").format(shape=tuple(x.shape), angles=tuple(angles.shape))
        )
    a, b = x[..., pair_dims[:, 0]], x[..., pair_dims[:, 1]]  # (..., patches, n) each
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    out = x.clone()
    out[..., pair_dims[:, 0]] = a * cos - b * sin
    out[..., pair_dims[:, 1]] = a * sin + b * cos
    return out


def vision_offset_scores(
    q: torch.Tensor,
    k: torch.Tensor,
    angles: torch.Tensor,
    pair_dims: torch.Tensor,
    *,
    height: int,
    width: int,
    row: int,
    col: int,
) -> torch.Tensor:
    """The score of one query patch against every key patch, arranged by offset (dh, dw).

    Args:
        q, k: (head_dim,) one query and one key vector (the same at every patch).
        angles: (height * width, head_dim // 2) from :func:`vision_rope_angles`.
        pair_dims: (head_dim // 2, 2) from :func:`vision_pair_dims`.
        row, col: the query patch.

    Returns:
        (2 * height - 1, 2 * width - 1) float64: entry ``[dh + height - 1, dw + width - 1]`` is
        ``rope(q, row, col) . rope(k, row + dh, col + dw)``; NaN where that key is off the grid.
    """
    if not (0 <= row < height and 0 <= col < width):
        raise ValueError(
            _("the query patch ({row}, {col}) is not on the {height} x {width} grid.").format(
                row=row, col=col, height=height, width=width
            )
        )
    patches = height * width
    rq = apply_vision_rope(q.double().expand(1, -1), angles[row * width + col][None].double(), pair_dims)  # (1, d)
    rk = apply_vision_rope(k.double().expand(patches, -1), angles.double(), pair_dims)  # (h*w, d)
    scores = (rk @ rq[0]).reshape(height, width)  # (h, w): keys on the grid
    out = torch.full((2 * height - 1, 2 * width - 1), float("nan"), dtype=torch.float64)
    out[height - 1 - row : 2 * height - 1 - row, width - 1 - col : 2 * width - 1 - col] = scores
    return out

"""3-D RoPE of video generators: one head shared by time, rows and columns.

A video's latent is cut into ``frames x height x width`` patches, numbered frame-major, then row, then
column. Each axis gets its own slice of the head and its own frequency ladder ``theta ** (-2k / d_axis)``
over that axis's 0-based position, pairs interleaved (``x[2k], x[2k + 1]``):

    Wan 2.1      d_h = d_w = 2 (d // 6), d_t = d - d_h - d_w (44, 42, 42 of 128), theta = 10000
    HunyuanVideo (16, 56, 56) of 128, theta = 256; the text tokens after the video are not rotated

Semantics follow diffusers' ``WanRotaryPosEmbed`` and ``HunyuanVideoRotaryPosEmbed`` (the tests' oracles),
after ``Wan-Video/Wan2.1`` ``rope_params`` / ``rope_apply`` and ``Tencent/HunyuanVideo`` ``posemb_layers.py``.

Notation: ``N = frames * height * width`` tokens; ``d`` the head dim; angles ``(N, d/2)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from posviz.i18n import _

AXES = ("time", "height", "width")


@dataclass(frozen=True)
class VideoRope:
    """How a model splits its head between the three axes."""

    name: str
    head_dim: int
    dims: tuple[int, int, int]  # components of the head per axis (t, h, w), each even
    theta: float


def wan_split(head_dim: int) -> tuple[int, int, int]:
    """Wan 2.1's split: ``h = w = 2 (d // 6)``, time takes the rest (44, 42, 42 of 128)."""
    if head_dim < 6 or head_dim % 2:
        raise ValueError(_("Wan's head dim must be even and at least 6, got {head_dim}.").format(head_dim=head_dim))
    hw = 2 * (head_dim // 6)
    return head_dim - 2 * hw, hw, hw


VIDEO_MODELS: dict[str, VideoRope] = {
    "wan2.1": VideoRope("Wan 2.1", 128, wan_split(128), 10000.0),
    "hunyuan_video": VideoRope("HunyuanVideo", 128, (16, 56, 56), 256.0),
}


def video_positions(frames: int, height: int, width: int) -> torch.Tensor:
    """Every patch's (frame, row, column), frame-major: (N, 3) int64."""
    for name, n in (("frames", frames), ("height", height), ("width", width)):
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(_("{name} must be a whole number of at least 1 patch, got {n!r}.").format(name=name, n=n))
    grid = torch.meshgrid(torch.arange(frames), torch.arange(height), torch.arange(width), indexing="ij")
    return torch.stack([g.reshape(-1) for g in grid], dim=-1)


def video_axis_of_pairs(dims: tuple[int, int, int]) -> torch.Tensor:
    """Which axis rotates each pair of the head: (d/2,) int64, 0 = time, 1 = height, 2 = width."""
    if any(d < 2 or d % 2 for d in dims):
        raise ValueError(_("each axis needs an even number of components, got {dims}.").format(dims=dims))
    return torch.cat([torch.full((d // 2,), a, dtype=torch.int64) for a, d in enumerate(dims)])


def video_inv_freq(dims: tuple[int, int, int], *, theta: float) -> torch.Tensor:
    """Each pair's frequency on its own axis's ladder, ``theta ** (-2k / d_axis)``: (d/2,) float64."""
    video_axis_of_pairs(dims)
    return torch.cat([theta ** (-torch.arange(0, d, 2, dtype=torch.float64) / d) for d in dims])


def video_rope_angles(positions: torch.Tensor, dims: tuple[int, int, int], *, theta: float) -> torch.Tensor:
    """Each token's angle for each pair: the pair's axis position times its frequency.

    Args:
        positions: (N, 3) (frame, row, column) of each token.

    Returns:
        (N, d/2) float64.
    """
    axis = video_axis_of_pairs(dims)
    return positions.to(torch.float64)[:, axis] * video_inv_freq(dims, theta=theta)[None, :]


def video_rope_cos_sin(positions: torch.Tensor, dims: tuple[int, int, int], *, theta: float):
    """``(cos, sin)`` per component, each pair's value repeated for its two components: (N, d) float64 each."""
    angles = video_rope_angles(positions, dims, theta=theta)
    return torch.cos(angles).repeat_interleave(2, dim=-1), torch.sin(angles).repeat_interleave(2, dim=-1)

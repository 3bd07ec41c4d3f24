"""Read a T5 relative-bias table out of an uploaded ``.safetensors`` file.

Untrusted bytes: the header is parsed and checked here before any tensor is
decoded, nothing is ever unpickled, and only tensors whose names end in
``relative_attention_bias.weight`` are returned.
"""

from __future__ import annotations

import json
import struct

import torch
from safetensors.torch import load as load_safetensors

TABLE_SUFFIX = "relative_attention_bias.weight"
MAX_HEADER_BYTES = 16 * 1024 * 1024
_FLOAT_DTYPES = {"F16", "BF16", "F32", "F64"}

EXTRACT_SNIPPET = """\
from safetensors import safe_open
from safetensors.torch import save_file

name = "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"
with safe_open("model.safetensors", framework="pt") as f:  # reads lazily
    save_file({name: f.get_tensor(name).contiguous()}, "t5_relative_bias.safetensors")
"""


class CheckpointError(ValueError):
    """An upload that is not a usable safetensors relative-bias table."""


def read_bias_tables(data: bytes, *, max_bytes: int) -> dict[str, torch.Tensor]:
    """Every ``*relative_attention_bias.weight`` tensor in a safetensors file.

    Args:
        data: the raw file.
        max_bytes: refuse larger files.

    Returns:
        name -> (num_buckets, heads) float32 tensor, in file order.

    Raises:
        CheckpointError: with a sentence the user can act on.
    """
    if len(data) > max_bytes:
        raise CheckpointError(
            f"The file is {len(data) / 2**20:.1f} MiB; the limit is {max_bytes / 2**20:.0f} MiB. "
            "Save just the bias table into a small file (snippet below) and upload that."
        )
    if len(data) < 8:
        raise CheckpointError("The file is too short to be safetensors (it has no header).")
    (header_len,) = struct.unpack("<Q", data[:8])
    if header_len > min(MAX_HEADER_BYTES, len(data) - 8):
        raise CheckpointError(
            "This is not a safetensors file: its first 8 bytes do not give a plausible "
            "header length. (Pickled PyTorch .bin/.pt files are refused; convert to safetensors.)"
        )
    try:
        header = json.loads(data[8 : 8 + header_len].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise CheckpointError("This is not a safetensors file: its header is not JSON.") from None
    if not isinstance(header, dict):
        raise CheckpointError("This is not a safetensors file: its header is not a JSON object.")
    names = [k for k, v in header.items() if k != "__metadata__" and isinstance(v, dict)]
    wanted = [k for k in names if k.endswith(TABLE_SUFFIX)]
    if not wanted:
        shown = ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")
        raise CheckpointError(
            f"No tensor named '...{TABLE_SUFFIX}' in the file (it holds: {shown or 'nothing'}). "
            "T5 keeps the table in block 0 of the encoder and of the decoder."
        )
    for name in wanted:
        info = header[name]
        shape = info.get("shape")
        if info.get("dtype") not in _FLOAT_DTYPES:
            raise CheckpointError(f"'{name}' has dtype {info.get('dtype')!r}; expected a float type.")
        if not (isinstance(shape, list) and len(shape) == 2 and all(isinstance(s, int) and s > 0 for s in shape)):
            raise CheckpointError(f"'{name}' has shape {shape}; expected (num_buckets, heads).")
    try:
        tensors = load_safetensors(data)
    except Exception as err:  # the library's own consistency checks (offsets, sizes)
        raise CheckpointError(f"The safetensors file is damaged: {err}") from None
    return {name: tensors[name].to(torch.float32) for name in wanted}

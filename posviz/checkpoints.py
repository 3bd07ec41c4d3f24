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

from posviz.i18n import _

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
            _(
                "The file is {size:.1f} MiB; the limit is {limit:.0f} MiB. "
                "Save just the bias table into a small file (snippet below) and upload that."
            ).format(size=len(data) / 2**20, limit=max_bytes / 2**20)
        )
    if len(data) < 8:
        raise CheckpointError(_("The file is too short to be safetensors (it has no header)."))
    (header_len,) = struct.unpack("<Q", data[:8])
    if header_len > min(MAX_HEADER_BYTES, len(data) - 8):
        raise CheckpointError(
            _(
                "This is not a safetensors file: its first 8 bytes do not give a plausible "
                "header length. (Pickled PyTorch .bin/.pt files are refused; convert to safetensors.)"
            )
        )
    try:
        header = json.loads(data[8 : 8 + header_len].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise CheckpointError(_("This is not a safetensors file: its header is not JSON.")) from None
    if not isinstance(header, dict):
        raise CheckpointError(_("This is not a safetensors file: its header is not a JSON object."))
    names = [k for k, v in header.items() if k != "__metadata__" and isinstance(v, dict)]
    wanted = [k for k in names if k.endswith(TABLE_SUFFIX)]
    if not wanted:
        shown = ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")
        raise CheckpointError(
            _(
                "No tensor named '...{suffix}' in the file (it holds: {names}). "
                "T5 keeps the table in block 0 of the encoder and of the decoder."
            ).format(suffix=TABLE_SUFFIX, names=shown or _("nothing"))
        )
    for name in wanted:
        info = header[name]
        shape = info.get("shape")
        if info.get("dtype") not in _FLOAT_DTYPES:
            raise CheckpointError(
                _("'{name}' has dtype {dtype}; expected a float type.").format(name=name, dtype=repr(info.get("dtype")))
            )
        if not (isinstance(shape, list) and len(shape) == 2 and all(isinstance(s, int) and s > 0 for s in shape)):
            raise CheckpointError(
                _("'{name}' has shape {shape}; expected (num_buckets, heads).").format(name=name, shape=shape)
            )
    try:
        tensors = load_safetensors(data)
    except Exception as err:  # the library's own consistency checks (offsets, sizes)
        raise CheckpointError(_("The safetensors file is damaged: {error}").format(error=err)) from None
    return {name: tensors[name].to(torch.float32) for name in wanted}

"""Reading a T5 bias table from untrusted safetensors bytes."""

from __future__ import annotations

import io
import json
import pickle
import struct

import numpy as np
import pytest
import torch
from safetensors.torch import save

from posviz.checkpoints import CheckpointError, read_bias_tables

ENC = "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"
DEC = "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"
MiB = 2**20

UNPICKLED: list[str] = []  # filled only if something unpickles the trap below


def _record(tag: str) -> str:
    UNPICKLED.append(tag)
    return tag


class _Trap:
    def __reduce__(self):
        return (_record, ("unpickled",))


def table(num_buckets: int = 32, heads: int = 8, seed: int = 0) -> torch.Tensor:
    return torch.randn(num_buckets, heads, generator=torch.Generator().manual_seed(seed))


def read(data: bytes, max_bytes: int = 16 * MiB) -> dict[str, torch.Tensor]:
    return read_bias_tables(data, max_bytes=max_bytes)


def raw_safetensors(header: object, payload: bytes = b"") -> bytes:
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + payload


# --- accepted ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_reads_encoder_and_decoder_tables_as_float32(dtype):
    enc, dec = table(32, 8, 1).to(dtype), table(32, 8, 2).to(dtype)
    data = save({ENC: enc, DEC: dec, "shared.weight": torch.randn(10, 4), "lm_head.weight": torch.randn(4, 10)})
    got = read(data)
    assert set(got) == {ENC, DEC}  # the other tensors are ignored
    for name, want in ((ENC, enc), (DEC, dec)):
        assert got[name].dtype == torch.float32
        assert got[name].shape == (32, 8)
        assert torch.equal(got[name], want.to(torch.float32))


def test_reads_a_single_table_of_any_plausible_shape():
    t = table(64, 12, 3)
    got = read(save({"model.encoder.layers.0.attn.relative_attention_bias.weight": t}))
    assert list(got) == ["model.encoder.layers.0.attn.relative_attention_bias.weight"]
    assert torch.equal(next(iter(got.values())), t)


def test_file_exactly_at_the_limit_is_accepted():
    data = save({ENC: table()})
    assert set(read(data, max_bytes=len(data))) == {ENC}


# --- refused -----------------------------------------------------------------------------------


def test_refuses_an_oversized_file():
    data = save({ENC: table()})
    with pytest.raises(CheckpointError, match="limit"):
        read(data, max_bytes=len(data) - 1)


def test_oversized_is_refused_before_parsing():
    with pytest.raises(CheckpointError, match="MiB"):
        read(b"\x00" * (2 * MiB), max_bytes=MiB)


@pytest.mark.parametrize("data", [b"", b"abc", b"\x00" * 7])
def test_refuses_a_file_too_short_for_a_header(data):
    with pytest.raises(CheckpointError, match="too short"):
        read(data)


@pytest.mark.parametrize("zipfile", [True, False])
def test_refuses_a_pickle_renamed_to_safetensors(zipfile):
    buf = io.BytesIO()
    torch.save({ENC: table()}, buf, _use_new_zipfile_serialization=zipfile)
    with pytest.raises(CheckpointError, match="not a safetensors file"):
        read(buf.getvalue())


def test_never_unpickles():
    UNPICKLED.clear()
    data = pickle.dumps({"x": _Trap()})
    assert pickle.loads(data) == {"x": "unpickled"}  # the trap works ...
    UNPICKLED.clear()
    with pytest.raises(CheckpointError, match="Pickled"):
        read(data)
    # ... and reading never sprang it, even behind a plausible header length
    with pytest.raises(CheckpointError):
        read(struct.pack("<Q", len(data)) + data)
    assert UNPICKLED == []


def test_refuses_random_bytes():
    data = np.random.default_rng(0).bytes(4096)
    with pytest.raises(CheckpointError, match="not a safetensors file"):
        read(data)


def test_refuses_a_header_length_beyond_the_file():
    with pytest.raises(CheckpointError, match="header length"):
        read(struct.pack("<Q", 100) + b"{}")


def test_refuses_a_header_that_is_not_json():
    with pytest.raises(CheckpointError, match="not JSON"):
        read(struct.pack("<Q", 6) + b"\xff\xfe{not")
    with pytest.raises(CheckpointError, match="not JSON"):
        read(struct.pack("<Q", 6) + b"{oops}")


def test_refuses_a_header_that_is_not_an_object():
    with pytest.raises(CheckpointError, match="not a JSON object"):
        read(raw_safetensors([1, 2, 3]))


def test_refuses_safetensors_without_a_bias_table():
    data = save({"shared.weight": torch.randn(10, 4), "encoder.final_layer_norm.weight": torch.randn(4)})
    with pytest.raises(CheckpointError, match="No tensor named") as err:
        read(data)
    assert "relative_attention_bias.weight" in str(err.value)
    assert "shared.weight" in str(err.value)  # says what the file does hold


def test_refuses_an_empty_safetensors_file():
    with pytest.raises(CheckpointError, match="nothing"):
        read(save({}))


@pytest.mark.parametrize("shape", [(32,), (2, 32, 8), (0, 8)])
def test_refuses_a_table_of_the_wrong_rank(shape):
    data = save({ENC: torch.zeros(shape)})
    with pytest.raises(CheckpointError, match="num_buckets, heads") as err:
        read(data)
    assert "shape" in str(err.value)


@pytest.mark.parametrize(("dtype", "name"), [(torch.int64, "I64"), (torch.int32, "I32"), (torch.bool, "BOOL")])
def test_refuses_an_integer_table(dtype, name):
    data = save({ENC: torch.zeros(32, 8, dtype=dtype)})
    with pytest.raises(CheckpointError, match="float") as err:
        read(data)
    assert name in str(err.value)


def test_refuses_a_truncated_payload():
    data = save({ENC: table()})
    with pytest.raises(CheckpointError, match="damaged"):
        read(data[:-16])


def test_refuses_offsets_that_disagree_with_the_shape():
    header = {ENC: {"dtype": "F32", "shape": [32, 8], "data_offsets": [0, 8]}}
    with pytest.raises(CheckpointError, match="damaged"):
        read(raw_safetensors(header, b"\x00" * 8))


def test_refuses_non_integer_shape_entries():
    header = {ENC: {"dtype": "F32", "shape": [32, "8"], "data_offsets": [0, 1024]}}
    with pytest.raises(CheckpointError, match="shape"):
        read(raw_safetensors(header, b"\x00" * 1024))


def test_checkpoint_error_is_a_value_error():
    assert issubclass(CheckpointError, ValueError)

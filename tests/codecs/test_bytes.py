"""Tests of zarrhpc/codecs/bytes.py."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zarrhpc.codecs import BytesCodec, ChunkSpec, CodecPipeline, TransposeCodec, swap_size
from zarrhpc.codecs.abc import component_size
from zarrhpc.errors import CodecError, CorruptChunkError
from zarrhpc.testing.codec_helpers import (
    ALL_DTYPES,
    field_re,
    random_array,
    same_bytes,
    seeds,
    shapes,
    to_native,
)


def _endian_for(dtype):
    return None if component_size(dtype) == 0 else "little"


@settings(max_examples=60, deadline=None)
@given(
    dt=st.sampled_from(ALL_DTYPES),
    shape=shapes,
    seed=seeds,
    endian=st.sampled_from(["little", "big"]),
)
def test_round_trip_every_dtype(dt, shape, seed, endian):
    dtype = np.dtype(dt)
    spec = ChunkSpec(shape, dtype)
    codec = BytesCodec(endian).evolve(spec)
    a = random_array(shape, dtype, seed)
    buf = codec.encode(a, spec)
    assert len(memoryview(buf).cast("B")) == a.nbytes
    out = codec.decode(buf, spec)
    assert out.shape == shape
    assert same_bytes(to_native(out), a)


@pytest.mark.parametrize("dt", ["int16", "uint32", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("endian", ["little", "big"])
def test_encoded_bytes_match_numpy(dt, endian):
    a = random_array((4, 5), dt, 1)
    spec = ChunkSpec(a.shape, a.dtype)
    buf = BytesCodec(endian).encode(a, spec)
    want = a.astype(a.dtype.newbyteorder("<" if endian == "little" else ">")).tobytes()
    assert bytes(buf) == want


@pytest.mark.parametrize("dt", ["int16", "float64", "complex64"])
def test_decode_is_zero_copy_view_in_stored_order(dt):
    a = random_array((3, 4), dt, 2)
    buf = bytearray(a.astype(a.dtype.newbyteorder(">")).tobytes())
    out = BytesCodec("big").decode(buf, ChunkSpec(a.shape, a.dtype))
    assert out.dtype == a.dtype.newbyteorder(">")
    assert np.shares_memory(out, np.frombuffer(buf, np.uint8))
    assert swap_size(out.dtype) == (component_size(a.dtype) if sys.byteorder == "little" else 0)
    assert same_bytes(to_native(out), a)


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=4).map(tuple),
    seed=seeds,
    dt=st.sampled_from(["int16", "float32", "float64", "complex128", "uint8"]),
    data=st.data(),
)
def test_transpose_then_big_endian_equals_numpy(shape, seed, dt, data):
    order = tuple(data.draw(st.permutations(range(len(shape)))))
    a = random_array(shape, dt, seed)
    spec = ChunkSpec(shape, a.dtype)
    p = CodecPipeline.from_codecs([TransposeCodec(order), BytesCodec("big")], spec)
    got = bytes(memoryview(p.encode(a, "k")).cast("B"))
    assert got == a.transpose(order).astype(a.dtype.newbyteorder(">")).tobytes()
    assert same_bytes(to_native(p.decode(got, "k")), a)


def test_encode_from_strided_and_non_native_input():
    base = random_array((6, 8), "float64", 3)
    view = base[::2, ::-3]
    spec = ChunkSpec(view.shape, view.dtype)
    assert bytes(BytesCodec("little").encode(view, spec)) == view.astype("<f8").tobytes()
    big = view.astype(">f8")
    assert bytes(BytesCodec("little").encode(big, spec)) == view.astype("<f8").tobytes()
    assert bytes(BytesCodec("big").encode(big, spec)) == view.astype(">f8").tobytes()


def test_zero_dim_and_empty_chunks():
    a = np.array(3.5)
    spec = ChunkSpec((), a.dtype)
    buf = BytesCodec().encode(a, spec)
    assert to_native(BytesCodec().decode(buf, spec)) == 3.5
    spec0 = ChunkSpec((0, 3), np.dtype("f4"))
    e = BytesCodec().encode(np.empty((0, 3), "f4"), spec0)
    assert BytesCodec().decode(e, spec0).shape == (0, 3)


@pytest.mark.parametrize("delta", [-1, 1, -8])
def test_wrong_size_is_corrupt(delta):
    spec = ChunkSpec((4,), np.dtype("f8"))
    with pytest.raises(CorruptChunkError, match="expected 32 bytes"):
        BytesCodec().decode(b"\0" * (32 + delta), spec)


def test_json_round_trip_and_alias():
    from zarrhpc.codecs import parse_codec

    for entry in ({"name": "bytes", "configuration": {"endian": "big"}}, {"name": "bytes"}):
        assert parse_codec(entry).to_json() == entry
    assert parse_codec("bytes").to_json() == {"name": "bytes"}
    draft = parse_codec({"name": "endian", "configuration": {"endian": "little"}})
    assert isinstance(draft, BytesCodec)
    assert draft.to_json() == {"name": "bytes", "configuration": {"endian": "little"}}


@pytest.mark.parametrize("dt", ["uint8", "int8", "bool", "V2", "V5"])
def test_endian_optional_for_one_byte_and_raw(dt):
    spec = ChunkSpec((3,), np.dtype(dt))
    CodecPipeline.from_json(["bytes"], spec, "zarr.json")
    # evolve drops it (what zarr-python writes)
    assert BytesCodec("little").evolve(spec).to_json() == {"name": "bytes"}


@pytest.mark.parametrize(
    "config, field",
    [
        ({"endian": "middle"}, "codecs[0].configuration.endian"),
        ({"endian": 1}, "codecs[0].configuration.endian"),
        ({"endianness": "little"}, "codecs[0].configuration.endianness"),
    ],
)
def test_bad_configuration(config, field):
    spec = ChunkSpec((3,), np.dtype("f8"))
    with pytest.raises(CodecError, match=field_re("a/zarr.json", field)):
        CodecPipeline.from_json([{"name": "bytes", "configuration": config}], spec, "a/zarr.json")


def test_missing_endian_for_multibyte_type():
    # stored metadata: read as little-endian, as zarr-python reads it
    spec = ChunkSpec((3,), np.dtype("i4"))
    pipeline = CodecPipeline.from_json(["bytes"], spec, "zarr.json")
    assert pipeline.to_json() == [{"name": "bytes", "configuration": {"endian": "little"}}]
    with pytest.raises(CodecError):
        BytesCodec(endian="native")


def test_endian_null_is_left_out():
    """``"endian": null`` reads as absent (zarr-python reads it): fine for one-byte types,
    refused for multi-byte ones by validation as when the member is absent."""
    codec = BytesCodec.from_config({"endian": None}, "zarr.json", "codecs[0]")
    assert codec.endian is None and codec.to_json() == {"name": "bytes"}

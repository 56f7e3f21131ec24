"""Tests of zarrhpc/codecs/crc32c.py."""

from __future__ import annotations

import crc32c
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numcodecs import CRC32C

from zarrhpc.codecs import ChunkSpec, CodecPipeline, Crc32cCodec, parse_codec
from zarrhpc.errors import CodecError, CorruptChunkError
from zarrhpc.testing.codec_helpers import field_re

SPEC = ChunkSpec((0,), np.dtype("u1"))


@settings(max_examples=50, deadline=None)
@given(data=st.binary(max_size=2000))
def test_round_trip_and_layout(data):
    enc = bytes(Crc32cCodec().encode(data))
    assert enc == data + crc32c.crc32c(data).to_bytes(4, "little")
    assert bytes(Crc32cCodec().decode(enc, SPEC)) == data
    assert bytes(Crc32cCodec().decode(enc, SPEC, len(data))) == data


def test_known_value():
    # RFC 3720 check value of "123456789"
    assert bytes(Crc32cCodec().encode(b"123456789"))[-4:] == (0xE3069283).to_bytes(4, "little")


@pytest.mark.parametrize("n", [0, 5, 100_000])
def test_numcodecs_interop(n):
    data = np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8).tobytes()
    ours = bytes(Crc32cCodec().encode(data))
    assert ours == bytes(CRC32C().encode(data))
    assert bytes(CRC32C().decode(ours)) == data
    assert bytes(Crc32cCodec().decode(bytes(CRC32C().encode(data)), SPEC)) == data


def test_decode_is_zero_copy():
    buf = bytearray(Crc32cCodec().encode(b"abcdef"))
    out = Crc32cCodec().decode(buf, SPEC)
    assert isinstance(out, memoryview) and out.obj is buf


@pytest.mark.parametrize("bad", [b"", b"abc", b"abcdefgh"])
def test_short_or_wrong_is_corrupt(bad):
    with pytest.raises(CorruptChunkError, match="crc32c"):
        Crc32cCodec().decode(bad, SPEC)


def test_wrong_expected_size():
    with pytest.raises(CorruptChunkError, match="expected 7 bytes"):
        Crc32cCodec().decode(Crc32cCodec().encode(b"abcd"), SPEC, 3)


@settings(max_examples=100, deadline=None)
@given(data=st.binary(min_size=1, max_size=300), pos=st.integers(0, 10_000), bit=st.integers(0, 7))
def test_every_single_bit_flip_is_detected(data, pos, bit):
    enc = bytearray(Crc32cCodec().encode(data))
    enc[pos % len(enc)] ^= 1 << bit
    with pytest.raises(CorruptChunkError):
        Crc32cCodec().decode(enc, SPEC)


def test_json():
    assert parse_codec("crc32c").to_json() == {"name": "crc32c"}
    assert parse_codec({"name": "crc32c", "configuration": {}}).to_json() == {"name": "crc32c"}


def test_bad_configuration():
    with pytest.raises(CodecError, match=field_re("zarr.json", "codecs[1].configuration.location")):
        CodecPipeline.from_json(
            ["bytes", {"name": "crc32c", "configuration": {"location": "end"}}],
            ChunkSpec((2,), np.dtype("u1")),
            "zarr.json",
        )

"""Tests of zarrhpc/codecs/gzip.py."""

from __future__ import annotations

import gzip
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numcodecs import GZip

from zarrhpc.codecs import ChunkSpec, CodecPipeline, GzipCodec, default_serializer, parse_codec
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

SPEC = ChunkSpec((0,), np.dtype("u1"))


@settings(max_examples=40, deadline=None)
@given(dt=st.sampled_from(ALL_DTYPES), shape=shapes, seed=seeds, level=st.integers(0, 9))
def test_round_trip_every_dtype(dt, shape, seed, level):
    a = random_array(shape, dt, seed)
    p = CodecPipeline.from_codecs(
        [default_serializer(a.dtype), GzipCodec(level)], ChunkSpec(shape, a.dtype)
    )
    enc = p.encode(a, "c/0")
    assert bytes(enc[:2]) == b"\x1f\x8b"  # a gzip member
    assert same_bytes(to_native(p.decode(enc, "c/0")), a)


@pytest.mark.parametrize("level", [0, 1, 9])
def test_numcodecs_and_stdlib_interop(level):
    data = random_array((5000,), "float64", level).tobytes()
    ours = GzipCodec(level).encode(data)
    assert bytes(GZip(level).decode(ours)) == data
    assert gzip.decompress(ours) == data
    assert bytes(GzipCodec().decode(bytes(GZip(level).encode(data)), SPEC, len(data))) == data
    assert bytes(GzipCodec().decode(gzip.compress(data, level), SPEC)) == data


def test_decode_accepts_zlib_and_multiple_members():
    data = b"zarrhpc" * 100
    assert bytes(GzipCodec().decode(zlib.compress(data), SPEC, len(data))) == data
    two = gzip.compress(data[:300]) + gzip.compress(data[300:])
    assert bytes(GzipCodec().decode(two, SPEC, len(data))) == data


def test_wrong_size_truncated_and_bombs_are_corrupt():
    data = b"\0" * 100_000
    enc = GzipCodec(9).encode(data)
    with pytest.raises(CorruptChunkError, match="longer than the expected 10"):
        GzipCodec().decode(enc, SPEC, 10)
    with pytest.raises(CorruptChunkError, match="expected 200000"):
        GzipCodec().decode(enc, SPEC, 200_000)
    with pytest.raises(CorruptChunkError, match="gzip"):
        GzipCodec().decode(enc[:-5], SPEC, 100_000)
    with pytest.raises(CorruptChunkError, match="gzip"):
        GzipCodec().decode(b"not gzip at all", SPEC)


def test_json_round_trip():
    entry = {"name": "gzip", "configuration": {"level": 3}}
    assert parse_codec(entry).to_json() == entry


@pytest.mark.parametrize(
    "config, key",
    [
        ({"level": 10}, "level"),
        ({"level": -1}, "level"),
        ({"level": "5"}, "level"),
        ({"level": True}, "level"),
        ({"level": 5.0}, "level"),
        ({"level": 1, "mtime": 0}, "mtime"),
    ],
)
def test_bad_configuration(config, key):
    with pytest.raises(CodecError, match=field_re("g/zarr.json", f"codecs[1].configuration.{key}")):
        CodecPipeline.from_json(
            ["bytes", {"name": "gzip", "configuration": config}],
            ChunkSpec((2,), np.dtype("u1")),
            "g/zarr.json",
        )


def test_missing_configuration():
    with pytest.raises(CodecError, match=field_re("zarr.json", "codecs[1]: missing")):
        CodecPipeline.from_json(["bytes", "gzip"], ChunkSpec((2,), np.dtype("u1")), "zarr.json")
    with pytest.raises(CodecError, match="GzipCodec.configuration.level"):
        GzipCodec(level=11)


def test_level_left_out_is_zarr_pythons_default():
    """``{"name": "gzip", "configuration": {}}``: level 5, as zarr-python reads it."""
    codec = GzipCodec.from_config({}, "zarr.json", "codecs[1]")
    assert codec.level == 5 and codec.to_json() == {"name": "gzip", "configuration": {"level": 5}}

"""Tests of zarrhpc/codecs/zstd.py."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st
from numcodecs import Zstd

from zarrhpc.codecs import ChunkSpec, CodecPipeline, ZstdCodec, default_serializer, parse_codec
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
@given(
    dt=st.sampled_from(ALL_DTYPES),
    shape=shapes,
    seed=seeds,
    level=st.sampled_from([-131072, -5, 0, 1, 3, 19]),
    checksum=st.booleans(),
)
def test_round_trip_every_dtype(dt, shape, seed, level, checksum):
    a = random_array(shape, dt, seed)
    p = CodecPipeline.from_codecs(
        [default_serializer(a.dtype), ZstdCodec(level, checksum)], ChunkSpec(shape, a.dtype)
    )
    enc = p.encode(a, "c/0")
    assert zstandard.frame_content_size(enc) == a.nbytes
    assert same_bytes(to_native(p.decode(enc, "c/0")), a)


@pytest.mark.parametrize("level", [-3, 0, 5, 22])
@pytest.mark.parametrize("checksum", [False, True])
def test_numcodecs_interop(level, checksum):
    data = random_array((3000,), "int32", abs(level)).tobytes()
    ours = ZstdCodec(level, checksum).encode(data)
    assert bytes(Zstd(level=level, checksum=checksum).decode(ours)) == data
    theirs = bytes(Zstd(level=level, checksum=checksum).encode(data))
    assert bytes(ZstdCodec().decode(theirs, SPEC, len(data))) == data


@pytest.mark.parametrize("checksum", [False, True])
def test_frames_without_content_size(checksum):
    data = random_array((4096,), "float32", 7).tobytes()
    frame = zstandard.ZstdCompressor(write_content_size=False, write_checksum=checksum).compress(
        data
    )
    assert zstandard.frame_content_size(frame) == -1
    assert bytes(ZstdCodec().decode(frame, SPEC, len(data))) == data
    assert bytes(ZstdCodec().decode(frame, SPEC)) == data  # size unknown: streaming
    # a streamed frame, as a streaming writer produces it
    cobj = zstandard.ZstdCompressor(write_content_size=False).compressobj()
    streamed = cobj.compress(data[:1000]) + cobj.compress(data[1000:]) + cobj.flush()
    assert bytes(ZstdCodec().decode(streamed, SPEC, len(data))) == data
    with pytest.raises(CorruptChunkError, match="zstd"):
        ZstdCodec().decode(frame, SPEC, len(data) - 1)
    with pytest.raises(CorruptChunkError, match="zstd"):
        ZstdCodec().decode(frame[:-3], SPEC)


def test_header_size_mismatch_refused_before_allocating():
    frame = ZstdCodec().encode(b"\0" * 1000)
    with pytest.raises(CorruptChunkError, match="declares 1000 bytes, expected 10"):
        ZstdCodec().decode(frame, SPEC, 10)


def test_trailing_garbage_and_garbage_are_corrupt():
    frame = ZstdCodec().encode(b"abc" * 100)
    with pytest.raises(CorruptChunkError):
        ZstdCodec().decode(frame + b"xx", SPEC, 300)
    with pytest.raises(CorruptChunkError, match="not a zstd frame"):
        ZstdCodec().decode(b"garbage!", SPEC, 300)


def test_threads_share_one_codec():
    codec = ZstdCodec(3, True)
    datas = [random_array((20000,), "u2", i).tobytes() for i in range(8)]
    errors = []

    def work(d):
        for _ in range(20):
            if bytes(codec.decode(codec.encode(d), SPEC, len(d))) != d:
                errors.append(1)

    threads = [threading.Thread(target=work, args=(d,)) for d in datas]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert not errors


@pytest.mark.parametrize(
    "entry",
    [
        {"name": "zstd", "configuration": {"level": 1, "checksum": True}},
        {"name": "zstd", "configuration": {"level": 0, "checksum": False}},
        {"name": "zstd", "configuration": {"level": -7}},  # checksum omitted stays omitted
    ],
)
def test_json_round_trip(entry):
    assert parse_codec(entry).to_json() == entry


def test_missing_level_reads_as_zero():
    """zarr-python reads a zstd entry without level as level 0."""
    assert parse_codec({"name": "zstd", "configuration": {}}).to_json()["configuration"][
        "level"] == 0


@pytest.mark.parametrize(
    "config, key",
    [
        ({"level": 23}, "level"),
        ({"level": -131073}, "level"),
        ({"level": "1"}, "level"),
        ({"level": None}, "level"),
        ({"level": 1, "checksum": 1}, "checksum"),
        ({"level": 1, "checksum": "yes"}, "checksum"),
        ({"level": 1, "dict": "x"}, "dict"),
    ],
)
def test_bad_configuration(config, key):
    with pytest.raises(CodecError, match=field_re("a/zarr.json", f"codecs[1].configuration.{key}")):
        CodecPipeline.from_json(
            ["bytes", {"name": "zstd", "configuration": config}],
            ChunkSpec((2,), np.dtype("u1")),
            "a/zarr.json",
        )


def test_huge_declared_size_before_another_codec_is_refused_before_allocating():
    # gzip then zstd: the zstd frame's size is not known from the chunk, only bounded by it;
    # a header claiming 32 TiB must fail as corrupt, not as MemoryError (found by fuzzing)
    from zarrhpc.codecs import GzipCodec

    spec = ChunkSpec((4, 4), np.dtype("f4"))
    p = CodecPipeline.from_codecs([default_serializer(spec.dtype), GzipCodec(), ZstdCodec()],
                                  spec)
    frame = b"\x28\xb5\x2f\xfd" + b"\xe0" + (1 << 45).to_bytes(8, "little") + b"\x01\x00\x00"
    with pytest.raises(CorruptChunkError, match="more than a chunk"):
        p.decode(frame, "data/c/0/0")
    # a real chain still decodes
    data = np.arange(16, dtype="f4").reshape(4, 4)
    assert (p.decode(p.encode(data, "k"), "k") == data).all()

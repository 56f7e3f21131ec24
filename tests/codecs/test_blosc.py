"""Tests of zarrhpc/codecs/blosc.py."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numcodecs import Blosc

from zarrhpc.codecs import (
    BloscCname,
    BloscCodec,
    BytesCodec,
    ChunkSpec,
    CodecPipeline,
    default_serializer,
    parse_codec,
)
from zarrhpc.errors import CodecError, CorruptChunkError, UnsupportedError
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
CNAMES = ["lz4", "lz4hc", "blosclz", "zstd", "zlib"]
SHUFFLES = ["noshuffle", "shuffle", "bitshuffle"]
SHUFFLE_INT = {"noshuffle": 0, "shuffle": 1, "bitshuffle": 2}


@settings(max_examples=60, deadline=None)
@given(
    dt=st.sampled_from(ALL_DTYPES),
    shape=shapes,
    seed=seeds,
    cname=st.sampled_from(CNAMES),
    shuffle=st.sampled_from(SHUFFLES),
    clevel=st.integers(0, 9),
    blocksize=st.sampled_from([0, 64, 4096]),
)
def test_round_trip_every_dtype(dt, shape, seed, cname, shuffle, clevel, blocksize):
    a = random_array(shape, dt, seed)
    codec = BloscCodec(cname, clevel, shuffle, blocksize=blocksize)
    p = CodecPipeline.from_codecs([default_serializer(a.dtype), codec], ChunkSpec(shape, a.dtype))
    assert p.to_json()[1]["configuration"]["typesize"] == a.dtype.itemsize  # evolve
    enc = p.encode(a, "c/0")
    assert bytes(enc[:1]) == b"\x02"  # c-blosc1 format version, readable by c-blosc1
    assert same_bytes(to_native(p.decode(enc, "c/0")), a)


@pytest.mark.parametrize("cname", CNAMES)
@pytest.mark.parametrize("shuffle", SHUFFLES)
@pytest.mark.parametrize("typesize", [1, 2, 4, 8, 16])
def test_numcodecs_interop(cname, shuffle, typesize):
    data = random_array((4096,), "uint8", typesize).tobytes()
    ours = bytes(BloscCodec(cname, 5, shuffle, typesize).encode(data))
    # the typesize we asked for is in the header (byte 3), and the shuffle flag too
    assert ours[3] == typesize
    assert bool(ours[2] & 0x1) == (shuffle == "shuffle")
    ref = Blosc(cname=cname, clevel=5, shuffle=SHUFFLE_INT[shuffle], typesize=typesize)
    assert bytes(ref.decode(ours)) == data
    theirs = bytes(ref.encode(np.frombuffer(data, dtype=np.uint8)))
    assert bytes(BloscCodec().decode(theirs, SPEC, len(data))) == bytes(data)


def test_decode_reads_blosc2_chunks_too():
    import blosc2

    data = random_array((1000,), "float64", 1).tobytes()
    frame = blosc2.compress(data, typesize=8)
    assert bytes(BloscCodec().decode(frame, SPEC, len(data))) == data


def test_header_checks():
    data = b"\1\2\3\4" * 1000
    enc = bytes(BloscCodec("lz4", 5, "shuffle", 4).encode(data))
    with pytest.raises(CorruptChunkError, match="at least 16 bytes"):
        BloscCodec().decode(enc[:10], SPEC)
    with pytest.raises(CorruptChunkError, match="compressed bytes"):
        BloscCodec().decode(enc[:-1], SPEC)
    # padding after the frame is ignored (as c-blosc and zarr-python do)
    assert bytes(BloscCodec().decode(enc + b"\0" * 7, SPEC, 4000)) == data
    with pytest.raises(CorruptChunkError, match="expected 3999"):
        BloscCodec().decode(enc, SPEC, 3999)
    assert bytes(BloscCodec().decode(b"".join([enc]), SPEC, 4000)) == data


def test_empty_input():
    enc = BloscCodec().evolve(ChunkSpec((0,), np.dtype("f8"))).encode(b"")
    assert bytes(BloscCodec().decode(enc, SPEC, 0)) == b""


def test_numcodecs_bytes_codec_chain_with_big_endian():
    a = random_array((10, 10), "float64", 3)
    spec = ChunkSpec(a.shape, a.dtype)
    p = CodecPipeline.from_codecs([BytesCodec("big"), BloscCodec("zstd", 3, "bitshuffle")], spec)
    raw = bytes(Blosc().decode(p.encode(a, "k")))
    assert raw == a.astype(">f8").tobytes()


@pytest.mark.parametrize(
    "entry",
    [
        {
            "name": "blosc",
            "configuration": {
                "cname": "lz4",
                "clevel": 1,
                "shuffle": "shuffle",
                "typesize": 4,
                "blocksize": 0,
            },
        },
        {
            "name": "blosc",
            "configuration": {
                "cname": "zstd",
                "clevel": 9,
                "shuffle": "noshuffle",
                "blocksize": 1024,
            },
        },
        {
            "name": "blosc",
            "configuration": {
                "cname": "zlib",
                "clevel": 0,
                "shuffle": "bitshuffle",
                "typesize": 1,
                "blocksize": 0,
            },
        },
    ],
)
def test_json_round_trip(entry):
    assert parse_codec(entry).to_json() == entry


def test_blocksize_optional_when_reading():
    codec = parse_codec(
        {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 1, "shuffle": "noshuffle"}}
    )
    assert codec.blocksize == 0


GOOD = {"cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}


@pytest.mark.parametrize(
    "change, key",
    [
        ({"cname": "lzma"}, "cname"),
        ({"cname": 1}, "cname"),
        ({"clevel": 10}, "clevel"),
        ({"clevel": -1}, "clevel"),
        ({"clevel": "5"}, "clevel"),
        ({"shuffle": 1}, "shuffle"),
        ({"shuffle": "auto"}, "shuffle"),
        ({"typesize": 0}, "typesize"),
        ({"typesize": 2.5}, "typesize"),
        ({"blocksize": -1}, "blocksize"),
        ({"blocksize": "0"}, "blocksize"),
        ({"nthreads": 2}, "nthreads"),
    ],
)
def test_bad_configuration(change, key):
    config = {**GOOD, **change}
    with pytest.raises(CodecError, match=field_re("b/zarr.json", f"codecs[1].configuration.{key}")):
        CodecPipeline.from_json(
            ["bytes", {"name": "blosc", "configuration": config}],
            ChunkSpec((2,), np.dtype("u1")),
            "b/zarr.json",
        )


def test_missing_typesize_read_and_filled_on_create():
    config = {k: v for k, v in GOOD.items() if k != "typesize"}
    entry = {"name": "blosc", "configuration": config}
    spec = ChunkSpec((2,), np.dtype("f8"))
    little = {"name": "bytes", "configuration": {"endian": "little"}}
    # stored metadata without typesize: the chunk's itemsize, as zarr-python reads it
    read = CodecPipeline.from_json([little, entry], spec, "a/zarr.json")
    assert read.to_json()[1]["configuration"]["typesize"] == 8
    # creating an array: the typesize comes from the dtype, as in zarr-python
    pipeline = CodecPipeline.from_codecs(
        [parse_codec(little, "", "codecs[0]"), parse_codec(entry, "", "codecs[1]")], spec
    )
    assert pipeline.to_json()[1]["configuration"]["typesize"] == 8


def test_missing_clevel_and_shuffle_take_zarr_pythons_defaults():
    spec = ChunkSpec((2,), np.dtype("u1"))
    config = {"cname": "lz4", "typesize": 1, "blocksize": 0}
    read = CodecPipeline.from_json(["bytes", {"name": "blosc", "configuration": config}], spec,
                                   "a/zarr.json")
    conf = read.to_json()[1]["configuration"]
    assert conf["clevel"] == 5 and conf["shuffle"] == "bitshuffle"  # 1-byte type


def test_missing_cname_is_zarr_pythons_default():
    """zarr-python reads a blosc entry without cname (its default, zstd); so does zarrhpc
    (decoding does not need it: the frame names its compressor)."""
    config = {k: v for k, v in GOOD.items() if k != "cname"}
    codec = parse_codec({"name": "blosc", "configuration": config}, "zarr.json", "codecs[0]")
    assert codec.cname is BloscCname.zstd
    assert codec.to_json()["configuration"]["cname"] == "zstd"


def test_snappy_is_refused_as_unsupported():
    config = {**GOOD, "cname": "snappy"}
    with pytest.raises(
        UnsupportedError, match=field_re("zarr.json", "codecs[1].configuration.cname")
    ):
        parse_codec({"name": "blosc", "configuration": config}, "zarr.json", "codecs[1]")


def test_padded_frames_read_natively_and_in_python(tmp_path):
    import json

    import numcodecs

    import zarrhpc

    (tmp_path / "p.zarr").mkdir()
    (tmp_path / "p.zarr/.zarray").write_text(json.dumps({
        "zarr_format": 2, "shape": [200], "chunks": [100], "dtype": "<i4", "fill_value": 0,
        "order": "C", "filters": None,
        "compressor": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1,
                       "blocksize": 0}}))
    x = np.arange(200, dtype="<i4")
    for i in range(2):
        frame = numcodecs.Blosc().encode(x[i * 100:(i + 1) * 100])
        (tmp_path / f"p.zarr/{i}").write_bytes(bytes(frame) + b"\0" * (16 * (i + 1)))
    a = zarrhpc.open_array(tmp_path / "p.zarr")
    np.testing.assert_array_equal(a[:], x)  # the native engine
    np.testing.assert_array_equal(a[5:150:3], x[5:150:3])

"""zarrhpc's own c-blosc1 writer (csrc/zh_blosc1.c) for lz4 and lz4hc.

Its chunks must be what c-blosc1 (numcodecs, which zarr-python and tensorstore share)
and c-blosc2 decode to the input, for every typesize, shuffle, level and size (leftover
blocks, chunks that do not compress, chunks under c-blosc1's 128-byte minimum); the
engine and ``BloscCodec.encode`` must write the same bytes.
"""

from __future__ import annotations

import blosc2
import numcodecs
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc._kernels.engine import blosc1_encode, blosc1_handles
from zarrhpc.codecs.blosc import OWN_BLOCK_BYTES, BloscCodec
from zarrhpc.storage import LocalStore

SHUFFLES = {0: "noshuffle", 1: "shuffle", 2: "bitshuffle"}


def _payload(draw, n):
    kind = draw(st.sampled_from(["smooth", "random", "zeros", "small"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if kind == "random":  # does not compress: blocks stored as they are, or memcpyed
        return rng.integers(0, 256, n, dtype=np.uint8).tobytes()
    if kind == "zeros":
        return bytes(n)
    if kind == "small":
        return rng.integers(0, 3, n, dtype=np.uint8).tobytes()
    words = np.cumsum(rng.integers(-2, 3, n // 2 + 1)).astype("<i2")  # compresses
    return words.tobytes()[:n]


@st.composite
def cases(draw):
    typesize = draw(st.integers(1, 16))
    shuffle = draw(st.sampled_from([0, 1, 2]))
    clevel = draw(st.integers(1, 9))
    cname = draw(st.sampled_from(["lz4", "lz4hc"]))
    block = draw(st.sampled_from([OWN_BLOCK_BYTES, 256, 1000, 4096]))
    n = draw(st.one_of(st.integers(0, 300), st.integers(0, 5 * block + 3 * typesize)))
    return typesize, shuffle, clevel, cname, block, _payload(draw, n)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_c_blosc1_and_c_blosc2_decode_our_chunks(case):
    typesize, shuffle, clevel, cname, block, data = case
    out = blosc1_encode(data, cname, clevel, shuffle, typesize, block)
    if out is None:  # a bit shuffle of partial groups of 8: c-blosc1 writes it
        assert shuffle == 2
        return
    assert len(out) <= len(data) + 16
    nbytes, cbytes, blocksize = (int.from_bytes(out[i:i + 4], "little") for i in (4, 12, 8))
    assert (out[0], out[1], out[3]) == (2, 1, typesize)
    assert nbytes == len(data) and cbytes == len(out)
    assert out[2] & 0x10 and out[2] >> 5 == 1  # don't split; lz4's format
    assert out[2] & 0x05 == {0: 0, 1: 1, 2: 4}[shuffle]
    if len(data) >= 128 and not out[2] & 0x02:
        assert blocksize <= block and (shuffle == 0 or blocksize % typesize == 0)
    if not data:
        return  # c-blosc1 refuses to decode an empty chunk (its own too)
    assert bytes(numcodecs.Blosc().decode(out)) == data
    assert blosc2.decompress(out) == data


@pytest.mark.parametrize("cname", ["lz4", "lz4hc"])
@pytest.mark.parametrize("shuffle", ["noshuffle", "shuffle", "bitshuffle"])
@pytest.mark.parametrize("dtype", ["u1", "<i2", "<f4", "<f8", "<c16", "S3"])
def test_engine_and_codec_write_the_same_bytes_and_peers_read_them(tmp_path, cname, shuffle,
                                                                   dtype):
    shape = (40, 33, 17)  # leftover blocks, edge chunks
    rng = np.random.default_rng(0)
    if dtype == "S3":
        data = rng.choice([b"ab", b"xyz", b""], size=shape).astype("S3")
    else:
        data = (np.cumsum(rng.standard_normal(int(np.prod(shape)))) * 9).reshape(shape)
        data = data.astype(dtype)
    conf = {"name": "blosc", "configuration": {"cname": cname, "clevel": 5,
                                               "shuffle": shuffle, "blocksize": 0}}
    a = zarrhpc.create_array(LocalStore(str(tmp_path)), shape=shape, dtype=data.dtype,
                             chunks=(32, 32, 16), compressors=[conf], fill_value=None)
    a[...] = data  # the engine writes
    codec = BloscCodec(cname, 5, shuffle, data.dtype.itemsize)
    assert codec.own_writer
    for key in [("0", "0", "0"), ("1", "1", "1"), ("0", "1", "0")]:
        stored = (tmp_path / "c").joinpath(*key).read_bytes()
        sel = tuple(slice(int(k) * c, (int(k) + 1) * c) for k, c in zip(key, (32, 32, 16)))
        chunk = np.zeros((32, 32, 16), data.dtype)  # edge chunks are padded with the fill
        part = data[sel]
        chunk[tuple(slice(0, s) for s in part.shape)] = part
        assert codec.encode(chunk.tobytes()) == stored  # the Python path: the same bytes
        assert bytes(numcodecs.Blosc().decode(stored)) == chunk.tobytes()
    zarr = pytest.importorskip("zarr")
    np.testing.assert_array_equal(zarr.open_array(str(tmp_path), mode="r")[...], data)
    if dtype != "S3":
        ts = pytest.importorskip("tensorstore")
        t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(tmp_path)}},
                    open=True).result()
        np.testing.assert_array_equal(t.read().result(), data)
    b = zarrhpc.open_array(str(tmp_path), mode="r")
    np.testing.assert_array_equal(b[...], data)
    np.testing.assert_array_equal(b[3:9, 30:33, 15:17], data[3:9, 30:33, 15:17])


def test_other_cases_go_to_c_blosc1(tmp_path):
    """blosclz, zstd, zlib, clevel 0 and an explicit blocksize: c-blosc1's chunks."""
    assert not blosc1_handles("blosclz", 5) and not blosc1_handles("zstd", 5)
    assert not blosc1_handles("lz4", 0) and blosc1_handles("lz4hc", 9)
    assert not BloscCodec("lz4", 5, "shuffle", 4, blocksize=32768).own_writer
    assert not BloscCodec("lz4", 0, "shuffle", 4).own_writer
    data = np.arange(40000, dtype="<f4").tobytes()
    for codec in [BloscCodec("lz4", 0, "shuffle", 4), BloscCodec("zstd", 3, "shuffle", 4),
                  BloscCodec("lz4", 5, "shuffle", 4, blocksize=32768)]:
        out = codec.encode(data)
        # c-blosc1's marks: lz4 chunks split (or memcpyed at level 0), zstd's format 4
        assert out[2] >> 5 == (4 if codec.cname.value == "zstd" else 1)
        assert codec.cname.value == "zstd" or not out[2] & 0x10
        assert bytes(numcodecs.Blosc().decode(out)) == data
    # a typesize over 255 (c-blosc1 stores typesize 1) and a partial bit-shuffle group
    assert blosc1_encode(data, "lz4", 5, 1, 300, OWN_BLOCK_BYTES) is None
    odd = data[: 8 * 1001 + 4]
    assert blosc1_encode(odd, "lz4", 5, 2, 4, OWN_BLOCK_BYTES) is None
    out = BloscCodec("lz4", 5, "bitshuffle", 4).encode(odd)
    assert bytes(numcodecs.Blosc().decode(out)) == odd
    with pytest.raises(ValueError, match="cannot encode"):
        blosc1_encode(data, "zstd", 5, 1, 4, OWN_BLOCK_BYTES)

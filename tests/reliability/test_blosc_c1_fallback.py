"""Blosc chunks c-blosc2 cannot decode are decoded by c-blosc1 (numcodecs), on every path.

c-blosc2 reports success on bit-shuffled c-blosc1 blocks whose typesize exceeds the block
size while leaving output bytes unwritten. numcodecs writes such chunks (a blosc codec
with an explicit small ``blocksize`` and a large ``typesize``; 71 of 990 chunks of odd
typesizes in a sweep), and c-blosc1 reads them right; they used to be refused. Now the
engine hands them to the Python codec, which decodes them with numcodecs' c-blosc1:
whole, partial, single-element and sharded reads, and the read-modify-write of a partial
write, all equal numpy.

Damaged headers c-blosc2 would decode leaving bytes unwritten are refused on every path
(split blocks that are not whole elements; blosc2 "uninitialized" chunks).
"""

from __future__ import annotations

import os
import struct

import blosc2
import numcodecs.blosc as nc_blosc
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.errors import CorruptChunkError


def _codec(cname, shuffle, typesize, blocksize):
    return {"name": "blosc", "configuration": {"cname": cname, "clevel": 5, "shuffle": shuffle,
                                               "typesize": typesize, "blocksize": blocksize}}


def _data(shape, dtype, seed):
    # compressible (else c-blosc1 stores the chunk as a plain copy, which decodes anywhere)
    n = int(np.prod(shape))
    rng = np.random.default_rng(seed)
    raw = (rng.integers(0, 4, n * np.dtype(dtype).itemsize) * (np.arange(
        n * np.dtype(dtype).itemsize) % 3 == 0)).astype("u1")
    return raw.view(dtype).reshape(shape)


def _unfit(raw: bytes) -> bool:
    """A bit-shuffled, compressed c-blosc1 chunk whose typesize exceeds its block size."""
    bs = int.from_bytes(raw[8:12], "little")
    return bool(raw[2] & 0x04) and not raw[2] & 0x02 and (raw[2] & 0x05) != 0x05 \
        and raw[3] > bs


def _every_path(a, data):
    np.testing.assert_array_equal(a[...], data)
    np.testing.assert_array_equal(a[1:5, 2:7], data[1:5, 2:7])
    np.testing.assert_array_equal(a[3:4, :], data[3:4, :])
    for p in [(0, 0), (5, 9), (data.shape[0] - 1, data.shape[1] - 1), (7, 3)]:
        assert a[p] == data[p], p
    np.testing.assert_array_equal(a.oindex[[0, 3, 9], [1, 2, 11]], data[np.ix_([0, 3, 9],
                                                                               [1, 2, 11])])
    np.testing.assert_array_equal(a.vindex[[0, 3, 9], [1, 2, 11]], data[[0, 3, 9], [1, 2, 11]])


@pytest.mark.parametrize("sharded", [False, True])
@pytest.mark.parametrize("cname", ["lz4", "zstd", "blosclz"])
def test_typesize_past_the_block_size_reads_right_everywhere(tmp_path, cname, sharded):
    data = _data((24, 24), "i4", 1)
    path = str(tmp_path / "a")
    a = zarrhpc.create_array(path, shape=data.shape, dtype=data.dtype, chunks=(8, 8),
                             shards=(16, 16) if sharded else None, fill_value=0,
                             compressors=_codec(cname, "bitshuffle", 255, 8))
    a[...] = data
    stored = bytes(a.store.get("c/0/0"))
    if sharded:  # inner chunk (0, 0): the first entry of the index at the shard's end
        off, length = struct.unpack("<QQ", stored[-(4 * 16 + 4):][:16])
        stored = stored[off:off + length]
    assert _unfit(stored), "the case this test is about: c-blosc2 cannot decode this chunk"
    # c-blosc1 decodes it right (the reference this relies on)
    np.testing.assert_array_equal(
        np.frombuffer(nc_blosc.decompress(stored), "i4").reshape(8, 8), data[:8, :8])
    for threads in (1, 2):
        with zarrhpc.config.set(threads=threads):
            _every_path(zarrhpc.open_array(path, mode="r"), data)
    # a partial write merges with such chunks (read, modify, write)
    a = zarrhpc.open_array(path, mode="r+")
    a[1, 1] = 12345
    a[5:7, 4:9] = -1
    data = data.copy()
    data[1, 1] = 12345
    data[5:7, 4:9] = -1
    _every_path(zarrhpc.open_array(path, mode="r"), data)


@settings(max_examples=40, deadline=None)
@given(typesize=st.one_of(st.integers(2, 40), st.integers(120, 255)), blocksize=st.sampled_from([0, 8, 16, 64, 200]),
       shuffle=st.sampled_from(["bitshuffle", "shuffle", "noshuffle"]),
       cname=st.sampled_from(["lz4", "zstd", "blosclz", "zlib"]),
       dtype=st.sampled_from(["u1", "i2", "f4", "f8"]), sharded=st.booleans(),
       seed=st.integers(0, 2**16))
def test_numcodecs_chunks_of_odd_typesizes_read_as_numpy(tmp_path_factory, typesize, blocksize,
                                                         shuffle, cname, dtype, sharded, seed):
    data = _data((24, 24), dtype, seed)
    path = str(tmp_path_factory.mktemp("odd") / "a")
    a = zarrhpc.create_array(path, shape=data.shape, dtype=dtype, chunks=(8, 8),
                             shards=(16, 16) if sharded else None, fill_value=0,
                             compressors=_codec(cname, shuffle, typesize, blocksize))
    a[...] = data
    _every_path(zarrhpc.open_array(path, mode="r"), data)


@settings(max_examples=400, deadline=None)
@given(typesize=st.one_of(st.integers(2, 40), st.integers(100, 255)),
       blocksize=st.sampled_from([0, 8, 16, 64, 126, 200, 1000]),
       nbytes=st.one_of(st.integers(1, 300), st.integers(900, 5000)),
       shuffle=st.sampled_from([0, 1, 2]), cname=st.sampled_from(["lz4", "zstd", "blosclz"]),
       seed=st.integers(0, 2**16))
def test_the_fit_rule_is_exact(typesize, blocksize, nbytes, shuffle, cname, seed):
    """codecs/blosc.py's _decode_fit (the engine's blosc_decode_fit, same rule) sends a
    numcodecs chunk to c-blosc2 exactly when c-blosc2 writes every byte of it right;
    either way the codec decodes it equal to the data."""
    from zarrhpc.codecs.blosc import BloscCodec, _decode_fit

    data = _data((nbytes,), "u1", seed)
    raw = nc_blosc.compress(data, cname.encode(), 5, shuffle, blocksize, typesize=typesize)
    outs = []
    for fill in (0, 255):
        out = np.full(nbytes, fill, np.uint8)
        blosc2.decompress2(raw, dst=out, nthreads=1)
        outs.append(out)
    c2_right = np.array_equal(outs[0], data) and np.array_equal(outs[1], data)
    assert _decode_fit(memoryview(raw)) == ("c2" if c2_right else "c1")
    np.testing.assert_array_equal(BloscCodec(cname).decode(raw, None, nbytes), data)


# ---------------------------------------------------------------- damaged headers


def _split_remainder_chunk():
    """A c-blosc1 chunk (lz4 format, byte shuffle, split) of typesize 3 and 258 bytes with
    256-byte blocks: each of block 0's three streams holds 85 bytes, so its last byte is
    in no stream (c-blosc2 leaves it unwritten; c-blosc1 refuses the chunk)."""
    streams = b"".join(struct.pack("<i", 85) + bytes(range(k, k + 85)) for k in range(3))
    block1 = struct.pack("<i", 2) + b"\x07\x08"
    b0 = 16 + 8
    b1 = b0 + len(streams)
    cbytes = b1 + len(block1)
    return (struct.pack("<BBBBiii", 2, 1, 0x01 | (1 << 5), 3, 258, 256, cbytes)
            + struct.pack("<ii", b0, b1) + streams + block1)


def _uninit_chunk(nbytes):
    """A blosc2-format chunk of the special kind "uninitialized" (no data)."""
    return (struct.pack("<BBBBiii", 5, 1, 0x05 | (1 << 5), 1, nbytes, nbytes, 32)
            + bytes(14) + bytes([0, 0x40]))


@pytest.mark.parametrize("sharded", [False, True])
@pytest.mark.parametrize("kind", ["split-remainder", "uninitialized"])
def test_damaged_headers_that_leave_bytes_unwritten_are_refused(tmp_path, kind, sharded):
    raw = _split_remainder_chunk() if kind == "split-remainder" else _uninit_chunk(258)
    path = str(tmp_path / "a")
    a = zarrhpc.create_array(path, shape=(258,), dtype="u1", chunks=(258,),
                             shards=(258,) if sharded else None, fill_value=0,
                             compressors=_codec("lz4", "noshuffle", 1, 0))
    a[...] = 1
    if sharded:
        # one inner chunk, index at the end: offset 0, length len(raw)
        index = struct.pack("<QQ", 0, len(raw))
        import crc32c

        stored = raw + index + struct.pack("<I", crc32c.crc32c(index))
    else:
        stored = raw
    with open(os.path.join(path, "c", "0"), "wb") as f:
        f.write(stored)
    a = zarrhpc.open_array(path, mode="r")
    why = "no whole elements" if kind == "split-remainder" else "uninitialized"
    for threads in (1, 2):
        with zarrhpc.config.set(threads=threads):
            for sel in [Ellipsis, slice(250, 258), 255, 254, 0, slice(0, 3)]:
                with pytest.raises(CorruptChunkError, match=why):
                    a[sel]
    with pytest.raises(CorruptChunkError, match=why):
        zarrhpc.open_array(path, mode="r+")[0] = 3


def test_blosc2_format_chunks_read_right_on_every_path(tmp_path):
    """Chunks in the blosc2 format (extended header: python-blosc2 writes them; c-blosc1
    readers cannot read them, zarrhpc does): the engine decodes them whole (never by item
    range), the Python codec checks that c-blosc2 wrote every byte."""
    from zarrhpc.codecs.blosc import BloscCodec

    data = _data((24, 24), "i4", 5)
    path = str(tmp_path / "a")
    a = zarrhpc.create_array(path, shape=data.shape, dtype="i4", chunks=(8, 8), fill_value=0,
                             compressors=_codec("lz4", "shuffle", 4, 0))
    a[...] = data
    for i, j in np.ndindex(3, 3):
        raw = blosc2.compress2(np.ascontiguousarray(data[8 * i:8 * i + 8, 8 * j:8 * j + 8]),
                               typesize=4, clevel=5, blocksize=64)
        assert (raw[2] & 0x05) == 0x05  # the extended header
        a.store.set(f"c/{i}/{j}", raw)
        np.testing.assert_array_equal(BloscCodec("lz4").decode(raw, None, 256).view("i4"),
                                      data[8 * i:8 * i + 8, 8 * j:8 * j + 8].ravel())
    for threads in (1, 2):
        with zarrhpc.config.set(threads=threads):
            _every_path(zarrhpc.open_array(path, mode="r"), data)

"""Small box reads of blosc chunks in zarrhpc's own form (lz4, one stream per block:
csrc/zh_blosc1.c) decode their blocks without c-blosc2 (zh_blosc1_decode_range: each
wanted block decompressed whole, only the wanted elements un-shuffled into place).

Checked against numpy for every element size the shuffle treats differently (1, 2, 3,
4, 8, 16 bytes), shuffle on and off, compressible and incompressible blocks (stored as
they are), the last block shorter than the others, and boxes on and across block edges;
chunks of other writers (c-blosc1's split blocks) still read; damaged blocks are refused
with the chunk's key, never read as other values.
"""

from __future__ import annotations

import struct

import numcodecs
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.errors import ZarrhpcError

DTYPES = ["u1", "<i2", "S3", "<f4", "<f8", "<c16"]


def _blosc(shuffle="shuffle"):
    return [{"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                "shuffle": shuffle}}]


def _data(shape, dtype, noisy, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    dt = np.dtype(dtype)
    if noisy:  # incompressible: blocks stored as they are
        raw = rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8).tobytes()
    else:
        raw = (np.arange(n) // 7 % 251).astype(np.uint8).repeat(dt.itemsize).tobytes()
    return np.frombuffer(raw, dtype=dt).reshape(shape).copy()


def _header(path):
    with open(path, "rb") as f:
        raw = f.read()
    flags, ts = raw[2], raw[3]
    nbytes, blocksize, cbytes = struct.unpack("<iii", raw[4:16])
    return raw, flags, ts, nbytes, blocksize


# 40 x 70 x 33 chunks of (say) float32: 369,600 bytes, 45 blocks of 8 KiB and a short one
SHAPE, CHUNKS = (50, 80, 40), (40, 70, 33)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_boxes_match_numpy(tmp_path_factory, data):
    dtype = data.draw(st.sampled_from(DTYPES))
    shuffle = data.draw(st.sampled_from(["shuffle", "noshuffle"]))
    noisy = data.draw(st.booleans())
    path = tmp_path_factory.mktemp("a")
    arr = _data(SHAPE, dtype, noisy, seed=data.draw(st.integers(0, 3)))
    a = zarrhpc.create_array(str(path), shape=SHAPE, chunks=CHUNKS, dtype=arr.dtype,
                             compressors=_blosc(shuffle), fill_value=None)
    a[...] = arr
    raw, flags, ts, nbytes, bs = _header(path / "c" / "0" / "0" / "0")
    assert flags & 0x10 and ts == np.dtype(dtype).itemsize  # our own writer's form
    assert nbytes % bs != 0 or dtype == "u1"  # a short last block (most dtypes)
    for _ in range(8):
        lo = [data.draw(st.integers(0, n - 1)) for n in SHAPE]
        box = tuple(slice(x, data.draw(st.integers(x + 1, min(n, x + 9))))
                    for x, n in zip(lo, SHAPE))
        if data.draw(st.booleans()):  # an int on some axis
            box = (lo[0], *box[1:])
        got = a[box]
        np.testing.assert_array_equal(got, arr[box])
        assert got.dtype == arr.dtype


@pytest.mark.parametrize("dtype", ["<f4", "<f8"])
def test_c_blosc1_split_chunks_still_read(tmp_path, dtype):
    """A chunk c-blosc1 wrote (split lz4 blocks, no 0x10 flag) goes to c-blosc2."""
    arr = _data(CHUNKS, dtype, noisy=False)
    a = zarrhpc.create_array(str(tmp_path), shape=CHUNKS, chunks=CHUNKS, dtype=dtype,
                             compressors=_blosc(), fill_value=0)
    codec = numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE,
                            blocksize=16384)
    a[...] = arr
    chunk = tmp_path / "c" / "0" / "0" / "0"
    chunk.write_bytes(codec.encode(arr))
    _, flags, *_ = _header(chunk)
    assert not flags & 0x10
    for box in [np.s_[3:9, 60:68, 1:7], np.s_[39, 0:70, 32], np.s_[10:12, 5, 0:33]]:
        np.testing.assert_array_equal(a[box], arr[box])


def _damage(path, how):
    raw, flags, ts, nbytes, bs = _header(path)
    nblocks = -(-nbytes // bs)
    starts = struct.unpack(f"<{nblocks}i", raw[16:16 + 4 * nblocks])
    k = 1  # block 1: bytes [bs, 2 bs) of the chunk
    s = starts[k]
    csize = struct.unpack("<i", raw[s:s + 4])[0]
    out = bytearray(raw)
    if how == "csize-too-long":
        out[s:s + 4] = struct.pack("<i", csize + 1000)
    elif how == "csize-negative":
        out[s:s + 4] = struct.pack("<i", -5)
    elif how == "stream-cut":  # a shorter stream: it decodes to fewer bytes
        out[s:s + 4] = struct.pack("<i", csize // 2)
    elif how == "offset-out":
        out[16 + 4 * k:16 + 4 * k + 4] = struct.pack("<i", len(raw) + 10)
    path.write_bytes(bytes(out))
    return bs


@pytest.mark.parametrize("how", ["csize-too-long", "csize-negative", "stream-cut",
                                 "offset-out"])
def test_damaged_blocks_are_refused(tmp_path, how):
    arr = _data(CHUNKS, "<f4", noisy=False)
    a = zarrhpc.create_array(str(tmp_path), shape=CHUNKS, chunks=CHUNKS, dtype="<f4",
                             compressors=_blosc(), fill_value=0)
    a[...] = arr
    bs = _damage(tmp_path / "c" / "0" / "0" / "0", how)
    e = bs // 4 + 5  # an element of block 1
    i, rest = divmod(e, CHUNKS[1] * CHUNKS[2])
    j, k = divmod(rest, CHUNKS[2])
    with pytest.raises(ZarrhpcError, match="c/0/0/0"):
        a[i:i + 1, j:j + 1, k:k + 1]
    with pytest.raises(ZarrhpcError, match="c/0/0/0"):  # the whole-chunk decode too
        a[...]
    with pytest.raises(ZarrhpcError, match="c/0/0/0"):  # and a dense point read
        a.vindex[np.arange(CHUNKS[0]), np.zeros(CHUNKS[0], int), np.zeros(CHUNKS[0], int)]
    codec = zarrhpc.open_array(str(tmp_path), mode="r")._prep.pipeline
    with pytest.raises(ZarrhpcError):  # the Python codecs (no engine) refuse it as well
        codec.decode((tmp_path / "c" / "0" / "0" / "0").read_bytes(), "c/0/0/0")
    # a box in block 0 alone does not need block 1
    np.testing.assert_array_equal(a[0:1, 0:3, 0:5], arr[0:1, 0:3, 0:5])

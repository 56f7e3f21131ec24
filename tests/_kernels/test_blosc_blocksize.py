"""The writer's choice of blosc's internal block size (``blocksize: 0``).

zarrhpc writes OWN_BLOCK_BYTES non-split blocks for lz4 and lz4hc (its own writer,
csrc/zh_blosc1.c) and 64 KiB blocks through c-blosc1 for blosclz
(zarrhpc/codecs/blosc.py's docstring says why): the chunk headers record them, the
metadata keeps ``blocksize: 0``, the chunks are standard c-blosc1 that zarr-python and
tensorstore read, and a small read decodes only the blocks holding its elements.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import zarrhpc
from zarrhpc.codecs.blosc import AUTO_BLOCK_BYTES, OWN_BLOCK_BYTES
from zarrhpc.errors import CorruptChunkError
from zarrhpc.storage import LocalStore

DTYPES = ["u1", "<i2", "<f4", "<f8", "<c16"]


def _blosc(cname, shuffle="shuffle", blocksize=0):
    return {"name": "blosc", "configuration": {"cname": cname, "clevel": 5,
                                               "shuffle": shuffle, "blocksize": blocksize}}


def _header_blocksize(path):
    with open(path, "rb") as f:
        return int.from_bytes(f.read(16)[8:12], "little")


def _header_flags(path):
    with open(path, "rb") as f:
        return f.read(16)[2]


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = np.cumsum(rng.standard_normal(int(np.prod(shape))), dtype=np.float64).reshape(shape)
    return (x * 7).astype(dtype)


@pytest.mark.parametrize("cname", ["lz4", "lz4hc", "blosclz", "zstd", "zlib"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_auto_blocks_and_peers_read_them(tmp_path, cname, dtype):
    shape = (1 << 20) // np.dtype(dtype).itemsize // 64, 64  # one 1 MiB chunk
    data = _data(shape, dtype)
    a = zarrhpc.create_array(LocalStore(str(tmp_path)), shape=shape, dtype=dtype,
                             chunks=shape, compressors=[_blosc(cname)], overwrite=True)
    a[...] = data
    chunk = tmp_path / "c" / "0" / "0"
    if cname in ("lz4", "lz4hc"):  # zarrhpc's own writer: non-split blocks (flag 0x10)
        assert _header_blocksize(chunk) == OWN_BLOCK_BYTES
        assert _header_flags(chunk) & 0x10
    elif cname == "blosclz":
        assert _header_blocksize(chunk) == AUTO_BLOCK_BYTES
    else:  # c-blosc1's own choice, as numcodecs (zarr-python) writes it
        import numcodecs

        ref = numcodecs.Blosc(cname=cname, clevel=5, shuffle=numcodecs.Blosc.SHUFFLE,
                              blocksize=0).encode(np.ascontiguousarray(data))
        assert _header_blocksize(tmp_path / "c" / "0" / "0") == int.from_bytes(
            bytes(ref)[8:12], "little")
    meta = json.loads((tmp_path / "zarr.json").read_text())
    assert meta["codecs"][-1]["configuration"]["blocksize"] == 0
    zarr = pytest.importorskip("zarr")
    np.testing.assert_array_equal(zarr.open_array(str(tmp_path), mode="r")[...], data)
    ts = pytest.importorskip("tensorstore")
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(tmp_path)}},
                open=True).result()
    np.testing.assert_array_equal(t.read().result(), data)
    np.testing.assert_array_equal(zarrhpc.open_array(str(tmp_path), mode="r")[...], data)


def test_v2_and_sharded_writes_use_the_auto_blocks(tmp_path):
    zarr = pytest.importorskip("zarr")
    data = _data((64, 64, 64), "<f4", 1)
    v2 = tmp_path / "v2"
    a = zarrhpc.create_array(LocalStore(str(v2)), shape=data.shape, dtype="<f4",
                             chunks=data.shape, zarr_format=2,
                             compressors={"id": "blosc", "cname": "lz4", "clevel": 5,
                                          "shuffle": 1, "blocksize": 0}, overwrite=True)
    a[...] = data
    assert _header_blocksize(v2 / "0.0.0") == OWN_BLOCK_BYTES
    np.testing.assert_array_equal(zarr.open_array(str(v2), mode="r")[...], data)
    sh = tmp_path / "sharded"
    a = zarrhpc.create_array(LocalStore(str(sh)), shape=data.shape, dtype="<f4",
                             chunks=(64, 64, 32), shards=(64, 64, 64),
                             compressors=[_blosc("lz4")], overwrite=True)
    a[...] = data
    np.testing.assert_array_equal(zarr.open_array(str(sh), mode="r")[...], data)
    with open(sh / "c" / "0" / "0" / "0", "rb") as f:  # the first inner chunk starts the shard
        assert int.from_bytes(f.read(16)[8:12], "little") == OWN_BLOCK_BYTES


def test_an_explicit_blocksize_is_kept(tmp_path):
    data = _data((64, 64, 64), "<f4", 2)
    a = zarrhpc.create_array(LocalStore(str(tmp_path)), shape=data.shape, dtype="<f4",
                             chunks=data.shape, compressors=[_blosc("zstd", blocksize=131072)],
                             overwrite=True)
    a[...] = data
    assert _header_blocksize(tmp_path / "c" / "0" / "0" / "0") == 131072


def test_small_reads_decode_only_the_blocks_they_touch(tmp_path):
    """An untouched block's offset made garbage: the whole chunk no longer decodes, a
    box inside the first block still reads right."""
    data = _data((64, 64, 64), "<f4", 3)
    a = zarrhpc.create_array(LocalStore(str(tmp_path)), shape=data.shape, dtype="<f4",
                             chunks=data.shape, compressors=[_blosc("lz4")], overwrite=True)
    a[...] = data
    path = tmp_path / "c" / "0" / "0" / "0"
    raw = bytearray(path.read_bytes())
    nblocks = (1 << 20) // OWN_BLOCK_BYTES
    assert raw[3] == 4 and int.from_bytes(raw[8:12], "little") == OWN_BLOCK_BYTES
    last = 16 + 4 * (nblocks - 1)
    raw[last:last + 4] = (len(raw) + 1000).to_bytes(4, "little")
    path.write_bytes(bytes(raw))
    b = zarrhpc.open_array(str(tmp_path), mode="r")
    np.testing.assert_array_equal(b[0:2, 0:3, 0:4], data[0:2, 0:3, 0:4])
    np.testing.assert_array_equal(b.oindex[[0, 1], [2, 3], [5]], data[np.ix_([0, 1], [2, 3], [5])])
    with pytest.raises(CorruptChunkError, match="c/0/0/0"):
        b[...]
    assert os.path.exists(path)


def _break_block(path, k):
    """Point block k's offset past the end of the chunk: only that block is unreadable."""
    raw = bytearray(path.read_bytes())
    raw[16 + 4 * k:20 + 4 * k] = (len(raw) + 1000).to_bytes(4, "little")
    path.write_bytes(bytes(raw))


def test_a_box_decodes_only_the_blocks_holding_its_rows(tmp_path):
    """A small box spans planes of a 64**3 chunk: the blocks between its rows (inside the
    byte range it spans) are never decoded, in slices, oindex, vindex and blocks."""
    data = _data((64, 64, 64), "<f4", 4)
    a = zarrhpc.create_array(LocalStore(str(tmp_path)), shape=data.shape, dtype="<f4",
                             chunks=data.shape, compressors=[_blosc("lz4")], overwrite=True)
    a[...] = data
    plane = 64 * 64 * 4
    assert plane % OWN_BLOCK_BYTES == 0 and plane > OWN_BLOCK_BYTES
    # rows 0-1 of planes 3 and 4 lie in the first block of each plane; the plane's other
    # blocks lie between them
    _break_block(tmp_path / "c" / "0" / "0" / "0", (3 * plane + OWN_BLOCK_BYTES) // OWN_BLOCK_BYTES)
    b = zarrhpc.open_array(str(tmp_path), mode="r")
    np.testing.assert_array_equal(b[3:5, 0:2, 1:7], data[3:5, 0:2, 1:7])
    np.testing.assert_array_equal(b[3:5, 0:2, 5], data[3:5, 0:2, 5])
    np.testing.assert_array_equal(b.oindex[[3, 4], [1, 0], [2, 9]],
                                  data[np.ix_([3, 4], [1, 0], [2, 9])])
    np.testing.assert_array_equal(b.vindex[[3, 4], [1, 0], [2, 9]], data[[3, 4], [1, 0], [2, 9]])
    with pytest.raises(CorruptChunkError, match="c/0/0/0"):
        b[3:5, 0:64, 1:7]  # the broken block holds rows of this one
    with pytest.raises(CorruptChunkError, match="c/0/0/0"):
        b[...]


def test_a_missing_chunk_reads_as_the_fill_value_in_a_small_box(tmp_path):
    a = zarrhpc.create_array(LocalStore(str(tmp_path)), shape=(128, 64, 64), dtype="<f4",
                             chunks=(64, 64, 64), compressors=[_blosc("lz4")], fill_value=7.5)
    a[:64] = _data((64, 64, 64), "<f4", 5)
    np.testing.assert_array_equal(a[70:72, 3:5, 9:12], np.full((2, 2, 3), 7.5, "f4"))

"""``a[i, j, ...]`` on a directory: one engine call (``Engine.read_element``) that returns
zarr-python's 0-d ndarray, for every kind of dtype, byte order, memory order, format and
codec, with missing chunks (the fill value), negative and numpy-integer indices; and
everything it cannot answer (an index out of range, a corrupt chunk, a chunk only the
Python codecs decode) still reaches the general path and its error.
"""

import os

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import CorruptChunkError

zarr = pytest.importorskip("zarr")

SHAPE, CHUNKS = (5, 4, 6), (2, 3, 4)
BLOSC = [{"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                              "shuffle": "shuffle"}}]


def _data(dtype):
    n = int(np.prod(SHAPE))
    dt = np.dtype(dtype)
    if dt.kind in "SU":
        return np.array([str(i * 7 % 101) for i in range(n)], dtype=dt).reshape(SHAPE)
    if dt.fields is not None:
        out = np.zeros(n, dtype=dt)
        out["a"], out["b"] = np.arange(n), np.arange(n) / 4
        return out.reshape(SHAPE)
    return (np.arange(n) * 3 % 17 + 1).astype(dt).reshape(SHAPE)


def _array(tmp_path, data, zarr_format=3, order="C", compressors=None, fill_value=None):
    kwargs = {"order": order} if zarr_format == 2 else {}
    a = zarrhpc.create_array(str(tmp_path), shape=SHAPE, chunks=CHUNKS, dtype=data.dtype,
                             zarr_format=zarr_format, compressors=compressors,
                             fill_value=fill_value, **kwargs)
    a[...] = data
    return a


@pytest.mark.parametrize("dtype", ["<i4", ">i4", ">f8", "<f2", "<c8", "?", "u1", "S3", "<U2",
                                   "<M8[ns]", "<m8[s]", [("a", "<i2"), ("b", "<f8")]])
@pytest.mark.parametrize("layout", ["v3", "v3-blosc", "v2-C", "v2-F"])
def test_every_element_as_zarr_python(tmp_path, dtype, layout):
    data = _data(dtype)
    zarr_format = 2 if layout.startswith("v2") else 3
    _array(tmp_path, data, zarr_format, "F" if layout == "v2-F" else "C",
           BLOSC if layout == "v3-blosc" else None)
    os.remove(tmp_path / ("c/1/1/0" if zarr_format == 3 else "1.1.0"))  # a missing chunk
    data[2:4, 3:4, 0:4] = zarrhpc.open_array(str(tmp_path), mode="r")._prep.fill_value
    b = zarrhpc.open_array(str(tmp_path), mode="r")
    assert b._prep.element_target is not None  # the engine's path is the one under test
    # zarr-python 3.1 does not read zarrhpc's v3 struct form (tests/conformance)
    ref = None if zarr_format == 3 and data.dtype.fields else \
        zarr.open_array(str(tmp_path), mode="r")
    for idx in np.ndindex(SHAPE):
        got = b[idx]
        assert type(got) is np.ndarray and got.shape == (), idx
        assert got.dtype == b.dtype, (idx, got.dtype)  # v3: native order, v2: stored
        assert got.tobytes() == np.asarray(data[idx], dtype=b.dtype).tobytes(), idx
    # numpy integers take zarr-python's basic path there (a scalar), ints the 0-d array
    for idx in [(-1, -1, -1), (np.int64(3), np.int32(2), np.uint8(5)), (-5, 0, -6)]:
        got = b[idx]
        assert np.asarray(got, b.dtype).tobytes() == np.asarray(data[idx], b.dtype).tobytes()
        if ref is not None:
            want = ref[idx]
            # (a v2 big-endian dtype shows in its stored order, as zarr-python)
            assert type(want) is type(got), idx
            assert want.dtype == got.dtype, idx
            assert np.asarray(want, got.dtype).tobytes() == got.tobytes(), idx
    # read() keeps numpy's scalar for an all-integer index
    assert type(b.read((1, 2, 3))) is type(np.asarray(data, b.dtype)[1, 2, 3])


def test_one_dimension_and_out_of_range(tmp_path):
    a = zarrhpc.create_array(str(tmp_path), shape=(10,), chunks=(4,), dtype="<i8",
                             fill_value=-7)
    a[:6] = np.arange(6)
    ref = zarr.open_array(str(tmp_path), mode="r")
    for i in range(-10, 10):
        got, want = a[i], ref[i]
        assert type(got) is np.ndarray and got.shape == () and got == want, i
    for bad in [10, -11, (3, 1)]:
        with pytest.raises(IndexError) as zh:
            a[bad]
        with pytest.raises(IndexError) as zp:
            ref[bad]
        if type(bad) is int:
            assert type(zh.value).__name__ == type(zp.value).__name__ == "BoundsCheckError"


def test_corrupt_chunk_raises_through_the_general_path(tmp_path):
    data = _data("<f4")
    _array(tmp_path, data, compressors=BLOSC)
    raw = (tmp_path / "c/0/0/0").read_bytes()
    (tmp_path / "c/0/0/0").write_bytes(raw[:12])  # a cut header
    b = zarrhpc.open_array(str(tmp_path), mode="r")
    with pytest.raises(CorruptChunkError, match="c/0/0/0"):
        b[1, 1, 1]
    assert b[4, 3, 5] == data[4, 3, 5]  # other chunks read


def test_memory_store_and_sharded_arrays_keep_their_paths(tmp_path):
    data = _data("<i2")
    mem = zarrhpc.create_array({}, shape=SHAPE, chunks=CHUNKS, dtype="<i2")
    mem[...] = data
    sharded = zarrhpc.create_array(str(tmp_path), shape=SHAPE, chunks=CHUNKS,
                                   shards=(4, 3, 4), dtype="<i2")
    sharded[...] = data
    assert mem._prep.element_target is None and sharded._prep.element_target is None
    for a in (mem, sharded):
        for idx in [(0, 0, 0), (4, 3, 5), (-1, 1, -2)]:
            got = a[idx]
            assert type(got) is np.ndarray and got.shape == () and got == data[idx]

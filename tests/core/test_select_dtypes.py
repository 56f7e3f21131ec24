"""The Python read/write path is dtype-generic: object and StringDType chunks (strings)
are filled and copied by numpy assignment, never by byte kernels or the native engine.

The string codecs come with issue 17; a pickling stand-in pipeline drives the same path
here, through every selection kind.
"""

import pickle

import numpy as np
import pytest

from zarrhpc.core._prepared import Prepared, is_fill_chunk
from zarrhpc.core._read import read_selection
from zarrhpc.core._select import read_orthogonal, read_points, write_orthogonal, write_points
from zarrhpc.core._write import broadcast_value, write_selection
from zarrhpc.indexing import (
    RegularChunkGrid,
    coordinate_projection,
    mask_projection,
    normalize_orthogonal,
    orthogonal_projection,
)
from zarrhpc.metadata.chunk_keys import ChunkKeyEncoding
from zarrhpc.storage import MemoryStore


class PicklePipeline:
    """Encodes a chunk array with pickle (a stand-in for vlen-utf8)."""

    def __init__(self, dtype, chunk_shape):
        self.dtype, self.chunk_shape = dtype, chunk_shape

    def encode(self, chunk, key=""):
        assert chunk.dtype == self.dtype and chunk.shape == self.chunk_shape
        return pickle.dumps(np.array(chunk))

    def decode(self, buf, key=""):
        return pickle.loads(bytes(buf))


DTYPES = [np.dtype(object), np.dtypes.StringDType()]


def prepared(dtype, shape=(5, 7), chunks=(2, 3), wec=False):
    fill = np.array("", dtype=dtype)
    return Prepared(
        store=MemoryStore(), path="", key_prefix="", key_encoding=ChunkKeyEncoding("default", "/"),
        pipeline=PicklePipeline(dtype, chunks), engine=None, fill_value=fill,
        fill_bytes=b"", dtype=dtype, shape=shape, grid=RegularChunkGrid(shape, chunks),
        sharding=None, write_empty_chunks=wec, order="C")


def words(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return np.array([f"w{int(i)}" * int(i % 3) for i in rng.integers(0, 30, int(np.prod(shape)))],
                    dtype=dtype).reshape(shape)


@pytest.mark.parametrize("dtype", DTYPES, ids=["object", "StringDType"])
def test_every_selection_kind_on_strings(dtype):
    prep = prepared(dtype)
    ref = words(prep.shape, dtype)
    write_selection(prep, Ellipsis, ref)
    np.testing.assert_array_equal(read_selection(prep, Ellipsis), ref)
    np.testing.assert_array_equal(read_selection(prep, (slice(4, 0, -2), 3)), ref[4:0:-2, 3])

    sel = normalize_orthogonal(([4, 0, 4], slice(None, None, -3)), prep.shape)
    proj = orthogonal_projection(sel, prep.shape, prep.chunks)
    out = np.empty(proj.out_shape, dtype)
    read_orthogonal(prep, proj, out[proj.expand_index])
    np.testing.assert_array_equal(out, ref[np.ix_([4, 0, 4], np.arange(7)[::-3])])
    write_orthogonal(prep, proj, broadcast_value(prep, "x", proj.out_shape)[proj.expand_index])
    ref[np.ix_([4, 0, 4], np.arange(7)[::-3])] = "x"

    pts = (np.array([1, 1, 3, 0]), np.array([6, 6, 2, 0]))
    proj = coordinate_projection(pts, prep.shape, prep.chunks)
    flat = np.empty(4, dtype)
    read_points(prep, proj, flat)
    np.testing.assert_array_equal(flat, ref[pts])
    write_points(prep, proj, np.array(["a", "b", "c", "d"], dtype=dtype))
    ref[pts] = ["a", "b", "c", "d"]  # (1, 6) ends as "b": the last wins

    mask = ref == "x"
    proj = mask_projection(mask, prep.shape, prep.chunks)
    flat = np.empty(proj.out_shape, dtype)
    read_points(prep, proj, flat)
    np.testing.assert_array_equal(flat, ref[mask])
    np.testing.assert_array_equal(read_selection(prep, Ellipsis), ref)


@pytest.mark.parametrize("dtype", DTYPES, ids=["object", "StringDType"])
def test_missing_chunks_read_as_fill_and_fill_chunks_are_erased(dtype):
    prep = prepared(dtype)
    assert read_selection(prep, (0, 0)) == ""
    write_selection(prep, (slice(0, 2), slice(0, 3)), "abc")
    assert prep.store.get("c/0/0") is not None
    write_points(prep, coordinate_projection((np.array([0, 1]), np.array([0, 2])), prep.shape,
                                             prep.chunks), np.array(["", ""], dtype=dtype))
    assert prep.store.get("c/0/0") is not None  # still holds "abc" elsewhere
    write_selection(prep, (slice(0, 2), slice(0, 3)), "")
    assert prep.store.get("c/0/0") is None  # every element is the fill value: erased
    assert is_fill_chunk(np.array(["", ""], dtype=dtype), b"", np.array("", dtype=dtype))
    assert not is_fill_chunk(np.array(["", "a"], dtype=dtype), b"", np.array("", dtype=dtype))

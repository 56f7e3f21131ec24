"""The seam to the native engine's point and orthogonal kernels.

A stand-in engine with ``read_points`` / ``read_orthogonal`` (the agreed signatures) does
every other task itself and hands the rest back as FALLBACK: the result must still equal
numpy, every chunk must reach it once (sources, or the store target on LocalStore), and
an error status must become the zarrhpc.errors class naming the chunk.
"""

import numpy as np
import pytest

import zarrhpc
from zarrhpc.codecs.native import DONE, FALLBACK
from zarrhpc.errors import CorruptChunkError
from zarrhpc.storage import LocalStore, MemoryStore

CHUNKS = (3, 4)


class StandIn:
    def __init__(self, engine, ref, fail_task=None):
        self._engine, self.ref, self.fail_task = engine, ref, fail_task
        self.calls = []

    def __getattr__(self, name):  # read/write/read_point: the real engine
        return getattr(self._engine, name)

    def _check(self, n, kw):
        if kw.get("sources") is not None:
            assert len(kw["sources"]) == n
        else:
            assert kw["path_prefix"] and kw["key_kind"] in (0, 1)
        self.calls.append(kw)

    def _status(self, n):
        status = np.where(np.arange(n) % 2 == 0, DONE, FALLBACK).astype(np.uint8)
        if self.fail_task is not None:
            return status, self.fail_task, 5, "bad bytes"
        return status, 0, 0, ""

    def read_points(self, out, chunk_coords, offsets, in_chunk, out_index, **kw):
        n = len(chunk_coords)
        self._check(n, kw)
        flat = out.reshape(-1)
        assert np.shares_memory(flat, out)
        for k in range(0, n, 2):
            lo, hi = offsets[k], offsets[k + 1]
            where = chunk_coords[k] * CHUNKS + in_chunk[lo:hi]
            flat[out_index[lo:hi]] = self.ref[tuple(where.T)]
        return self._status(n)

    def read_orthogonal(self, full, tables, **kw):
        nchunks, chunks, offsets, in_chunk, out = tables
        ntasks = int(np.prod(nchunks))
        self._check(ntasks, kw)
        cbase = np.concatenate([[0], np.cumsum(nchunks)[:-1]])
        for t in range(0, ntasks, 2):
            rest, idx, oidx = t, [], []
            for d in reversed(range(len(nchunks))):
                rest, k = divmod(rest, nchunks[d])
                j = cbase[d] + k
                lo, hi = offsets[j + d], offsets[j + d + 1]
                idx.append(chunks[j] * CHUNKS[d] + in_chunk[lo:hi])
                oidx.append(out[lo:hi])
            full[np.ix_(*oidx[::-1])] = self.ref[np.ix_(*idx[::-1])]
        return self._status(ntasks)


@pytest.fixture(params=["memory", "local"])
def array(request, tmp_path):
    store = MemoryStore() if request.param == "memory" else LocalStore(tmp_path)
    a = zarrhpc.create_array(store, shape=(10, 13), chunks=CHUNKS, dtype="f4")
    ref = np.arange(130, dtype="f4").reshape(10, 13)
    a[...] = ref
    return a, ref


def test_points_through_the_seam(array):
    a, ref = array
    a._engine = StandIn(a._engine, ref)
    pts = (np.array([9, 0, 4, 4, 1]), np.array([12, 0, 5, 6, 7]))
    np.testing.assert_array_equal(a.vindex[pts], ref[pts])
    mask = ref % 7 == 0
    np.testing.assert_array_equal(a[mask], ref[mask])
    assert len(a._engine.calls) == 2


def test_orthogonal_through_the_seam(array):
    a, ref = array
    a._engine = StandIn(a._engine, ref)
    rows, cols = [9, 0, 0, 5], np.arange(13)[::-2]
    np.testing.assert_array_equal(a.oindex[rows, ::-2], ref[np.ix_(rows, cols)])
    np.testing.assert_array_equal(a.oindex[3, [1, 12]], ref[3, [1, 12]])
    assert len(a._engine.calls) == 2


def test_engine_error_names_the_chunk(array):
    a, ref = array
    a._engine = StandIn(a._engine, ref, fail_task=1)
    with pytest.raises(CorruptChunkError, match=r"c/1/2.*bad bytes"):
        a.vindex[[0, 4], [0, 9]]  # chunks (0, 0) and (1, 2): task 1 fails


def test_engine_constants_are_the_ones_python_uses():
    """csrc/zh_status.h is the one source; the layers forbid storage/ to import the
    kernels, so LocalStore's own copy of the temporary-name pattern is checked here."""
    from zarrhpc._kernels import engine
    from zarrhpc.errors import CorruptChunkError, StoreError, status_class
    from zarrhpc.storage import local

    assert (local._TEMP_PREFIX, local._TEMP_SUFFIX) == (engine.TEMP_PREFIX, engine.TEMP_SUFFIX)
    assert status_class(engine.STATUS["ERR_CORRUPT"])[0] is CorruptChunkError
    assert status_class(engine.STATUS["ERR_IO"])[0] is StoreError
    assert set(engine.KEY_KINDS) == {"default", "v2"}

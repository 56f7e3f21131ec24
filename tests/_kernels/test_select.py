"""Engine.read_points and Engine.read_orthogonal against the numpy oracles
(zarrhpc.testing.oracles) on random geometries, dtypes (big-endian, transposed chains),
codecs, missing chunks, directory and memory sources, 1 and 4 threads."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.codecs.native import DONE, FALLBACK
from zarrhpc.core._read import native_target
from zarrhpc.errors import CorruptChunkError
from zarrhpc.indexing import coordinate_projection, normalize_orthogonal, orthogonal_projection
from zarrhpc.testing.oracles import read_orthogonal_oracle, read_points_oracle

COMPRESSORS = {
    "none": None,
    "blosc": [{"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                  "shuffle": "shuffle", "blocksize": 64}}],
    "zstd": [{"name": "zstd", "configuration": {"level": 1}}],
    "gzip": [{"name": "gzip", "configuration": {"level": 1}}],
    "crc32c": [{"name": "crc32c"}],
}
DTYPES = ["<f4", ">f4", "<i2", ">f8", "u1", ">c8"]


@st.composite
def arrays(draw):
    ndim = draw(st.integers(1, 4))
    shape = tuple(draw(st.integers(1, 9)) for _ in range(ndim))
    chunks = tuple(draw(st.integers(1, 5)) for _ in range(ndim))
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    comp = draw(st.sampled_from(sorted(COMPRESSORS)))
    order = draw(st.permutations(list(range(ndim))))
    where = draw(st.sampled_from(["dir", "memory"]))
    seed = draw(st.integers(0, 2**32 - 1))
    return shape, chunks, dtype, comp, list(order), where, seed


def make(case, tmp_path):
    shape, chunks, dtype, comp, order, where, seed = case
    store = str(tmp_path / f"a{seed}") if where == "dir" else f"memory://sel{seed}"
    filters = [{"name": "transpose", "configuration": {"order": order}}]
    endian = "big" if dtype.byteorder == ">" else "little"
    a = zarrhpc.create_array(store, shape=shape, chunks=chunks, dtype=dtype, filters=filters,
                             serializer={"name": "bytes", "configuration": {"endian": endian}},
                             compressors=COMPRESSORS[comp], fill_value=7, overwrite=True)
    rng = np.random.default_rng(seed)
    data = (rng.standard_normal(shape) * 100).astype(dtype)
    a[...] = data
    # erase some chunks: they read as the fill value
    grid = [-(-n // c) for n, c in zip(shape, chunks)]
    for coords in itertools.product(*map(range, grid)):
        if rng.random() < 0.25:
            a.store.erase(a._chunk_key(coords))
            data[tuple(slice(c * s, (c + 1) * s) for c, s in zip(coords, chunks))] = 7
    assert a._engine is not None
    return a, data, rng


def point_plan(coords, shape, chunks):
    p = coordinate_projection(coords, shape, chunks)
    return p.chunk_coords, p.offsets, p.in_chunk, p.out_index


def ortho_plan(indices, shape, chunks):
    """Per dimension ``(chunks, offsets, in_chunk, out)`` of an orthogonal selection."""
    proj = orthogonal_projection(normalize_orthogonal(tuple(indices), shape), shape, chunks)
    return [(d.chunks, d.offsets, d.in_chunk, d.out) for d in proj.dims]


def ortho_tables(dims) -> tuple:
    """Engine.read_orthogonal's tables: the dimensions' lists concatenated, offsets
    shifted to index the concatenated in_chunk/out."""
    base = np.cumsum([0] + [len(d[2]) for d in dims[:-1]]).astype(np.int64)

    def cat(parts):
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)

    return (np.array([len(d[0]) for d in dims], dtype=np.int64), cat([d[0] for d in dims]),
            cat([d[1] + b for d, b in zip(dims, base)]), cat([d[2] for d in dims]),
            cat([d[3] for d in dims]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=arrays(), npoints=st.integers(0, 40), nthreads=st.sampled_from([1, 4]))
def test_read_points_matches_oracle(case, npoints, nthreads, tmp_path):
    a, data, rng = make(case, tmp_path)
    coords = tuple(rng.integers(0, n, npoints) for n in a.shape)
    cc, offsets, in_chunk, out_index = point_plan(coords, a.shape, a.chunks)
    out = np.full(npoints, 99, dtype=a.dtype)
    kw = {}
    target = native_target(a._prep)
    if target is not None:
        prefix, root_len, kind, sep = target
        kw = dict(path_prefix=prefix, root_len=root_len, key_kind=kind, sep=sep)
    else:
        kw = dict(sources=a.store.get_values([a._chunk_key(c) for c in cc]))
    status, err, code, msg = a._engine.read_points(out, cc, offsets, in_chunk, out_index,
                                                   nthreads=nthreads, **kw)
    assert code == 0, msg
    assert ((status == DONE) | (status == FALLBACK)).all()
    want = np.full(npoints, 99, dtype=a.dtype)
    read_points_oracle(data, a.chunks, cc, offsets, in_chunk, out_index, want)
    done = np.zeros(npoints, bool)
    for k in np.flatnonzero(status == DONE):
        done[out_index[offsets[k]:offsets[k + 1]]] = True
    assert (status == DONE).all()  # every chain here is native
    np.testing.assert_array_equal(out[done], want[done])
    # and end to end (fallbacks included) against numpy
    with zarrhpc.config.set(threads=nthreads):
        np.testing.assert_array_equal(a.vindex[coords], data[coords])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=arrays(), nthreads=st.sampled_from([1, 4]), data_st=st.data())
def test_read_orthogonal_matches_oracle(case, nthreads, data_st, tmp_path):
    a, data, rng = make(case, tmp_path)
    indices = []
    for n in a.shape:
        kind = data_st.draw(st.sampled_from(["random", "run", "empty"]))
        if kind == "random":
            indices.append(rng.integers(0, n, rng.integers(1, 7)))
        elif kind == "run":
            lo = int(rng.integers(0, n))
            indices.append(np.arange(lo, int(rng.integers(lo + 1, n + 1))))
        else:
            indices.append(np.zeros(0, np.int64))
    dims = ortho_plan(indices, a.shape, a.chunks)
    full = np.full([len(i) for i in indices], 99, dtype=a.dtype)
    want = full.copy()
    read_orthogonal_oracle(data, a.chunks, dims, want)
    target = native_target(a._prep)
    if target is not None:
        prefix, root_len, kind, sep = target
        kw = dict(path_prefix=prefix, root_len=root_len, key_kind=kind, sep=sep)
    else:
        keys = [a._chunk_key(c) for c in itertools.product(*[d[0] for d in dims])]
        kw = dict(sources=a.store.get_values(keys))
    status, err, code, msg = a._engine.read_orthogonal(full, ortho_tables(dims), nthreads=nthreads, **kw)
    assert code == 0, msg
    assert (status == DONE).all()
    np.testing.assert_array_equal(full, want)
    with zarrhpc.config.set(threads=nthreads):
        np.testing.assert_array_equal(a.oindex[tuple(indices)], data[np.ix_(*indices)])


def test_orthogonal_into_a_strided_result(tmp_path):
    """The result may be any strided view (here a transposed one)."""
    a = zarrhpc.create_array(str(tmp_path / "a"), shape=(20, 30), chunks=(8, 8), dtype="f8",
                             compressors=None)
    data = np.arange(600, dtype="f8").reshape(20, 30)
    a[...] = data
    idx = (np.array([3, 1, 19, 1]), np.arange(5, 25))
    dims = ortho_plan(idx, a.shape, a.chunks)
    full = np.zeros((20, 4)).T
    prefix, root_len, kind, sep = native_target(a._prep)
    status, _, code, msg = a._engine.read_orthogonal(full, ortho_tables(dims), path_prefix=prefix,
                                                     root_len=root_len, key_kind=kind, sep=sep)
    assert code == 0 and (status == DONE).all()
    np.testing.assert_array_equal(full, data[np.ix_(*idx)])


@pytest.mark.parametrize("comp", ["none", "zstd", "blosc"])
@pytest.mark.parametrize("where", ["dir", "memory"])
def test_corrupt_chunk_names_the_key(comp, where, tmp_path):
    store = str(tmp_path / "a") if where == "dir" else f"memory://corrupt-{comp}"
    a = zarrhpc.create_array(store, shape=(16, 16), chunks=(8, 8), dtype="f4",
                             compressors=COMPRESSORS[comp], overwrite=True)
    a[...] = np.ones((16, 16), "f4")
    a.store.set("c/1/0", b"\x02\x01garbage-bytes-not-a-chunk")
    coords = (np.array([1, 9, 12]), np.array([2, 3, 4]))
    cc, offsets, in_chunk, out_index = point_plan(coords, a.shape, a.chunks)
    out = np.zeros(3, "f4")
    kw = dict(sources=a.store.get_values([a._chunk_key(c) for c in cc]))
    status, err, code, msg = a._engine.read_points(out, cc, offsets, in_chunk, out_index, **kw)
    assert code == 0
    assert list(status) == [DONE, FALLBACK]  # the engine hands the bad chunk to Python
    with pytest.raises(CorruptChunkError, match="c/1/0"):
        a.vindex[coords]
    with pytest.raises(CorruptChunkError, match="c/1/0"):
        a.oindex[coords]


def test_bad_indices_are_errors_not_crashes(tmp_path):
    a = zarrhpc.create_array(str(tmp_path / "a"), shape=(16,), chunks=(8,), dtype="f4",
                             compressors=None)
    a[...] = np.arange(16, dtype="f4")
    prefix, root_len, kind, sep = native_target(a._prep)
    kw = dict(path_prefix=prefix, root_len=root_len, key_kind=kind, sep=sep)
    out = np.zeros(2, "f4")
    for in_chunk, out_index in [([[8], [0]], [0, 1]), ([[-1], [0]], [0, 1]),
                                ([[0], [1]], [0, 2]), ([[0], [1]], [-1, 0])]:
        _, err, code, msg = a._engine.read_points(out, [[0]], [0, 2], in_chunk, out_index, **kw)
        assert code == 3 and err == 0, msg  # ZH_ERR_BOUNDS
    _, _, code, _ = a._engine.read_points(out, [[0]], [0, 5], [[0], [1]], [0, 1], **kw)
    assert code == 3
    with pytest.raises(ValueError):
        a._engine.read_points(out, [[0]], [0, 2, 3], [[0], [1]], [0, 1], **kw)
    full = np.zeros(2, "f4")
    _, _, code, _ = a._engine.read_orthogonal(full, ([1], [0], [0, 2], [0, 9], [0, 1]), **kw)
    assert code == 3
    _, _, code, _ = a._engine.read_orthogonal(full, ([1], [0], [0, 2], [0, 1], [0, 2]), **kw)
    assert code == 3
    _, _, code, _ = a._engine.read_orthogonal(full, ([1], [0], [0, 3], [0, 1], [0, 1]), **kw)
    assert code == 3
    _, _, code, _ = a._engine.read_orthogonal(full, ([1], [0], [1, 0], [0, 1], [0, 1]), **kw)
    assert code == 3
    with pytest.raises(ValueError):
        a._engine.read_orthogonal(full, ([1], [0], [0, 1, 2], [0, 1], [0, 1]), **kw)


def _rchar() -> int:
    with open("/proc/self/io") as f:
        for line in f:
            if line.startswith("rchar:"):
                return int(line.split()[1])
    raise AssertionError("no rchar")


@pytest.mark.skipif(not os.path.exists("/proc/self/io"), reason="needs /proc/self/io")
@pytest.mark.parametrize("comp", ["none", "blosc"])
def test_few_points_in_a_large_chunk_read_few_bytes(comp, tmp_path):
    """5 points of a 16 MiB chunk: the engine reads a few pages, not the chunk."""
    n = 256
    a = zarrhpc.create_array(str(tmp_path / "a"), shape=(n, n, 64), chunks=(n, n, 64),
                             dtype="f4", compressors=COMPRESSORS[comp] if comp == "none" else
                             [{"name": "blosc", "configuration": {
                                 "cname": "lz4", "clevel": 1, "shuffle": "noshuffle",
                                 "blocksize": 65536}}])
    data = np.random.default_rng(0).standard_normal(a.shape).astype("f4")  # incompressible
    a[...] = data
    coords = tuple(np.random.default_rng(1).integers(0, s, 5) for s in a.shape)
    a.vindex[coords]  # warm up (imports, thread contexts)
    before = _rchar()
    got = a.vindex[coords]
    read = _rchar() - before
    np.testing.assert_array_equal(got, data[coords])
    assert read < 1 << 20, read  # the chunk is 16 MiB
    idx = (np.array([3, 200]), np.array([7, 8]), np.array([1, 60]))
    before = _rchar()
    got = a.oindex[idx]
    read = _rchar() - before
    np.testing.assert_array_equal(got, data[np.ix_(*idx)])
    assert read < 1 << 20, read


@pytest.fixture(scope="module")
def big_array(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("big") / "a")
    a = zarrhpc.create_array(path, shape=(256, 256, 128), chunks=(64, 64, 64), dtype="f4",
                             compressors=COMPRESSORS["zstd"])
    a[...] = np.random.default_rng(0).standard_normal(a.shape).astype("f4")
    return a


def test_read_points_releases_the_gil(big_array):
    from zarrhpc.testing.gil import progress_during

    a = big_array
    coords = tuple(np.random.default_rng(2).integers(0, n, 200_000) for n in a.shape)
    cc, offsets, in_chunk, out_index = point_plan(coords, a.shape, a.chunks)
    out = np.empty(len(out_index), "f4")
    prefix, root_len, kind, sep = native_target(a._prep)

    def call():
        a._engine.read_points(out, cc, offsets, in_chunk, out_index, path_prefix=prefix,
                              root_len=root_len, key_kind=kind, sep=sep)

    assert progress_during(call, repeats=3) > 0


def test_read_orthogonal_releases_the_gil(big_array):
    from zarrhpc.testing.gil import progress_during

    a = big_array
    dims = ortho_plan([np.arange(0, n, 2) for n in a.shape], a.shape, a.chunks)
    full = np.empty([len(d[2]) for d in dims], "f4")
    tables = ortho_tables(dims)
    prefix, root_len, kind, sep = native_target(a._prep)

    def call():
        a._engine.read_orthogonal(full, tables, path_prefix=prefix, root_len=root_len,
                                  key_kind=kind, sep=sep)

    assert progress_during(call, repeats=3) > 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=arrays(), nthreads=st.sampled_from([1, 4]), data_st=st.data())
def test_read_small_matches_numpy(case, nthreads, data_st, tmp_path):
    """The lean path of small basic reads: ints and step-1 slices, any geometry."""
    case = (*case[:5], "dir", case[6])
    a, data, rng = make(case, tmp_path)
    sel = []
    for n in a.shape:
        lo = data_st.draw(st.integers(-n, n - 1))
        if data_st.draw(st.booleans()):
            sel.append(lo)
        else:
            hi = data_st.draw(st.integers(lo % n + 1, n))
            sel.append(slice(lo % n - (n if lo < 0 else 0), hi))
    sel = tuple(sel)
    got = a._engine.read_small(sel, a.shape, a.dtype, *native_target(a._prep), nthreads=nthreads)
    want = data[sel]
    if all(isinstance(s, int) for s in sel):
        assert got is None  # single elements take read_point
    else:
        assert got is not None
        assert got.dtype == a.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(a[sel], want)


def test_read_small_declines_what_it_does_not_do(tmp_path):
    a = zarrhpc.create_array(str(tmp_path / "a"), shape=(20, 20), chunks=(8, 8), dtype="f4",
                             compressors=None)
    a[...] = np.arange(400, dtype="f4").reshape(20, 20)
    target = native_target(a._prep)
    for sel in [(slice(0, 10, 2), 1), (Ellipsis, 1), (slice(0, 5),), (20, slice(None)),
                (slice(5, 5), slice(None)), ([1, 2], slice(None))]:
        assert a._engine.read_small(sel, a.shape, a.dtype, *target) is None, sel
    assert a._engine.read_small((slice(None), slice(None)), a.shape, a.dtype, *target,
                                max_items=100) is None
    a.store.set("c/0/0", b"short")  # corrupt: the general path raises the error
    assert a._engine.read_small((slice(0, 2), 1), a.shape, a.dtype, *target) is None
    with pytest.raises(CorruptChunkError, match="c/0/0"):
        a[0:2, 1]

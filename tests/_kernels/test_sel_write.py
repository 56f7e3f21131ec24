"""The engine's point and mask writes (Engine.write_points / write_mask, csrc/zh_sel_write.c,
core/_select.write_points / write_mask) against numpy: random shapes (edge chunks, 1-D to
4-D), dtypes and byte orders, codecs, v2/v3, C and F order, densities from none to all,
scalars and arrays, repeated points, write_empty_chunks both ways, missing chunks; the
files left (erased chunks, no temporary files) and zarr-python's read of what was written;
a corrupt stored chunk and bad engine input refused."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.codecs.native import FALLBACK
from zarrhpc.core import _select
from zarrhpc.errors import CorruptChunkError

COMPRESSORS = {
    "none": None,
    "blosc": [{"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                                                  "shuffle": "shuffle"}}],
    "zstd": [{"name": "zstd", "configuration": {"level": 1}}],
}
V2_COMPRESSORS = {"none": None, "blosc": {"id": "blosc", "cname": "lz4", "clevel": 5,
                                          "shuffle": 1},
                  "zstd": {"id": "zstd", "level": 1}}


def _stored_files(root):
    out = []
    for d, _, files in os.walk(root):
        out += [os.path.join(d, f) for f in files]
    return out


def _make(path, shape, chunks, dtype, comp, fmt, order, wec, fill=3):
    kwargs = dict(shape=shape, chunks=chunks, dtype=dtype, fill_value=fill, overwrite=True,
                  zarr_format=fmt, config={"write_empty_chunks": wec})
    if fmt == 2:
        kwargs["order"] = order  # (v3: a warning, as zarr-python's)
    kwargs["compressors"] = (V2_COMPRESSORS if fmt == 2 else COMPRESSORS)[comp]
    return zarrhpc.create_array(path, **kwargs)


@st.composite
def cases(draw):
    ndim = draw(st.integers(1, 4))
    shape = tuple(draw(st.integers(1, 12 if ndim < 3 else 7)) for _ in range(ndim - 1))
    shape += (draw(st.integers(1, 150)),)
    chunks = tuple(draw(st.integers(1, 5)) for _ in range(ndim - 1))
    chunks += (draw(st.integers(8, 80)),)
    dtype = draw(st.sampled_from(["<f4", ">f8", "u1", "<i2", ">i4"]))
    comp = draw(st.sampled_from(sorted(COMPRESSORS)))
    fmt = draw(st.sampled_from([2, 3]))
    order = draw(st.sampled_from(["C", "F"])) if fmt == 2 else "C"
    density = draw(st.sampled_from([0.0, 0.01, 0.2, 0.9, 1.0]))
    scalar = draw(st.booleans())
    wec = draw(st.booleans())
    seed = draw(st.integers(0, 2**32 - 1))
    return shape, chunks, np.dtype(dtype), comp, fmt, order, density, scalar, wec, seed


@settings(max_examples=70, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=cases())
def test_mask_write_matches_numpy(tmp_path, python_writes, case):
    shape, chunks, dtype, comp, fmt, order, density, scalar, wec, seed = case
    rng = np.random.default_rng(seed)
    path = str(tmp_path / f"m{seed}")
    a = _make(path, shape, chunks, dtype, comp, fmt, order, wec)
    data = (rng.standard_normal(shape) * 50).astype(dtype)
    # the first half of the first axis stored, the rest missing (the fill value)
    half = tuple([slice(0, max(1, shape[0] // 2))] + [slice(None)] * (len(shape) - 1))
    ref = np.full(shape, 3, dtype=dtype)
    a[half] = ref[half] = data[half]
    mask = rng.random(shape) < density
    value = dtype.type(3) if scalar and seed % 2 else (
        dtype.type(7) if scalar else (rng.standard_normal(int(mask.sum())) * 9).astype(dtype))
    del python_writes[:]
    a.vindex[mask] = value
    ref[mask] = value
    assert python_writes == []  # the engine wrote every chunk
    np.testing.assert_array_equal(a[...], ref)
    files = _stored_files(path)
    assert not [f for f in files if ".tmp" in os.path.basename(f) or "zarrhpc" in os.path.basename(f)
                and not f.endswith((".zarray", ".zattrs", "zarr.json"))]
    # a chunk equal to the fill value is not stored unless write_empty_chunks
    b = zarrhpc.open_array(path, mode="r")
    grid = [-(-s // c) for s, c in zip(shape, chunks)]
    for coords in np.ndindex(*grid):
        region = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(coords, chunks, shape))
        key = path + "/" + b._prep.chunk_key(coords)
        touched = mask[region].any()
        stored_before = coords[0] * chunks[0] < half[0].stop
        if not wec and touched and (ref[region] == 3).all():
            assert not os.path.exists(key), key
        if touched and not (not wec and (ref[region] == 3).all()):
            assert os.path.exists(key), key
        if not touched and not stored_before:
            assert not os.path.exists(key), key


@st.composite
def point_cases(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 40)) for _ in range(ndim))
    chunks = tuple(draw(st.integers(1, 12)) for _ in range(ndim))
    dtype = draw(st.sampled_from(["<f4", ">f8", "u1", ">i4"]))
    comp = draw(st.sampled_from(sorted(COMPRESSORS)))
    fmt = draw(st.sampled_from([2, 3]))
    order = draw(st.sampled_from(["C", "F"])) if fmt == 2 else "C"
    npoints = draw(st.integers(0, 300))
    scalar = draw(st.booleans())
    wec = draw(st.booleans())
    seed = draw(st.integers(0, 2**32 - 1))
    return shape, chunks, np.dtype(dtype), comp, fmt, order, npoints, scalar, wec, seed


@settings(max_examples=70, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=point_cases())
def test_point_write_matches_numpy(tmp_path, python_writes, case):
    shape, chunks, dtype, comp, fmt, order, npoints, scalar, wec, seed = case
    rng = np.random.default_rng(seed)
    path = str(tmp_path / f"p{seed}")
    a = _make(path, shape, chunks, dtype, comp, fmt, order, wec)
    ref = np.full(shape, 3, dtype=dtype)
    data = (rng.standard_normal(shape) * 50).astype(dtype)
    a[...] = ref[...] = data
    # unsorted, repeated (last value wins, as numpy's assignment), negative indices
    idx = tuple(rng.integers(-s, s, npoints) for s in shape)
    value = dtype.type(5) if scalar else (rng.standard_normal(npoints) * 9).astype(dtype)
    del python_writes[:]
    a.vindex[idx] = value
    ref[idx] = value
    assert python_writes == []
    np.testing.assert_array_equal(a[...], ref)


def test_points_2d_value_shape_and_zarr_python_reads(tmp_path):
    zarr = pytest.importorskip("zarr")
    path = str(tmp_path / "a")
    a = zarrhpc.create_array(path, shape=(50, 70), chunks=(16, 16), dtype="<f8",
                             compressors=COMPRESSORS["blosc"], fill_value=0)
    ref = np.zeros((50, 70))
    rows = np.array([[1, 2, 49], [30, 30, 0]])
    cols = np.array([[0, 69, 5], [7, 7, 68]])  # (30, 7) twice: the last value stays
    v = np.arange(6, dtype="<f8").reshape(2, 3) + 1
    a.vindex[rows, cols] = v
    ref[rows, cols] = v
    mask = np.zeros((50, 70), bool)
    mask[::7, ::3] = True
    a.vindex[mask] = -2.5
    ref[mask] = -2.5
    np.testing.assert_array_equal(a[...], ref)
    np.testing.assert_array_equal(zarr.open_array(path, mode="r")[...], ref)
    a.set_mask_selection(mask, 0.0)  # back to the fill value: chunks erased
    ref[mask] = 0
    a.vindex[rows, cols] = 0.0
    assert _stored_files(path) == [os.path.join(path, "zarr.json")]


def test_sharded_mask_and_point_writes(tmp_path):
    """Sharded arrays (the engine's shard task, tests/_kernels/test_shard_sel_write.py):
    same results."""
    path = str(tmp_path / "s")
    a = zarrhpc.create_array(path, shape=(40, 45), chunks=(10, 16), shards=(20, 32),
                             dtype="<i4", fill_value=-1)
    ref = np.full((40, 45), -1, dtype="<i4")
    rng = np.random.default_rng(3)
    mask = rng.random(ref.shape) < 0.1
    a.vindex[mask] = 9
    ref[mask] = 9
    idx = (rng.integers(0, 40, 50), rng.integers(0, 45, 50))
    a.vindex[idx] = np.arange(50, dtype="<i4")
    ref[idx] = np.arange(50, dtype="<i4")
    np.testing.assert_array_equal(a[...], ref)


def test_corrupt_stored_chunk_is_refused(tmp_path):
    path = str(tmp_path / "c")
    a = zarrhpc.create_array(path, shape=(32, 32), chunks=(16, 16), dtype="<f4",
                             compressors=COMPRESSORS["blosc"], fill_value=0)
    a[...] = 1.0
    with open(os.path.join(path, "c", "0", "0"), "wb") as f:
        f.write(b"\x02\x01garbage that is not blosc")
    mask = np.zeros((32, 32), bool)
    mask[1, 1] = mask[20, 20] = True
    with pytest.raises(CorruptChunkError, match="c/0/0"):
        a.vindex[mask] = 5.0
    with pytest.raises(CorruptChunkError, match="c/0/0"):
        a.vindex[[1, 20], [1, 20]] = 5.0
    # the other chunk: written by the engine before the error or untouched, never wrong
    assert a[20, 20] in (1.0, 5.0)


def test_uncompressed_chunk_of_wrong_size_is_refused(tmp_path):
    path = str(tmp_path / "u")
    a = zarrhpc.create_array(path, shape=(16, 16), chunks=(16, 16), dtype="<f4",
                             compressors=None, fill_value=0)
    a[...] = 1.0
    with open(os.path.join(path, "c", "0", "0"), "wb") as f:
        f.write(b"\x00" * 100)
    with pytest.raises(CorruptChunkError):
        a.vindex[np.eye(16, dtype=bool)] = 2.0
    with pytest.raises(CorruptChunkError):
        a.vindex[[0, 3], [5, 6]] = 2.0


def test_engine_refuses_values_of_the_wrong_size(tmp_path):
    path = str(tmp_path / "e")
    a = zarrhpc.create_array(path, shape=(16, 16), chunks=(8, 8), dtype="<f4",
                             compressors=None, fill_value=0)
    prep = a._prep
    prefix, root_len, kind, sep = prep.native_target()
    mask = np.zeros((16, 16), bool)
    mask[0, :3] = True
    rank, bits = prep.engine.mask_ranks(mask, prep.shape)
    with pytest.raises(ValueError, match="expected 3 values or one"):
        prep.engine.write_mask(np.zeros(2, "<f4"), prep.shape, rank, bits,
                               path_prefix=prefix, root_len=root_len)
    with pytest.raises(ValueError, match="itemsize"):
        prep.engine.write_mask(np.zeros(3, "<f8"), prep.shape, rank, bits,
                               path_prefix=prefix, root_len=root_len)
    with pytest.raises(ValueError, match="expected 2 values or one"):
        prep.engine.write_points(np.zeros(3, "<f4"), [[0, 0]], [0, 2], [[0, 0], [1, 1]],
                                 [0, 1], prep.shape, path_prefix=prefix, root_len=root_len)
    # a point outside its chunk, or its value out of range: refused before memory is used
    status, task, code, msg = prep.engine.write_points(
        np.zeros(2, "<f4"), [[0, 0]], [0, 2], [[0, 0], [8, 1]], [0, 1], prep.shape,
        path_prefix=prefix, root_len=root_len)
    assert code and "outside its chunk" in msg
    status, task, code, msg = prep.engine.write_points(
        np.zeros(2, "<f4"), [[0, 0]], [0, 2], [[0, 0], [1, 1]], [0, 2], prep.shape,
        path_prefix=prefix, root_len=root_len)
    assert code and "out of range" in msg
    assert _stored_files(path) == [os.path.join(path, "zarr.json")]


def test_write_empty_chunks_keeps_fill_chunks(tmp_path):
    path = str(tmp_path / "w")
    a = zarrhpc.create_array(path, shape=(20, 20), chunks=(10, 10), dtype="u1",
                             compressors=None, fill_value=0,
                             config={"write_empty_chunks": True})
    mask = np.zeros((20, 20), bool)
    mask[0, 0] = mask[15, 15] = True
    a.vindex[mask] = 0
    assert sorted(os.path.relpath(f, path) for f in _stored_files(path)) == [
        "c/0/0", "c/1/1", "zarr.json"]
    np.testing.assert_array_equal(a[...], np.zeros((20, 20), "u1"))


@st.composite
def ortho_cases(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 30)) for _ in range(ndim))
    chunks = tuple(draw(st.integers(1, 10)) for _ in range(ndim))
    dtype = draw(st.sampled_from(["<f4", ">f8", "u1", ">i4"]))
    comp = draw(st.sampled_from(sorted(COMPRESSORS)))
    fmt = draw(st.sampled_from([2, 3]))
    order = draw(st.sampled_from(["C", "F"])) if fmt == 2 else "C"
    kinds = tuple(draw(st.sampled_from(["ints", "slice", "bool", "all"])) for _ in range(ndim))
    value_kind = draw(st.sampled_from(["array", "scalar", "row"]))
    wec = draw(st.booleans())
    seed = draw(st.integers(0, 2**32 - 1))
    return shape, chunks, np.dtype(dtype), comp, fmt, order, kinds, value_kind, wec, seed


@settings(max_examples=70, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=ortho_cases())
def test_orthogonal_write_matches_numpy(tmp_path, python_writes, case):
    shape, chunks, dtype, comp, fmt, order, kinds, value_kind, wec, seed = case
    rng = np.random.default_rng(seed)
    path = str(tmp_path / f"o{seed}")
    a = _make(path, shape, chunks, dtype, comp, fmt, order, wec)
    data = (rng.standard_normal(shape) * 50).astype(dtype)
    a[...] = data
    ref = data.copy()
    sel, lists = [], []
    for n, kind in zip(shape, kinds):
        if kind == "ints":  # unsorted, repeated (the last value wins), negative
            idx = rng.integers(-n, n, int(rng.integers(1, 2 * n + 1)))
            sel.append(idx)
            lists.append(np.where(idx < 0, idx + n, idx))
        elif kind == "slice":
            lo, hi = sorted(rng.integers(0, n + 1, 2))
            step = int(rng.integers(1, 4))
            sel.append(slice(int(lo), int(hi), step))
            lists.append(np.arange(lo, hi, step))
        elif kind == "bool":
            b = rng.random(n) < 0.5
            sel.append(b)
            lists.append(np.flatnonzero(b))
        else:
            sel.append(slice(None))
            lists.append(np.arange(n))
    out_shape = tuple(len(x) for x in lists)
    if value_kind == "scalar":
        value = dtype.type(3)  # the fill value: chunks may come back all fill
    elif value_kind == "row":  # broadcast along all but the last dimension
        value = (rng.standard_normal(out_shape[-1]) * 9).astype(dtype)
    else:
        value = (rng.standard_normal(out_shape) * 9).astype(dtype)
    del python_writes[:]
    a.oindex[tuple(sel)] = value
    ref[np.ix_(*lists)] = value
    if not all(isinstance(s, slice) for s in sel):
        assert python_writes == []  # the engine wrote every chunk
    np.testing.assert_array_equal(a[...], ref)
    np.testing.assert_array_equal(a.oindex[tuple(sel)], ref[np.ix_(*lists)])


def test_orthogonal_write_with_an_integer_and_zarr_python_reads(tmp_path):
    zarr = pytest.importorskip("zarr")
    path = str(tmp_path / "o")
    a = zarrhpc.create_array(path, shape=(20, 30, 40), chunks=(8, 8, 16), dtype="<i8",
                             compressors=COMPRESSORS["zstd"], fill_value=0)
    ref = np.zeros((20, 30, 40), "<i8")
    rows, cols = np.array([19, 0, 7, 7]), np.array([29, 3])
    v = np.arange(8, dtype="<i8").reshape(4, 2) + 1
    a.oindex[rows, cols, 5] = v
    ref[np.ix_(rows, cols, [5])] = v[:, :, None]
    a.set_orthogonal_selection((slice(None), [1, 2], slice(30, None)), 4)
    ref[:, 1:3, 30:] = 4
    np.testing.assert_array_equal(a[...], ref)
    np.testing.assert_array_equal(zarr.open_array(path, mode="r")[...], ref)


@pytest.mark.parametrize("kind", ["mask", "points", "ortho"])
def test_chunks_handed_back_are_written_by_python(tmp_path, monkeypatch, kind):
    """Chunks the engine hands back (FALLBACK) are written by the Python path, and only
    those: here every other chunk is marked handed back and its old bytes put back."""
    path = str(tmp_path / kind)
    a = zarrhpc.create_array(path, shape=(30, 40), chunks=(8, 16), dtype="<f4",
                             compressors=COMPRESSORS["blosc"], fill_value=0)
    rng = np.random.default_rng(7)
    data = rng.random((30, 40), dtype=np.float32)
    a[...] = data
    ref = data.copy()
    real = _select._native_write

    def hands_back(prep, method, *args, key):
        status = real(prep, method, *args, key=key)
        status[np.arange(len(status)) % 2 == 1] = FALLBACK
        coords = _coords_of(method, args, (4, 3))
        b = zarrhpc.open_array(path, mode="r+")
        for t in np.flatnonzero(status == FALLBACK):
            c = coords[t]
            region = (slice(c[0] * 8, c[0] * 8 + 8), slice(c[1] * 16, c[1] * 16 + 16))
            b[region] = data[region]
        return status

    monkeypatch.setattr(_select, "_native_write", hands_back)
    if kind == "mask":
        m = rng.random((30, 40)) < 0.3
        v = rng.random(int(m.sum()), dtype=np.float32)
        a.vindex[m] = v
        ref[m] = v
    elif kind == "points":
        idx = (rng.integers(0, 30, 200), rng.integers(0, 40, 200))
        v = rng.random(200, dtype=np.float32)
        a.vindex[idx] = v
        ref[idx] = v
    else:
        idx = (rng.choice(30, 12, replace=False), rng.choice(40, 25, replace=False))
        v = rng.random((12, 25), dtype=np.float32)
        a.oindex[idx] = v
        ref[np.ix_(*idx)] = v
    np.testing.assert_array_equal(a[...], ref)


def _coords_of(method, args, grid):
    """The chunk coordinates of each task of an engine selection write call."""
    if method == "write_mask":
        return [np.unravel_index(t, grid) for t in range(int(np.prod(grid)))]
    if method == "write_points":
        return [tuple(c) for c in args[1]]
    nch, chunks = args[1][0], args[1][1]
    rows, cols = chunks[:nch[0]], chunks[nch[0]:]
    return [(r, c) for r in rows for c in cols]

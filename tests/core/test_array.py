"""Arrays end to end: indexing against numpy, fill values, edge chunks, attrs, modes."""

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc.errors import (
    ArrayNotFoundError,
    ContainsArrayError,
    CorruptChunkError,
    ReadOnlyError,
    SelectionError,
)
from zarrhpc.testing.strategies import basic_selections, shapes_and_chunks

CODECS = {
    "none": dict(compressors=None),
    "gzip": dict(compressors={"name": "gzip", "configuration": {"level": 1}}),
    "zstd": dict(compressors={"name": "zstd", "configuration": {"level": 1, "checksum": False}}),
    "blosc": dict(compressors={"name": "blosc", "configuration": {
        "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}}),
    "transpose-big": dict(filters=[{"name": "transpose", "configuration": {"order": [1, 0]}}],
                          serializer={"name": "bytes", "configuration": {"endian": "big"}},
                          compressors=[{"name": "crc32c"}]),
}


@pytest.fixture(params=["memory", "local"])
def store(request, tmp_path):
    if request.param == "memory":
        return zarrhpc.MemoryStore()
    return zarrhpc.LocalStore(tmp_path / "data.zarr")


@pytest.mark.parametrize("codecs", sorted(CODECS))
def test_write_read_roundtrip(store, codecs):
    data = np.arange(17 * 13, dtype="f4").reshape(17, 13) - 100.5
    a = zarrhpc.create_array(store, name="x", shape=data.shape, chunks=(5, 4), dtype="f4",
                             **CODECS[codecs])
    a[...] = data
    b = zarrhpc.open_array(store, path="x")
    np.testing.assert_array_equal(b[...], data)
    np.testing.assert_array_equal(b[3:11:3, ::-2], data[3:11:3, ::-2])
    assert b[16, 12] == data[16, 12]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(geom=shapes_and_chunks(), data=st.data(),
       dtype=st.sampled_from(["u1", "i2", "f4", "f8", "c8", "?"]))
def test_basic_selection_matches_numpy(geom, data, dtype):
    shape, chunks = geom
    store = zarrhpc.MemoryStore()
    a = zarrhpc.create_array(store, shape=shape, chunks=chunks, dtype=dtype, fill_value=0)
    expected = np.zeros(shape, dtype=dtype)
    for _ in range(3):
        sel = data.draw(basic_selections(shape), label="write selection")
        target = expected[sel]
        seed = data.draw(st.integers(0, 2**32 - 1), label="value seed")
        value = np.random.default_rng(seed).integers(0, 100, size=np.shape(target)).astype(dtype)
        expected[sel] = value
        a[sel] = value
        read_sel = data.draw(basic_selections(shape), label="read selection")
        got = a[read_sel]
        want = expected[read_sel]
        assert np.shape(got) == np.shape(want)
        np.testing.assert_array_equal(got, want)
        assert isinstance(got, np.ndarray) == _zarr_python_gives_array(read_sel, len(shape),
                                                                       want)
    np.testing.assert_array_equal(a[...], expected)


def _zarr_python_gives_array(sel, ndim, want) -> bool:
    """The result type of zarr-python's ``a[sel]`` (the drop-in's): ints and slices
    without an Ellipsis on a >0-d array go to its orthogonal path, always an ndarray
    (0-d for all ints, where numpy gives a scalar); the rest to its basic path, an
    ndarray unless the result is 0-d (a scalar, where numpy's ``a[...]`` is 0-d)."""
    items = sel if isinstance(sel, tuple) else (sel,)
    if ndim and all(type(s) in (int, slice) for s in items):
        return True
    return np.ndim(want) > 0


def test_scalar_broadcast_write_and_negative_steps(store):
    a = zarrhpc.create_array(store, shape=(10, 10), chunks=(3, 4), dtype="i4", fill_value=-1)
    ref = np.full((10, 10), -1, "i4")
    a[::-3, 1:9:2] = 7
    ref[::-3, 1:9:2] = 7
    a[2, :] = np.arange(10)
    ref[2, :] = np.arange(10)
    np.testing.assert_array_equal(a[...], ref)
    np.testing.assert_array_equal(a[::-1, ::-1], ref[::-1, ::-1])


def test_missing_chunks_read_as_fill_value(store):
    a = zarrhpc.create_array(store, shape=(8, 8), chunks=(4, 4), dtype="f8", fill_value=np.nan)
    a[:4, :4] = 1.0
    got = a[...]
    assert np.all(got[:4, :4] == 1.0)
    assert np.isnan(got[4:, :]).all() and np.isnan(got[:, 4:]).all()
    assert a.nchunks_initialized == 1


def test_fill_value_chunks_not_stored(store):
    a = zarrhpc.create_array(store, name="a", shape=(8,), chunks=(4,), dtype="f4", fill_value=0)
    a[:] = np.array([0, 0, 0, 0, 1, 0, 0, 0], "f4")
    assert not store.exists("a/c/0") and store.exists("a/c/1")
    a[4] = 0  # the chunk becomes all fill value: it is erased
    assert not store.exists("a/c/1")
    a[:] = -0.0  # bitwise different from +0.0: must be kept
    assert store.exists("a/c/0")
    assert np.signbit(a[...]).all()


def test_write_empty_chunks_true_stores_them(store):
    a = zarrhpc.create_array(store, name="a", shape=(8,), chunks=(4,), dtype="i2",
                             write_empty_chunks=True)
    a[:] = 0
    assert store.exists("a/c/0") and store.exists("a/c/1")


def test_edge_chunks_are_stored_full_size(store):
    a = zarrhpc.create_array(store, name="a", shape=(5, 3), chunks=(4, 2), dtype="u2",
                             compressors=None, fill_value=9)
    a[...] = np.arange(15, dtype="u2").reshape(5, 3)
    raw = store.get("a/c/1/1")
    assert len(bytes(raw)) == 4 * 2 * 2  # full chunk shape, not the overhang
    chunk = np.frombuffer(bytes(raw), "<u2").reshape(4, 2)
    assert chunk[0, 0] == 14 and (chunk[1:] == 9).all() and (chunk[:, 1] == 9).all()


def test_zero_d_array(store):
    a = zarrhpc.create_array(store, name="s", shape=(), chunks=(), dtype="c16", fill_value=1 + 2j)
    assert a[()] == 1 + 2j
    a[()] = 3 - 4j
    assert zarrhpc.open_array(store, path="s")[...] == 3 - 4j
    assert store.exists("s/c")


def test_attrs_roundtrip_and_write_through(store):
    a = zarrhpc.create_array(store, name="a", shape=(2,), chunks=(2,), dtype="i1",
                             attributes={"units": "m"})
    a.attrs["long_name"] = "height"
    a.attrs.update(scale=2.5, tags=["x", "y"])
    del a.attrs["units"]
    doc = json.loads(bytes(store.get("a/zarr.json")))
    assert doc["attributes"] == {"long_name": "height", "scale": 2.5, "tags": ["x", "y"]}
    assert dict(zarrhpc.open_array(store, path="a").attrs) == doc["attributes"]
    a.attrs["nan"] = float("nan")  # as zarr-python takes it, stored as the spec's string
    assert json.loads(bytes(store.get("a/zarr.json")))["attributes"]["nan"] == "NaN"
    with pytest.raises(ValueError, match="attributes"):
        a.attrs["bad"] = object()


def test_info_and_properties(store):
    a = zarrhpc.create_array(store, name="g/a", shape=(100, 50), chunks=(10, 10), dtype="f4",
                             dimension_names=("y", "x"))
    text = repr(a.info)
    assert "Shape" in text and "(100, 50)" in text and "Float32(endianness='little')" in text
    assert a.nchunks == 50 and a.ndim == 2 and a.nbytes == 20000 and a.size == 5000
    assert a.path == "g/a" and a.name == "/g/a" and a.basename == "a"
    assert a.dimension_names == ("y", "x") and a.shards is None and a.zarr_format == 3


def test_read_into_out_buffer(store):
    a = zarrhpc.create_array(store, shape=(6, 6), chunks=(4, 4), dtype="i8")
    a[...] = np.arange(36).reshape(6, 6)
    out = np.empty((3, 6), "i8")
    res = a.read((slice(1, 4), slice(None)), out=out)
    assert res is out
    np.testing.assert_array_equal(out, np.arange(36).reshape(6, 6)[1:4])
    with pytest.raises(SelectionError):
        a.read(Ellipsis, out=np.empty((2, 2), "i8"))


def test_out_of_bounds_and_fancy_index_errors(store):
    a = zarrhpc.create_array(store, shape=(4,), chunks=(2,), dtype="i4")
    with pytest.raises(IndexError, match="index out of bounds for dimension with length 4"):
        a[4]
    with pytest.raises(IndexError):
        a[0, 0]
    a[:] = [5, 6, 7, 8]
    np.testing.assert_array_equal(a[[3, 0]], [8, 5])  # fancy: a coordinate selection
    with pytest.raises(IndexError, match="unsupported selection item for basic indexing"):
        a[1.5]
    with pytest.raises(SelectionError, match="broadcast"):
        a[:2] = np.arange(3)


def test_corrupt_chunk_names_key(store):
    a = zarrhpc.create_array(store, name="z", shape=(8,), chunks=(8,), dtype="f8",
                             compressors={"name": "zstd", "configuration": {"level": 1}})
    a[:] = 1.5
    store.set("z/c/0", bytes(store.get("z/c/0"))[:10])
    with pytest.raises(CorruptChunkError, match="z/c/0"):
        a[...]


def test_modes(tmp_path):
    path = tmp_path / "m.zarr"
    with pytest.raises(FileNotFoundError):
        zarrhpc.open_array(path, mode="r")
    a = zarrhpc.open_array(path, mode="w", shape=(3,), chunks=(3,), dtype="i4")
    a[:] = [1, 2, 3]
    r = zarrhpc.open_array(path, mode="r")
    with pytest.raises(ReadOnlyError):
        r[0] = 5
    with pytest.raises(ContainsArrayError):
        zarrhpc.open_array(path, mode="w-", shape=(3,), chunks=(3,), dtype="i4")
    rw = zarrhpc.open(path, mode="r+")
    rw[0] = 9
    assert list(zarrhpc.open(path)[...]) == [9, 2, 3]
    zarrhpc.create_group(tmp_path / "g.zarr")
    with pytest.raises(ArrayNotFoundError, match="nope"):
        zarrhpc.open_array(tmp_path / "g.zarr", path="nope")
    with pytest.raises(ArrayNotFoundError, match="Expected 'array'. Got 'group'"):
        zarrhpc.open_array(tmp_path / "g.zarr")


def test_overwrite_replaces_old_chunks(store):
    a = zarrhpc.create_array(store, name="a", shape=(4,), chunks=(2,), dtype="i4")
    a[:] = 5
    b = zarrhpc.create_array(store, name="a", shape=(4,), chunks=(2,), dtype="i4", overwrite=True)
    assert list(b[:]) == [0, 0, 0, 0]


def test_threads_give_same_result(store):
    data = np.random.default_rng(0).standard_normal((40, 30)).astype("f4")
    a = zarrhpc.create_array(store, shape=data.shape, chunks=(7, 6), dtype="f4")
    with zarrhpc.config.set(threads=1):
        a[...] = data
        single = a[...]
    with zarrhpc.config.set(threads=2):
        multi = a[...]
        a[...] = data[::-1]
    np.testing.assert_array_equal(single, data)
    np.testing.assert_array_equal(multi, data)
    np.testing.assert_array_equal(a[...], data[::-1])

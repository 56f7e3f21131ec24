"""Sharded arrays end to end: reads and writes against numpy on random geometries, what
is stored (empty inner chunks left out, empty shards erased), partial reads that fetch only
the index and the inner chunks wanted, hostile shards through the array API."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zarrhpc
from zarrhpc import config
from zarrhpc.codecs import ShardingCodec
from zarrhpc.codecs.sharding import EMPTY
from zarrhpc.errors import CorruptChunkError
from zarrhpc.storage import LocalStore, MemoryStore, Store
from zarrhpc.testing.strategies import basic_selections

BLOSC = {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5, "shuffle": "shuffle",
                                            "typesize": 4, "blocksize": 0}}


class RecordingStore(Store):
    """Delegates to ``inner``; records every read: whole gets and byte ranges."""

    def __init__(self, inner: Store):
        super().__init__()
        self.inner = inner
        self.gets: list[str] = []
        self.ranges: list[tuple] = []

    def _get(self, key):
        self.gets.append(key)
        return self.inner.get(key)

    def _get_partial_values(self, requests):
        self.ranges.extend(requests)
        return self.inner.get_partial_values(requests)

    def _getsize(self, key):
        return self.inner.getsize(key)

    def _set(self, key, data):
        self.inner.set(key, data)

    def _erase(self, key):
        self.inner.erase(key)

    def _list(self):
        return self.inner.list()

    def reset(self):
        self.gets.clear()
        self.ranges.clear()


@st.composite
def sharded_geometry(draw, max_dims=3):
    ndim = draw(st.integers(1, max_dims))
    chunks = tuple(draw(st.integers(1, 3)) for _ in range(ndim))
    shards = tuple(c * draw(st.integers(1, 3)) for c in chunks)
    shape = tuple(draw(st.integers(0, 11)) for _ in range(ndim))
    return shape, shards, chunks


@pytest.fixture(params=["memory", "local"])
def store(request, tmp_path):
    return MemoryStore() if request.param == "memory" else LocalStore(tmp_path / "s.zarr")


# ------------------------------------------------------------------ numpy equivalence


def python_path(a):
    """Make ``a`` read inner chunks with the Python codecs instead of the native engine."""
    assert a._sharding.inner_engine is not None
    a._sharding._inner_engine = None
    return a


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), sharded_geometry(), st.sampled_from(["start", "end"]), st.booleans(),
       st.booleans())
def test_reads_and_writes_as_numpy(data, geometry, location, threads, native):
    shape, shards, chunks = geometry
    a = zarrhpc.create_array(MemoryStore(), shape=shape, dtype="i4", chunks=chunks,
                             shards={"shape": shards, "index_location": location},
                             fill_value=-7, compressors=None)
    if not native:
        python_path(a)
    expected = np.full(shape, -7, dtype="i4")
    rng = np.random.default_rng(0)
    with config.set(threads=2 if threads else 1):
        for _ in range(3):
            sel = data.draw(basic_selections(shape), label="write")
            value = rng.integers(-5, 5, size=expected[sel].shape).astype("i4")
            if data.draw(st.booleans(), label="fill"):
                value[...] = -7  # writing the fill value empties inner chunks
            a[sel] = value
            expected[sel] = value
            sel = data.draw(basic_selections(shape), label="read")
            got = a[sel]
            assert np.shape(got) == np.shape(expected[sel])
            assert np.array_equal(got, expected[sel])
        assert np.array_equal(a[...], expected)
    assert_storage_minimal(a, expected)


def assert_storage_minimal(a, expected):
    """Every stored shard holds exactly the inner chunks that differ from the fill value."""
    layout = a._sharding
    fill = a.fill_value
    for coords in a._grid.all_chunk_coords():
        key = a._chunk_key(coords)
        raw = a.store.get(key)
        region = a._grid.chunk_region(coords)
        block = np.full(layout.shard_shape, fill, dtype=a.dtype)
        block[tuple(slice(0, r.stop - r.start) for r in region)] = expected[region]
        wanted = {
            flat for flat in range(layout.nchunks)
            if (block[layout.inner_region(layout.inner_coords(flat))] != fill).any()
        }
        if raw is None:
            assert not wanted, key
            continue
        index = layout.read_index(raw, key).reshape(-1, 2)
        stored = {flat for flat in range(layout.nchunks) if index[flat, 0] != EMPTY}
        assert stored == wanted, key


@pytest.mark.parametrize("dtype", ["f4", ">f8", "u1", "c8", "bool"])
def test_dtypes_and_codecs(store, dtype):
    shape = (13, 10)
    x = (np.arange(130).reshape(shape) % 7).astype(dtype)
    a = zarrhpc.create_array(store, shape=shape, dtype=dtype, chunks=(3, 2), shards=(6, 4),
                             filters=[{"name": "transpose", "configuration": {"order": [1, 0]}}],
                             compressors=[{"name": "zstd", "configuration": {"level": 1}},
                                          {"name": "crc32c"}])
    a[...] = x
    b = zarrhpc.open_array(store)
    assert np.array_equal(b[...], x)
    assert np.array_equal(b[12, ::-3], x[12, ::-3])
    assert b[4, 3] == x[4, 3]


# ------------------------------------------------------------------ create_array, properties


def test_chunks_and_shards_as_zarr_python(store):
    a = zarrhpc.create_array(store, shape=(100, 50), dtype="f4", chunks=(10, 5), shards=(20, 25))
    assert a.chunks == (10, 5)
    assert a.shards == (20, 25)
    md = a.metadata.to_dict()
    assert md["chunk_grid"]["configuration"]["chunk_shape"] == (20, 25)  # tuples, as zarr-python
    (codec,) = md["codecs"]
    assert codec["name"] == "sharding_indexed"
    cfg = codec["configuration"]
    assert cfg["chunk_shape"] == (10, 5) and cfg["index_location"] == "end"
    assert cfg["index_codecs"] == ({"name": "bytes", "configuration": {"endian": "little"}},
                                   {"name": "crc32c"})
    assert [c["name"] for c in cfg["codecs"]] == ["bytes", "zstd"]
    assert zarrhpc.open_array(store).shards == (20, 25)
    plain = zarrhpc.create_array(MemoryStore(), shape=(10,), dtype="f4", chunks=(5,))
    assert plain.shards is None and plain.chunks == (5,)
    assert a.cdata_shape == (10, 10) and a.nchunks == 100  # inner chunks, as zarr-python
    assert "Shard shape        : (20, 25)" in repr(a.info)  # zarr-python's layout


def test_nchunks_initialized_as_zarr_python():
    # zarr-python's docstring example: stored shards times inner chunks per shard
    a = zarrhpc.create_array(MemoryStore(), shape=(10,), dtype="i4", chunks=(1,), shards=(2,))
    assert a.nchunks_initialized == 0
    a[:5] = 1
    assert a.nchunks_initialized == 6


def test_shards_must_be_a_multiple_of_chunks():
    with pytest.raises(ValueError, match=r"The array's `chunk_shape` \(got \(20, 25\)\) needs "
                                         r"to be divisible by the shard's inner `chunk_shape` "
                                         r"\(got \(10, 10\)\)"):
        zarrhpc.create_array(MemoryStore(), shape=(100, 50), dtype="f4", chunks=(10, 10),
                             shards=(20, 25))
    with pytest.raises(ValueError, match="index_location"):
        zarrhpc.create_array(MemoryStore(), shape=(10,), dtype="f4", chunks=(5,),
                             shards={"shape": (10,), "index_location": "middle"})


def test_nested_sharding_through_the_array(store):
    inner = ShardingCodec((2, 2), [{"name": "bytes", "configuration": {"endian": "little"}},
                                   BLOSC])
    a = zarrhpc.create_array(store, shape=(11, 9), dtype="f4", chunks=(4, 4), shards=(8, 8),
                             serializer=inner, compressors=None)
    x = np.arange(99, dtype="f4").reshape(11, 9)
    a[...] = x
    a[1:3, 1:3] = 0
    x[1:3, 1:3] = 0
    assert np.array_equal(zarrhpc.open_array(store)[...], x)
    assert a[10, 8] == x[10, 8]


# ------------------------------------------------------------------ what is stored


def test_write_empty_chunks_and_erasing(store):
    kw = dict(shape=(8, 8), dtype="i2", chunks=(2, 2), shards=(4, 4), fill_value=0)
    a = zarrhpc.create_array(store, name="a", **kw)
    b = zarrhpc.create_array(store, name="b", write_empty_chunks=True, **kw)
    for arr in (a, b):
        arr[...] = 0
        arr[0, 0] = 1
    assert store.getsize("a/c/1/1") is None  # all fill: never written
    la = a._sharding
    ia = la.read_index(store.get("a/c/0/0")).reshape(-1, 2)
    assert (ia[0] != EMPTY).all() and (ia[1:] == EMPTY).all()
    ib = la.read_index(store.get("b/c/1/1")).reshape(-1, 2)
    assert (ib != EMPTY).all()  # kept: write_empty_chunks=True
    a[0, 0] = 0  # the shard's last inner chunk becomes empty: the shard goes
    assert store.getsize("a/c/0/0") is None
    assert sorted(k for k in store.list() if k.startswith("a/c")) == []


def test_partial_write_keeps_other_inner_chunks_bytes(store):
    a = zarrhpc.create_array(store, shape=(8, 8), dtype="f4", chunks=(2, 2), shards=(8, 8),
                             compressors=[BLOSC])
    x = np.random.default_rng(1).random((8, 8)).astype("f4")
    a[...] = x
    layout = a._sharding
    before = bytes(store.get("c/0/0"))
    old = layout.read_index(before).reshape(-1, 2)
    a[0:2, 2:4] = 5  # inner chunk (0, 1) only
    x[0:2, 2:4] = 5
    after = bytes(store.get("c/0/0"))
    new = layout.read_index(after).reshape(-1, 2)
    for flat in range(layout.nchunks):
        if flat == 1:
            continue
        o1, n1 = (int(v) for v in old[flat])
        o2, n2 = (int(v) for v in new[flat])
        assert before[o1:o1 + n1] == after[o2:o2 + n2]
    assert np.array_equal(a[...], x)


# ------------------------------------------------------------------ partial reads


@pytest.mark.parametrize("location", ["start", "end"])
def test_one_element_costs_two_small_reads(tmp_path, location):
    rec = RecordingStore(LocalStore(tmp_path / "r.zarr"))
    a = zarrhpc.create_array(rec, shape=(64, 64, 64), dtype="f4", chunks=(8, 8, 8),
                             shards={"shape": (32, 32, 32), "index_location": location},
                             compressors=[BLOSC])
    x = np.random.default_rng(2).random((64, 64, 64)).astype("f4")
    a[...] = x
    layout = a._sharding
    shard_len = rec.getsize("c/1/0/1")
    rec.reset()
    assert a[37, 5, 40] == x[37, 5, 40]
    assert rec.gets == []  # never the whole shard
    (idx_req, chunk_req) = rec.ranges
    assert idx_req[0] == chunk_req[0] == "c/1/0/1"
    assert idx_req[2] == layout.index_nbytes
    assert idx_req[1] == (0 if location == "start" else shard_len - layout.index_nbytes)
    index = layout.read_index(rec.inner.get("c/1/0/1")).reshape(-1, 2)
    flat = np.ravel_multi_index((37 % 32 // 8, 5 // 8, 40 % 32 // 8), layout.grid_shape)
    assert chunk_req[1:] == (int(index[flat, 0]), int(index[flat, 1]))
    assert chunk_req[2] < 8 * 8 * 8 * 4  # a compressed inner chunk, not the shard
    # a small box reads the index once and only the inner chunks it touches
    rec.reset()
    assert np.array_equal(a[33:40, 0:10, 60:64], x[33:40, 0:10, 60:64])
    keys = [r[0] for r in rec.ranges]
    assert keys.count("c/1/0/1") == 1 + 2  # index + inner chunks (0..1, 0, 3)
    assert rec.gets == []


def test_missing_shards_and_inner_chunks_read_as_fill(store):
    a = zarrhpc.create_array(store, shape=(9, 9), dtype="i4", chunks=(3, 3), shards=(6, 6),
                             fill_value=42)
    assert a[8, 8] == 42 and (a[...] == 42).all()
    a[0, 0] = 1
    x = np.full((9, 9), 42, "i4")
    x[0, 0] = 1
    assert np.array_equal(a[...], x)
    assert a[1, 1] == 42 and a[0, 0] == 1


# ------------------------------------------------------------------ hostile shards


@pytest.mark.parametrize("point", [True, False])
@pytest.mark.parametrize("location", ["start", "end"])
def test_hostile_index_through_the_array(tmp_path, location, point):
    a = zarrhpc.create_array(tmp_path / "h.zarr", shape=(8, 8), dtype="f4", chunks=(4, 4),
                             shards={"shape": (8, 8), "index_location": location})
    a[...] = np.arange(64, dtype="f4").reshape(8, 8)
    layout = a._sharding
    raw = bytes(a.store.get("c/0/0"))
    index = layout.read_index(raw).copy()
    index[1, 0, 0] = len(raw) + 100  # inner chunk (1, 0) points past the shard's end
    enc = bytes(np.asarray(layout.encode_index(index)).tobytes())
    n = layout.index_nbytes
    bad = enc + raw[n:] if location == "start" else raw[:-n] + enc
    a.store.set("c/0/0", bad)
    with pytest.raises(CorruptChunkError, match=r"^c/0/0: shard index: inner chunk \(1, 0\)"):
        a[5, 1] if point else a[4:6, 0:2]
    with pytest.raises(CorruptChunkError, match=r"^c/0/0: shard index: inner chunk \(1, 0\)"):
        a[...]
    with pytest.raises(CorruptChunkError, match=r"c/0/0: shard index: inner chunk \(1, 0\)"):
        a[0, 0] = 1  # a partial write reads the shard first
    a.store.set("c/0/0", bad[:10])  # truncated below the index size
    with pytest.raises(CorruptChunkError, match=r"^c/0/0: shard index: expected"):
        a[5, 1] if point else a[4:6, 0:2]


@pytest.mark.parametrize("native", [True, False])
def test_corrupt_inner_chunk_names_shard_and_inner_chunk(tmp_path, native):
    a = zarrhpc.create_array(tmp_path / "c.zarr", shape=(8, 8), dtype="f4", chunks=(4, 4),
                             shards=(8, 8), compressors=[BLOSC])
    a[...] = np.arange(64, dtype="f4").reshape(8, 8)
    if not native:
        python_path(a)
    layout = a._sharding
    raw = bytearray(a.store.get("c/0/0"))
    index = layout.read_index(raw)
    off = int(index[0, 1, 0])
    raw[off + 12:off + 16] = (10**6).to_bytes(4, "little")  # inner chunk (0, 1): bad cbytes
    a.store.set("c/0/0", raw)
    match = r"^c/0/0: inner chunk \(0, 1\)"
    for sel in [(slice(None), slice(None)), (slice(0, 3), slice(3, 6)), (1, 6)]:
        with pytest.raises(CorruptChunkError, match=match):
            a[sel]


@pytest.mark.parametrize("order", ["C", "F"])
def test_read_into_out_and_order(store, order):
    a = zarrhpc.create_array(store, shape=(10, 9, 7), dtype="u2", chunks=(2, 3, 7),
                             shards=(4, 9, 7), config={"order": order})
    x = np.arange(630, dtype="u2").reshape(10, 9, 7)
    a[...] = x
    got = a[...]
    assert np.array_equal(got, x) and got.flags[f"{order}_CONTIGUOUS"]
    out = np.zeros((5, 9), dtype="u2", order="F")
    assert a.read((slice(1, 10, 2), slice(None), 3), out=out) is out
    assert np.array_equal(out, x[1:10:2, :, 3])
    with pytest.raises(zarrhpc.errors.SelectionError):
        a.read((slice(0, 2),), out=out)

"""CacheStore: the shared conformance suite (over memory and directory stores, with a cache
small enough to evict), plus the cache's own behaviour: read-through, write-through, LRU by
size, age expiry, invalidation by every kind of write, views, pickling, and coherence
with the source under concurrent writers and readers. The comparison with zarr-python's
class on the same operation sequences is in tests/api/test_cache_store.py."""

from __future__ import annotations

import asyncio
import pickle
import threading
import types

import numpy as np
import pytest

import zarrhpc
from zarrhpc.errors import ReadOnlyError
from zarrhpc.experimental.cache_store import CacheStore
from zarrhpc.storage import LocalStore, MemoryStore
from zarrhpc.storage import cache as cache_mod
from zarrhpc.testing.store import StoreTests


class TestCacheStoreOverMemory(StoreTests):
    def make_store(self, tmp_path):
        return CacheStore(MemoryStore(), cache_store=MemoryStore())


class TestCacheStoreOverLocalEvicting(StoreTests):
    # a 4 KiB cache on a directory store: most values are evicted or too large to keep,
    # so every code path of the cache runs under the conformance suite
    def make_store(self, tmp_path):
        return CacheStore(LocalStore(tmp_path / "src"), cache_store=LocalStore(tmp_path / "c"),
                          max_size=4096)


@pytest.fixture
def clock(monkeypatch):
    """A settable monotonic clock for the cache's ages."""
    now = [1000.0]
    monkeypatch.setattr(cache_mod, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    return now


def check_accounting(store, cache):
    """Every whole value recorded is in the cache store with its size; the sizes add up."""
    state = store._state
    for entry, size in state.sizes.items():
        if isinstance(entry, str):
            assert len(cache.get(entry)) == size, entry
        else:
            assert len(state.ranges[entry[0]][entry[1]]) == size, entry
    assert set(state.sizes) == set(state.order) == set(state.inserted)
    assert state.current_size == sum(state.sizes.values())


def make(**kwargs):
    source, cache = MemoryStore(), MemoryStore()
    return source, cache, CacheStore(source, cache_store=cache, **kwargs)


def test_read_through_counts_hits_and_misses():
    source, cache, store = make()
    source.set("k", b"abc")
    assert store.get("k") == b"abc" and cache.get("k") == b"abc"  # a miss fills the cache
    assert store.get("k") == b"abc"
    assert store.get("missing") is None and cache.get("missing") is None
    assert store.cache_stats() == {"hits": 1, "misses": 2, "evictions": 0,
                                   "total_requests": 3, "hit_rate": 1 / 3}
    source.set("k", b"changed behind the cache's back")
    assert store.get("k") == b"abc"  # served from the cache: it never expires by default


def test_write_through_and_cache_set_data_false():
    source, cache, store = make()
    store.set("k", b"v1")
    assert source.get("k") == b"v1" and cache.get("k") == b"v1"
    source, cache, store = make(cache_set_data=False)
    source.set("k", b"old")
    assert store.get("k") == b"old" and cache.get("k") == b"old"
    store.set("k", b"new")  # drops the cached copy instead of replacing it
    assert cache.get("k") is None and store.get("k") == b"new"
    assert store.cache_info()["cache_set_data"] is False


def test_lru_eviction_by_size():
    source, cache, store = make(max_size=100)
    for key in "abc":
        source.set(key, key.encode() * 40)
    store.get("a")
    store.get("b")
    store.get("a")  # b is now the least recently used
    store.get("c")  # 120 bytes > 100: b goes
    assert cache.get("b") is None and cache.get("a") is not None and cache.get("c") is not None
    info = store.cache_info()
    assert info["current_size"] == 80 and info["cached_keys"] == 2
    assert store.cache_stats()["evictions"] == 1
    # rewriting a cached key replaces its size, it does not add or evict
    store.set("a", b"x" * 60)
    assert store.cache_info()["current_size"] == 100 and store.cache_stats()["evictions"] == 1
    check_accounting(store, cache)


def test_value_larger_than_the_cache_is_not_kept():
    source, cache, store = make(max_size=50)
    store.set("big", b"x" * 100)
    assert source.get("big") == b"x" * 100
    assert cache.get("big") is None  # zarr-python keeps it untracked; we keep nothing
    assert store.cache_info()["current_size"] == 0
    assert store.get("big") == b"x" * 100 and store.cache_stats()["hits"] == 0


def test_age_expiry(clock):
    source, cache, store = make(max_age_seconds=10)
    source.set("k", b"old")
    assert store.get("k") == b"old"
    source.set("k", b"new")
    clock[0] += 9.5
    assert store.get("k") == b"old"  # still fresh
    clock[0] += 0.5
    assert store.get("k") == b"new"  # 10 s old: asked the source again
    assert store.cache_stats()["hits"] == 1
    # an entry nobody recorded (left in a persistent cache) is never fresh with a max age
    cache.set("orphan", b"stale")
    source.set("orphan", b"fresh")
    assert store.get("orphan") == b"fresh"
    with pytest.raises(ValueError, match="infinity"):
        make(max_age_seconds="forever")


def test_byte_ranges_are_cached_apart_and_invalidated():
    source, cache, store = make()
    source.set("k", b"hello world")
    assert store.get_partial_values([("k", 0, 5), ("k", -5, None)]) == [b"hello", b"world"]
    assert cache.get("k") is None  # a partial read never stores part of a value
    assert store.get_partial_values([("k", 0, 5)]) == [b"hello"]
    assert store.cache_stats()["hits"] == 1 and store.cache_info()["cached_keys"] == 2
    assert store.get("k") == b"hello world"
    store.set("k", b"HELLO WORLD")
    assert store.get_partial_values([("k", 0, 5)]) == [b"HELLO"]
    store.erase("k")
    assert store.get_partial_values([("k", 0, 5)]) == [None] and store.get("k") is None


@pytest.mark.parametrize("write", ["partial", "vectored", "values", "erase_values", "prefix"])
def test_every_write_keeps_the_cache_coherent(write):
    source, cache, store = make()
    store.set("a/k", b"0123456789")
    assert store.get("a/k") == b"0123456789" and store.get_partial_values([("a/k", 0, 2)])
    if write == "partial":
        store.set_partial_values([("a/k", 2, b"xy")])
        want = b"01xy456789"
    elif write == "vectored":
        store.set_vectored("a/k", [b"ab", memoryview(b"cd")])
        want = b"abcd"
    elif write == "values":
        store.set_values([("a/k", b"vv"), ("a/j", b"w")])
        want = b"vv"
    elif write == "erase_values":
        store.erase_values(["a/k"])
        want = None
    else:
        store.erase_prefix("a")
        want = None
    assert source.get("a/k") == want
    assert store.get("a/k") == want
    assert store.get_partial_values([("a/k", 0, 2)]) == [None if want is None else want[:2]]
    check_accounting(store, cache)


def test_clear_cache_is_a_coroutine():
    source, cache, store = make()
    store.set("k", b"v")
    asyncio.run(store.clear_cache())
    info = store.cache_info()
    assert info["tracked_keys"] == info["current_size"] == 0 and list(cache.list()) == []
    assert store.get("k") == b"v"  # from the source again


def test_views_share_the_cache_and_refuse_writes():
    source, cache, store = make()
    reader = CacheStore(source.with_read_only(), cache_store=cache)
    assert reader.read_only
    with pytest.raises(ReadOnlyError):
        reader.set("k", b"v")
    writer = reader.with_read_only(False)
    writer.set("k", b"v")
    assert writer.cache_info()["cached_keys"] == 1 and writer._state is reader._state
    assert reader.get("k") == b"v" and reader.cache_stats()["hits"] == 1
    with pytest.raises(ValueError, match="does not support deletes"):
        CacheStore(source, cache_store=MemoryStore(read_only=True))


def test_repr_and_pickle(tmp_path):
    source, cache = LocalStore(tmp_path / "s"), LocalStore(tmp_path / "c")
    store = CacheStore(source, cache_store=cache, max_age_seconds=60, max_size=1024)
    store.set("k", b"v")
    assert repr(store) == (f"CacheStore(store={source!r}, cache_store={cache!r}, "
                           "max_age_seconds=60, max_size=1024, current_size=1, cached_keys=1)")
    clone = pickle.loads(pickle.dumps(store))
    assert clone == store and clone.get("k") == b"v" and clone.max_size == 1024


def test_array_reads_and_writes_through_the_cache(tmp_path):
    # the native engine must not read the source directory behind the cache's back: after
    # the chunk files are removed on disk, the cached array still reads every value
    source = LocalStore(tmp_path / "src")
    store = CacheStore(source, cache_store=MemoryStore())
    data = np.random.default_rng(0).random((40, 30))
    a = zarrhpc.create_array(store, shape=data.shape, chunks=(10, 10), dtype="f8")
    a[:] = data
    a[5:15, 3] = -1.0  # partial chunk writes: read-modify-write through the cache
    data[5:15, 3] = -1.0
    np.testing.assert_array_equal(zarrhpc.open_array(str(tmp_path / "src"))[:], data)
    for key in [k for k in source.list() if k.startswith("c/")]:
        (tmp_path / "src" / key).unlink()
    np.testing.assert_array_equal(a[:], data)
    np.testing.assert_array_equal(a.oindex[[1, 30], :], data[[1, 30], :])
    assert store.cache_stats()["hits"] >= 12


def test_concurrent_writers_and_readers_leave_cache_equal_to_source():
    source, cache, store = make(max_size=64)
    keys = [f"k{i}" for i in range(4)]
    errors = []

    def work(seed):
        rng = np.random.default_rng(seed)
        try:
            for _ in range(300):
                key = keys[rng.integers(len(keys))]
                if rng.random() < 0.5:
                    store.set(key, bytes([seed]) * int(rng.integers(1, 24)))
                else:
                    store.get(key)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for key in keys:  # whatever the interleaving, a cached value is the source's value
        cached = cache.get(key)
        assert cached is None or cached == source.get(key), key
        assert store.get(key) == source.get(key)
    assert store.cache_info()["current_size"] <= 64
    check_accounting(store, cache)


@pytest.mark.parametrize("source_kind", ["local", "object"])
@pytest.mark.parametrize("zarr_format", [2, 3])
def test_sharded_and_v2_arrays_through_the_cache(tmp_path, zarr_format, source_kind):
    # "object": a remote store's machinery (batched readers, coalesced ranges) as source
    if source_kind == "object":
        obs = pytest.importorskip("obstore.store")
        from zarrhpc.storage import ObjectStore

        (tmp_path / "src").mkdir()
        source = ObjectStore(obs.LocalStore(str(tmp_path / "src")))
    else:
        source = LocalStore(tmp_path / "src")
    store = CacheStore(source, cache_store=MemoryStore(), max_size=1 << 16)
    data = np.arange(24 * 18, dtype="i2").reshape(24, 18)
    shards = (12, 9) if zarr_format == 3 else None
    a = zarrhpc.create_array(store, shape=data.shape, chunks=(4, 3), shards=shards,
                             dtype="i2", zarr_format=zarr_format)
    a[:] = data
    a[1:3, 2:5] = 7  # partial shard / chunk updates through the cache
    data[1:3, 2:5] = 7
    for _ in range(2):  # the second pass is served (in part) from the cache
        np.testing.assert_array_equal(a[:], data)
        np.testing.assert_array_equal(a.vindex[[0, 23, 5], [17, 0, 4]], data[[0, 23, 5], [17, 0, 4]])
    np.testing.assert_array_equal(zarrhpc.open_array(str(tmp_path / "src"))[:], data)
    assert store.cache_stats()["hits"] > 0 and store.cache_info()["current_size"] <= 1 << 16

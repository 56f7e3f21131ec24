"""CacheStore: a store that keeps recently read (and written) values in a second store.

zarr-python's ``zarr.experimental.cache_store.CacheStore`` under zarrhpc's store interface
(also importable as ``zarrhpc.experimental.cache_store.CacheStore``): same constructor,
same ``cache_info()`` / ``cache_stats()`` / ``clear_cache()``, same bookkeeping.

Life cycle: ``CacheStore(store, cache_store=..., max_size=..., max_age_seconds=...,
cache_set_data=True)`` wraps a *source* store; every read goes to the *cache store*
first and to the source on a miss, which then fills the cache (read-through); every write
goes to the source and, with ``cache_set_data``, to the cache too (write-through; without
it the cached copy is dropped). Erasing a key erases it in both. `with_read_only` returns
a view over the same source and the same cache, sharing the bookkeeping.

Bookkeeping (one lock, so the read and write paths may call it from many threads):

- whole values live in the cache store; byte ranges (`get_partial_values`, sharded reads)
  live in a dict in memory keyed by ``(key, (offset, length))``, so that a partial read
  never stores part of a value under its key. Both share ``max_size`` and one LRU order;
- ``max_size`` (bytes, None: no limit): before an entry is added the least recently used
  entries are evicted until it fits; a value larger than ``max_size`` is not cached at all;
- ``max_age_seconds`` ("infinity", or seconds on the monotonic clock): an entry older
  than that is not served; the next read goes to the source and refreshes it;
- hits, misses and evictions are counted for `cache_stats`.

Where this differs from zarr-python 3.1's class, on purpose: a value too large for the
cache is removed from the cache store as well (zarr-python leaves it there untracked,
so it is then served forever and never evicted); rewriting a cached key replaces its entry
instead of evicting it first; partial writes (`set_partial_values`) and `erase_prefix`
drop the cached copies of what they change (zarr-python's go around the cache). Values
read are always the source's latest written through this store.

The cache never changes what a read returns, only where it comes from: the native
engine is never given a cache's directory (`native_root` stays None), so every chunk of an
array over a CacheStore goes through `get`/`set` here.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

from zarrhpc.storage.abc import Buffer, RangeReader, Store, check_range

__all__ = ["CacheStore"]

#: A cache entry: a key (whole value, in the cache store) or ``(key, (offset, length))``
#: (a byte range, in memory).
_Entry = str | tuple[str, tuple[int, int | None]]


class _CacheState:
    """What a CacheStore and its read-only views share: LRU order, sizes, ages, counters."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.order: OrderedDict[_Entry, None] = OrderedDict()  # least recent first
        self.sizes: dict[_Entry, int] = {}
        self.inserted: dict[_Entry, float] = {}
        self.ranges: dict[str, dict[tuple[int, int | None], Buffer]] = {}
        # the version of the source value a key's ranges were read from (`_version_of`)
        self.range_version: dict[str, Any] = {}
        self.current_size = 0
        self.hits = 0
        self.misses = 0
        self.evictions = 0
        # Coherence with the source under concurrent use: a write holds its key's stripe
        # lock from the source write to the cache update (so the cache ends with the
        # value the source ends with), and bumps the key's generation; a read that missed
        # fills the cache only if no write to that key (or erase of a prefix: ``epoch``)
        # ended while it fetched, so an old value read before a write is never cached
        # after it.
        self.stripes = [threading.Lock() for _ in range(64)]
        self.generation: dict[str, int] = {}
        self.epoch = 0

    def stamp(self, key: str) -> tuple[int, int]:
        return self.epoch, self.generation.get(key, 0)

    def locks(self, keys: Iterable[str]) -> list[threading.Lock]:
        """The stripe locks of ``keys``, in one global order (no deadlock)."""
        return [self.stripes[i] for i in sorted({hash(k) % len(self.stripes) for k in keys})]


class CacheStore(Store):
    """A store that serves reads from a second store (the cache) when it can.

    Parameters
    ----------
    store : Store
        The source of truth (any zarrhpc store: LocalStore, remote stores, ...).
    cache_store : Store
        Where cached values are kept (a MemoryStore, or a LocalStore for a persistent
        cache); it must be writable.
    max_age_seconds : int, float or "infinity", default "infinity"
        How long an entry is served before the source is asked again.
    max_size : int or None, default None
        Bytes the cache may hold (whole values and byte ranges together); least recently
        used entries are evicted to stay under it. None: no limit.
    cache_set_data : bool, default True
        Also cache what is written (write-through); False drops the cached copy instead.

    Raises
    ------
    ValueError
        If ``cache_store`` is read-only, or ``max_age_seconds`` is a string other than
        "infinity".

    Examples
    --------
    >>> from zarrhpc.storage import MemoryStore
    >>> cached = CacheStore(MemoryStore(), cache_store=MemoryStore(), max_size=1 << 20)
    >>> cached.set("a", b"xyz")
    >>> bytes(cached.get("a")), cached.cache_info()["cached_keys"]
    (b'xyz', 1)
    """

    def __init__(
        self,
        store: Store,
        *,
        cache_store: Store,
        max_age_seconds: int | float | str = "infinity",
        max_size: int | None = None,
        cache_set_data: bool = True,
    ) -> None:
        if not isinstance(store, Store) or not isinstance(cache_store, Store):
            raise TypeError(
                f"CacheStore: store and cache_store must be zarrhpc stores, got "
                f"{type(store).__name__} and {type(cache_store).__name__}")
        if cache_store.read_only or getattr(cache_store, "supports_deletes", True) is False:
            raise ValueError(
                f"The provided cache store {cache_store} does not support deletes. "
                "The cache_store must support deletes for CacheStore to function properly.")
        if isinstance(max_age_seconds, str) and max_age_seconds != "infinity":
            raise ValueError("max_age_seconds string value must be 'infinity'")
        super().__init__(read_only=store.read_only)
        self._store = store
        self._cache = cache_store
        self.max_age_seconds = max_age_seconds
        self.max_size = max_size
        self.cache_set_data = bool(cache_set_data)
        self._state = _CacheState()

    # -- views, pickling, repr ---------------------------------------------------------

    def with_read_only(self, read_only: bool = False) -> CacheStore:
        """A CacheStore over ``store.with_read_only(read_only)`` sharing this one's cache
        and bookkeeping (zarr-python's default ``read_only=False`` kept)."""
        view = type(self)(self._store.with_read_only(read_only), cache_store=self._cache,
                          max_age_seconds=self.max_age_seconds, max_size=self.max_size,
                          cache_set_data=self.cache_set_data)
        view._state = self._state
        return view

    def __getstate__(self) -> dict[str, Any]:
        # The stores pickle by reference; the bookkeeping (monotonic times, an in-memory
        # range cache) means nothing in another process, so an unpickled copy starts it
        # afresh: values already in the cache store are still served until they age out.
        return {"store": self._store, "cache": self._cache, "max_age": self.max_age_seconds,
                "max_size": self.max_size, "cache_set_data": self.cache_set_data}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["store"], cache_store=state["cache"],
                      max_age_seconds=state["max_age"], max_size=state["max_size"],
                      cache_set_data=state["cache_set_data"])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CacheStore):
            return NotImplemented
        return self._store == other._store and self._cache == other._cache

    def __hash__(self) -> int:
        return hash((CacheStore, self._store, self._cache))

    def __repr__(self) -> str:
        return (f"CacheStore(store={self._store!r}, cache_store={self._cache!r}, "
                f"max_age_seconds={self.max_age_seconds}, max_size={self.max_size}, "
                f"current_size={self._state.current_size}, "
                f"cached_keys={len(self._state.order)})")

    def close(self) -> None:
        """Close this store and the source store (as zarr-python's wrapper stores do);
        the cache store is the caller's and stays open."""
        super().close()
        self._store.close()

    @property
    def concurrency(self) -> int:
        """int: the source store's (misses are fetched from it in batches)."""
        return self._store.concurrency

    # -- public cache API (zarr-python's) ----------------------------------------------

    def cache_info(self) -> dict[str, Any]:
        """The cache's settings and occupancy: ``cache_store_type``, ``max_age_seconds``,
        ``max_size``, ``current_size`` (bytes), ``cache_set_data``, ``tracked_keys``,
        ``cached_keys`` (entries, whole values and byte ranges)."""
        state = self._state
        with state.lock:
            return {
                "cache_store_type": type(self._cache).__name__,
                "max_age_seconds": self.max_age_seconds,
                "max_size": self.max_size,
                "current_size": state.current_size,
                "cache_set_data": self.cache_set_data,
                "tracked_keys": len(state.inserted),
                "cached_keys": len(state.order),
            }

    def cache_stats(self) -> dict[str, Any]:
        """Counters since creation: ``hits``, ``misses``, ``evictions``,
        ``total_requests`` and ``hit_rate`` (0.0 before any request)."""
        state = self._state
        with state.lock:
            total = state.hits + state.misses
            return {"hits": state.hits, "misses": state.misses, "evictions": state.evictions,
                    "total_requests": total,
                    "hit_rate": state.hits / total if total else 0.0}

    async def clear_cache(self) -> None:
        """Empty the cache store and forget every entry (counters are kept).

        A coroutine, as zarr-python's: ``asyncio.run(store.clear_cache())``.
        """
        state = self._state
        with state.lock:
            self._cache.erase_prefix("")
            state.order.clear()
            state.sizes.clear()
            state.inserted.clear()
            state.ranges.clear()
            state.range_version.clear()
            state.current_size = 0

    # -- bookkeeping (callers hold the lock) -------------------------------------------

    def _fresh(self, entry: _Entry) -> bool:
        if self.max_age_seconds == "infinity":
            return True
        inserted = self._state.inserted.get(entry)
        # an entry never recorded here (e.g. left in a persistent cache store by an earlier
        # CacheStore) is as old as can be: only an infinite max age serves it
        return inserted is not None and time.monotonic() - inserted < self.max_age_seconds

    def _untrack(self, entry: _Entry) -> None:
        state = self._state
        state.order.pop(entry, None)
        state.inserted.pop(entry, None)
        state.current_size -= state.sizes.pop(entry, 0)

    def _forget(self, entry: _Entry) -> None:
        """Drop an entry's bookkeeping and, for a byte range, the bytes kept in memory."""
        state = self._state
        self._untrack(entry)
        if not isinstance(entry, str):
            key, byte_range = entry
            per_key = state.ranges.get(key)
            if per_key is not None:
                per_key.pop(byte_range, None)
                if not per_key:
                    del state.ranges[key]
                    state.range_version.pop(key, None)

    def _evict(self, entry: _Entry) -> None:
        if isinstance(entry, str):
            self._cache.erase(entry)
        self._forget(entry)
        self._state.evictions += 1

    def _track(self, entry: _Entry, size: int) -> bool:
        """Record ``entry`` (already stored) as most recent, evicting LRU entries to make
        room; False (nothing recorded) if it can never fit."""
        state = self._state
        self._untrack(entry)  # a rewrite replaces the old entry, it is not an eviction
        if self.max_size is not None:
            if size > self.max_size:
                return False
            while state.current_size + size > self.max_size and state.order:
                self._evict(next(iter(state.order)))
        state.order[entry] = None
        state.sizes[entry] = size
        state.inserted[entry] = time.monotonic()
        state.current_size += size
        return True

    def _drop_ranges(self, key: str) -> None:
        for byte_range in list(self._state.ranges.get(key, ())):
            self._forget((key, byte_range))

    def _store_whole(self, key: str, value: Buffer) -> None:
        """Put a whole value into the cache store and record it (caller holds no lock)."""
        self._cache.set(key, value)
        with self._state.lock:
            if not self._track(key, memoryview(value).nbytes):
                self._cache.erase(key)  # larger than the whole cache: not kept at all

    def _written(self, key: str, value: Buffer | None) -> None:
        """Bring the cache in line with a write of ``value`` (None: erased, or changed in
        part) to the source; the caller holds the key's stripe lock."""
        state = self._state
        with state.lock:
            state.generation[key] = state.generation.get(key, 0) + 1
            self._drop_ranges(key)
            if value is None or not self.cache_set_data:
                self._cache.erase(key)
                self._forget(key)
                return
        self._store_whole(key, value)

    def _write(self, keys: list[str], source_write, values: list[Buffer | None]) -> None:
        with _Held(self._state.locks(keys)):
            source_write()
            for key, value in zip(keys, values):
                self._written(key, value)

    # -- reads -------------------------------------------------------------------------

    def _lookup(self, key: str) -> tuple[Buffer | None, tuple[int, int]]:
        """The cached whole value of ``key`` if it may be served (a hit), else None (a
        miss: the caller fetches from the source), and the key's write stamp."""
        state = self._state
        with state.lock:
            fresh = self._fresh(key)
            stamp = state.stamp(key)
        value = self._cache.get(key) if fresh else None
        with state.lock:
            if value is None:
                state.misses += 1
            else:
                state.hits += 1
                if key in state.order:
                    state.order.move_to_end(key)
        return value, stamp

    def _fill(self, key: str, value: Buffer | None, stamp: tuple[int, int]) -> None:
        """Record what the source returned for a missed key, unless a write ended since.

        Under the key's stripe lock, as writes update the cache: checked, then stored,
        with no write in between (a write ending between the check and the store had its
        value replaced by the older one read before it, served from then on).
        """
        with _Held(self._state.locks([key])):
            with self._state.lock:
                if self._state.stamp(key) != stamp:
                    return
                if value is None:
                    self._cache.erase(key)
                    self._forget(key)
                    return
            self._store_whole(key, value)

    def _get(self, key: str) -> Buffer | None:
        value, stamp = self._lookup(key)
        if value is None:
            value = self._store.get(key)
            self._fill(key, value, stamp)
        return value

    def _get_values(self, keys: list[str]) -> list[Buffer | None]:
        looked = [self._lookup(key) for key in keys]
        out = [value for value, _ in looked]
        missed = [i for i, value in enumerate(out) if value is None]
        if missed:  # one batch, so remote sources fetch the misses concurrently
            for i, value in zip(missed, self._store.get_values([keys[i] for i in missed])):
                self._fill(keys[i], value, looked[i][1])
                out[i] = value
        return out

    def _iter_values(self, keys: list[str]) -> Iterator[tuple[int, Buffer | None]]:
        missed = []
        for i, key in enumerate(keys):
            value, stamp = self._lookup(key)
            if value is None:
                missed.append((i, stamp))
            else:
                yield i, value
        if missed:
            source = self._store.iter_values([keys[i] for i, _ in missed])
            for j, value in source:
                i, stamp = missed[j]
                self._fill(keys[i], value, stamp)
                yield i, value

    def _get_partial_values(
        self, requests: list[tuple[str, int, int | None]]
    ) -> list[Buffer | None]:
        state = self._state
        out: list[Buffer | None] = [None] * len(requests)
        missed = []
        with state.lock:
            for i, (key, offset, length) in enumerate(requests):
                entry = (key, (offset, length))
                value = state.ranges.get(key, {}).get((offset, length))
                if value is not None and self._fresh(entry):
                    state.hits += 1
                    state.order.move_to_end(entry)
                    out[i] = value
                else:
                    state.misses += 1
                    missed.append((i, state.stamp(key)))
        if missed:
            fetched = self._store.get_partial_values([requests[i] for i, _ in missed])
            with state.lock:
                for (i, stamp), value in zip(missed, fetched):
                    out[i] = value
                    key, offset, length = requests[i]
                    entry = (key, (offset, length))
                    if state.stamp(key) != stamp:
                        continue
                    self._forget(entry)
                    if value is not None:
                        value = bytes(value)  # kept beyond the source's buffer
                        state.ranges.setdefault(key, {})[(offset, length)] = value
                        if not self._track(entry, len(value)):
                            self._forget(entry)
        return out

    def _getsize(self, key: str) -> int | None:
        return self._store.getsize(key)

    # Sharded reads: the source opens the shards (a remote source does so concurrently, one
    # request each, which also brings the index into its own tail cache) and each source
    # reader is held open by this store's reader, so that every range a read misses comes
    # from the version the reader opened (the index and the inner chunks of one shard from
    # one version, as the source's own readers guarantee). Cached ranges are served only
    # to a reader of the version they were read from: opened under the key's stripe lock
    # (so no write through this store lies between the open and its stamp) and with the
    # same `_version_of` (another writer's replacement seen when the source tells it).
    # The misses of a whole request go to the source in one batch, so that a remote
    # source coalesces and fetches them concurrently.

    def _open_reader(self, key: str) -> RangeReader | None:
        with _Held(self._state.locks([key])):
            return self._reader(key, self._store.open_reader(key))

    def open_readers(self, keys: Iterable[str]) -> list[RangeReader | None]:
        self._check_open()
        keys = [self._validate_key(k) for k in keys]
        with _Held(self._state.locks(keys)):
            readers = self._store.open_readers(keys)
            return [self._reader(k, r) for k, r in zip(keys, readers)]

    def _reader(self, key: str, source_reader: RangeReader | None) -> RangeReader | None:
        if source_reader is None:
            return None
        version = _version_of(source_reader)
        state = self._state
        with state.lock:
            if state.range_version.get(key, version) != version:
                self._drop_ranges(key)  # replaced by another writer: those ranges are old
            return _CachedReader(self, key, source_reader, state.stamp(key), version)

    def _serves(self, reader: _CachedReader) -> bool:
        """Whether cached ranges of ``reader.key`` are of ``reader``'s version (lock held)."""
        state = self._state
        return (state.stamp(reader.key) == reader.stamp
                and state.range_version.get(reader.key, reader.version) == reader.version)

    def read_ranges(
        self, requests: list[tuple[RangeReader, list[tuple[int, int | None]]]]
    ) -> list[list[Buffer]]:
        self._check_open()
        state = self._state
        outs: list[list[Buffer]] = []
        missed: dict[int, list[int]] = {}  # request -> indices of its ranges to fetch
        with state.lock:
            for n, (reader, ranges) in enumerate(requests):
                out: list[Buffer] = [b""] * len(ranges)
                outs.append(out)
                if not isinstance(reader, _CachedReader) or reader.store is not self:
                    missed[n] = list(range(len(ranges)))
                    continue
                per_key = state.ranges.get(reader.key, {}) if self._serves(reader) else {}
                for i, (offset, length) in enumerate(ranges):
                    byte_range = check_range(reader.key, offset, length)
                    value = per_key.get(byte_range)
                    if value is not None and self._fresh((reader.key, byte_range)):
                        state.hits += 1
                        state.order.move_to_end((reader.key, byte_range))
                        out[i] = value
                    else:
                        state.misses += 1
                        missed.setdefault(n, []).append(i)
        if not missed:
            return outs
        sources = [(requests[n][0], [requests[n][1][i] for i in idx]) for n, idx in missed.items()]
        fetched = self._store.read_ranges(
            [(r.source if isinstance(r, _CachedReader) else r, ranges) for r, ranges in sources])
        with state.lock:
            for (n, idx), bufs in zip(missed.items(), fetched):
                reader = requests[n][0]
                keep = isinstance(reader, _CachedReader) and self._serves(reader)
                for i, value in zip(idx, bufs):
                    outs[n][i] = value
                    if not keep or value is None:
                        continue
                    byte_range = check_range(reader.key, *requests[n][1][i])
                    entry = (reader.key, byte_range)
                    self._forget(entry)
                    value = bytes(value)  # kept beyond the source's buffer
                    state.ranges.setdefault(reader.key, {})[byte_range] = value
                    state.range_version[reader.key] = reader.version
                    if not self._track(entry, len(value)):
                        self._forget(entry)
        return outs

    def _exists(self, key: str) -> bool:
        return self._store.exists(key)

    # -- writes ------------------------------------------------------------------------

    def _set(self, key: str, data: memoryview) -> None:
        self._write([key], lambda: self._store.set(key, data), [data])

    def _set_values(self, items: list[tuple[str, memoryview]]) -> None:
        keys = [key for key, _ in items]
        self._write(keys, lambda: self._store.set_values(items), [v for _, v in items])

    def _set_vectored(self, key: str, views: list[memoryview]) -> None:
        value = b"".join(views) if self.cache_set_data else None
        self._write([key], lambda: self._store.set_vectored(key, views), [value])

    def _set_partial_values(self, items: list[tuple[str, int, memoryview]]) -> None:
        keys = sorted({key for key, _, _ in items})
        self._write(keys, lambda: self._store.set_partial_values(items), [None] * len(keys))

    def _erase(self, key: str) -> None:
        self._write([key], lambda: self._store.erase(key), [None])

    def _erase_values(self, keys: list[str]) -> None:
        self._write(keys, lambda: self._store.erase_values(keys), [None] * len(keys))

    def _erase_prefix(self, prefix: str) -> None:
        state = self._state
        with _Held(state.stripes):
            self._store.erase_prefix(prefix)
            with state.lock:
                state.epoch += 1
                self._cache.erase_prefix(prefix)
                for entry in list(state.order):
                    key = entry if isinstance(entry, str) else entry[0]
                    if key.startswith(prefix):
                        self._forget(entry)

    # -- listings: the source's ----------------------------------------------------------

    def _list(self) -> Iterator[str]:
        return self._store.list()

    def _list_prefix(self, prefix: str) -> Iterator[str]:
        return self._store.list_prefix(prefix)

    def _list_dir(self, prefix: str) -> Iterable[str]:
        return self._store.list_dir(prefix)


class _CachedReader(RangeReader):
    """A CacheStore's reader: the source's reader held open (the version it opened), the
    write stamp and `_version_of` the source value at the open (see `read_ranges`)."""

    def __init__(self, store: CacheStore, key: str, source: RangeReader,
                 stamp: tuple[int, int], version: Any) -> None:
        super().__init__(store, key, source.size)
        self.source = source
        self.stamp = stamp
        self.version = version

    def read(self, offset: int, length: int | None) -> Buffer:
        return self.store.read_ranges([(self, [(offset, length)])])[0][0]

    def read_ranges(self, ranges: list[tuple[int, int | None]]) -> list[Buffer]:
        return self.store.read_ranges([(self, ranges)])[0]

    def close(self) -> None:
        self.source.close()


def _version_of(reader: RangeReader) -> Any:
    """What tells one version of a source value from another: the size, and the ETag of a
    remote reader or the file's identity and modification time of a local one."""
    etag = getattr(reader, "etag", None)
    if etag is not None:
        return reader.size, etag
    fileno = getattr(reader, "fileno", None)
    if fileno is not None:
        try:
            st = os.fstat(fileno())
        except (OSError, ValueError):
            return reader.size
        return reader.size, st.st_dev, st.st_ino, st.st_mtime_ns
    return reader.size


class _Held:
    """Hold several locks (taken in the order given) for a ``with`` block."""

    def __init__(self, locks: list[threading.Lock]) -> None:
        self._locks = locks

    def __enter__(self) -> None:
        for lock in self._locks:
            lock.acquire()

    def __exit__(self, *exc_info: object) -> None:
        for lock in reversed(self._locks):
            lock.release()

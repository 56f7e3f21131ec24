"""RemoteStore: what the object-store backends share (batching, coalescing, index cache).

A backend (`zarrhpc.storage._obstore.ObstoreStore`, `zarrhpc.storage._fsspec.FsspecStore`)
implements six primitives on keys relative to the store's root URL -- `_fetch` (a whole
object, a byte range, an open-ended range or a suffix; ``None`` when missing), `_head`,
`_put`, `_delete`, `_list_keys`, `_list_names` -- and this class turns them into the
`zarrhpc.storage.abc.Store` hooks:

- ``_get_values`` fetches every key concurrently on the store's thread pool
  (``concurrency`` threads, see below), one request per key; ``_iter_values`` does the
  same but yields each value as it arrives, each finished request starting the next (a
  completion callback), so ``concurrency`` requests stay in flight while the caller
  decodes what has arrived.
- ``_get_partial_values`` groups the ranges by key, coalesces the ranges of one key that
  lie within ``coalesce_gap`` bytes of each other into one request (at most
  ``coalesce_max`` bytes unless a single range is larger; `zarrhpc.storage._ranges`),
  fetches every request concurrently and splits the answers back.
- The gap a shard reader merges over grows with what a request to that object costs:
  opening the reader times its one small request (the *probe*: the tail read, kept with
  the cached index), and a gap of ``probe x coalesce_rate`` bytes (at least 64 KiB or
  ``coalesce_gap`` if smaller, at most ``coalesce_max``) is fetched rather than paying
  another request; ``coalesce_gap`` is the gap where nothing was timed.
  ``coalesce_rate`` (default 100 MiB/s, about one S3 stream; 0: the fixed gap
  ``coalesce_gap``) is what an extra byte is taken to cost. On a fast server (loopback,
  a file server) the probe is well under a millisecond and the gap 64 KiB: the inner
  chunks of a sub-volume come in a request per run of adjacent ones, all in flight
  together, with no bytes between them (localbucket, 128^3 of a 256^3 shard: 16
  requests of 6.3 MiB instead of 4 of 11 MiB, ~5 % less client CPU); where a request
  costs tens of milliseconds (an object store's first byte, or moto, which reads the
  whole object to answer any range of it: 67 ms for 128 KiB of a 53 MiB shard) the
  inner chunks of a sub-volume come in one or two requests instead of four. A reader
  opened without such a request (`FsspecStore`'s: a HEAD, which costs moto no read of
  the object) times its first small read instead, the shard's index.
- `set_values` uploads several values concurrently, `submit_set` starts one upload on
  the I/O threads and returns its future; a value is one atomic PUT (`SINGLE_PUT_MAX`).
- The *tail cache*: `open_reader` (how the read path opens a shard) fetches the last
  ``tail_bytes`` of the object in one suffix request, which also tells its size and ETag,
  so a shard's size and index cost one request. Those bytes (and every suffix read, as a
  shard index read by zarr-python's layout is) are kept, per key, while the store is open
  (at most ``cache_bytes`` in all, least recently used first out), so the next read of the
  same shard starts with its index at hand. Every later ranged read of a cached key is sent
  with ``If-Match: <ETag>``: if another writer replaced the object meanwhile, the server
  answers 412, the entry is dropped and the read fails with `StoreError` rather than mixing
  two versions. A write or erase through this store, a view of it from `with_read_only`,
  or any other store object of this process on the same bucket (another open of the same
  URL: `_peer_caches`) drops the entry first: bytes served from the cache itself (a small
  shard lies wholly in its tail) are never sent again, so without that a second store
  object went on reading the shard's old values after this process replaced it. Another
  process's writes are seen when an entry is dropped or evicted, or by ``If-Match``; set
  ``cache_bytes=0`` where other processes rewrite shards that this one reads again.
  Backends that give no ETag cache nothing.

What the read path does to get the fewest round trips: chunks of a request with ONE
`iter_values` (or `get_values`) call; shards opened with `open_readers` (all at once: size
and index of each in one request, or none when cached); the inner chunks of all shards
with ONE `read_ranges` call over their readers (each reader's spans coalesced, every span
of every shard in flight together, each checked with its reader's ETag); writes with
`submit_set`, each chunk's upload started by the thread that encoded it, as soon as it is
encoded (the write path's `zarrhpc.core._write.UploadQueue` keeps at most
``concurrency`` in flight).

Settings (arguments of every remote store, also accepted in ``storage_options`` by
`zarrhpc.storage.remote.open_url`): ``concurrency`` (default 64, or the environment variable
``ZARRHPC_REMOTE_CONCURRENCY``; enough that a 64-chunk request or write is in flight at
once, so one request's latency is paid about once), ``retry_timeout`` (the deadline
of one request -- a GET, a PUT, a listing, a delete -- with every retry of its transient
errors (5xx, timeouts, dropped connections, cut answers) and every pause between them:
no pause or try runs past it, a try started late is cut at it, so a request that keeps
failing ends within ``retry_timeout`` seconds on either backend; default 30; 0: one try,
no retries), ``request_timeout`` (seconds one try may take, connection, answer and body
included, default 30: obstore's own default; a try is cut at the lesser of it and the
time left), ``coalesce_gap``
(default 1 MiB), ``coalesce_max`` (default 16 MiB), ``coalesce_rate`` (bytes per second,
default 100 MiB/s, see above), ``tail_bytes`` (default 64 KiB),
``cache_bytes`` (default 64 MiB; 0 turns the tail cache off), ``readahead`` (bytes a shard
reader fetches ahead once reads go forward, default 4 MiB; 0: none).

Errors: a missing key reads as ``None``; every other failure is a `StoreError` whose
message names the URL and the key.
"""

from __future__ import annotations

import copy
import os
import queue
import random
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, NamedTuple

from zarrhpc.errors import ReadOnlyError, StoreError
from zarrhpc.storage._ranges import coalesce, split
from zarrhpc.storage._values import checked_length
from zarrhpc.storage.abc import Buffer, RangeReader, Store, resolve_range

__all__ = ["ABORT_SECONDS", "PART_BYTES", "SETTINGS", "SINGLE_PUT_MAX", "Fetched",
           "ObjectChanged", "RemoteStore", "backoff", "store_settings"]

def backoff(retry_timeout: float) -> Iterator[float]:
    """The pauses between tries of a call that failed transiently: jittered, doubling from
    50 ms to 5 s; it ends once the next pause would pass ``retry_timeout`` seconds from
    now (the first try), so the caller then raises."""
    deadline = time.monotonic() + retry_timeout

    def pauses() -> Iterator[float]:
        delay = 0.05
        while time.monotonic() + delay <= deadline:
            yield delay * (0.5 + random.random())
            delay = min(delay * 2, 5.0)
    return pauses()


#: The largest value sent in one PUT (under S3's 5 GiB and Azure's 5000 MiB): atomic,
#: nothing left behind if it fails or is cut. Larger: a multipart upload of `PART_BYTES`
#: parts, aborted on failure or cut where the library allows (s3fs: ours; obstore aborts
#: only some failures itself). `ABORT_SECONDS`: the time an abort may take.
SINGLE_PUT_MAX, PART_BYTES, ABORT_SECONDS = 4 << 30, 64 << 20, 2.0

#: The store settings and their defaults (see the module docstring).
SETTINGS = {
    "concurrency": None,  # None: ZARRHPC_REMOTE_CONCURRENCY or 64
    "retry_timeout": 30.0,
    "request_timeout": 30.0,
    "coalesce_gap": 1 << 20,
    "coalesce_max": 16 << 20,
    "coalesce_rate": 100 << 20,
    "tail_bytes": 64 << 10,
    "cache_bytes": 64 << 20,
    "readahead": 4 << 20,
}


#: The least gap merged over once a request to the object was timed (`coalesce_gap`):
#: below it, splitting a span costs more per request than the bytes saved.
_PROBED_MIN_GAP = 64 << 10

_MAY_BE_ZERO = ("retry_timeout", "cache_bytes", "coalesce_gap", "coalesce_rate", "readahead")


def store_settings(options: dict[str, Any]) -> dict[str, Any]:
    """Pop the store settings out of ``options`` (in place) and return them, checked."""
    out = {}
    for name, default in SETTINGS.items():
        value = options.pop(name, default)
        if name == "concurrency" and value is None:
            raw = os.environ.get("ZARRHPC_REMOTE_CONCURRENCY", "64")
            try:
                value = int(raw)
            except ValueError:
                raise ValueError(
                    f"ZARRHPC_REMOTE_CONCURRENCY: expected a positive integer, got {raw!r}"
                ) from None
        if name in ("retry_timeout", "request_timeout"):
            ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
            ok = ok and (value > 0 or name == "retry_timeout")
        else:
            ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
            ok = ok and (value >= 1 or name in _MAY_BE_ZERO)
        if not ok:
            least = 0 if name in _MAY_BE_ZERO else 1
            if name == "request_timeout":
                raise ValueError(f"remote store setting {name}: expected a number of "
                                 f"seconds > 0, got {value!r}")
            raise ValueError(f"remote store setting {name}: expected a number >= {least}, "
                             f"got {value!r}")
        out[name] = value
    return out


_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_pool_lock = threading.Lock()


def _shared_pool(size: int) -> ThreadPoolExecutor:
    """The I/O threads every remote store shares (at least ``size`` of them).

    Requests block in the backend with the GIL released; one pool for the process keeps
    the thread count bounded however many stores are open. Each call bounds its own
    requests in flight to its store's ``concurrency``.
    """
    global _pool, _pool_size
    with _pool_lock:
        if _pool is None or _pool_size < size:
            # a bigger pool replaces the old one, which is left to idle (not shut down:
            # a call may be about to submit to it)
            _pool_size = max(size, 32)
            _pool = ThreadPoolExecutor(_pool_size, thread_name_prefix="zarrhpc-remote")
        return _pool


class Fetched(NamedTuple):
    """What a backend's `RemoteStore._fetch` returns for an object that exists."""

    data: Buffer
    size: int | None  # the whole object's size, when the answer tells it
    etag: str | None


class ObjectChanged(Exception):
    """Raised by a backend when an ``If-Match`` precondition fails (HTTP 412)."""


class _Entry:
    __slots__ = ("etag", "nbytes", "probe", "segments", "size")

    def __init__(self, size: int, etag: str) -> None:
        self.size = size
        self.etag = etag
        self.segments: list[tuple[int, bytes]] = []
        self.nbytes = 0
        self.probe: float | None = None  # seconds a small request to the object took

    def lookup(self, start: int, stop: int) -> memoryview | None:
        for seg_start, data in self.segments:
            if seg_start <= start and stop <= seg_start + len(data):
                return memoryview(data)[start - seg_start:stop - seg_start]
        return None


class _TailCache:
    """Per key: size, ETag and a few cached byte segments (LRU by bytes, thread-safe)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.url = ""  # the root URL of the store(s) it serves (`_register_cache`)
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._nbytes = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> _Entry | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def add(self, key: str, size: int, etag: str | None, start: int, data: Buffer,
            probe: float | None = None) -> None:
        if etag is None or self.max_bytes <= 0:
            return
        data = bytes(data)
        if len(data) > self.max_bytes:
            return
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry.etag != etag or entry.size != size:
                if entry is not None:
                    self._nbytes -= entry.nbytes
                entry = self._entries[key] = _Entry(size, etag)
            if probe is not None:
                entry.probe = probe
            if entry.lookup(start, start + len(data)) is None:
                entry.segments.append((start, data))
                entry.nbytes += len(data)
                self._nbytes += len(data)
            self._entries.move_to_end(key)
            while self._nbytes > self.max_bytes and self._entries:
                _, old = self._entries.popitem(last=False)
                self._nbytes -= old.nbytes

    def drop(self, key: str) -> None:
        with self._lock:
            entry = self._entries.pop(key, None)
            if entry is not None:
                self._nbytes -= entry.nbytes

    def drop_prefix(self, prefix: str) -> None:
        with self._lock:
            for key in [k for k in self._entries if k.startswith(prefix)]:
                self._nbytes -= self._entries.pop(key).nbytes


# Every tail cache of the process by bucket ("s3://bucket"), each knowing its store's
# root URL: a write or erase through any store object drops the key from all of them.
_CACHES: dict[str, weakref.WeakSet] = {}
_CACHES_LOCK = threading.Lock()


def _bucket_of(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    return scheme + sep + rest.split("/", 1)[0]


def _register_cache(cache: _TailCache, url: str) -> None:
    cache.url = url
    with _CACHES_LOCK:
        _CACHES.setdefault(_bucket_of(url), weakref.WeakSet()).add(cache)


def _peer_caches(url: str) -> list[_TailCache]:
    with _CACHES_LOCK:
        return list(_CACHES.get(_bucket_of(url), ()))


def _drop_everywhere(url: str, key: str, prefix: bool = False) -> None:
    """Drop ``key`` (every key under it when ``prefix``) of the store rooted at ``url``
    from every tail cache of the process holding objects of the same bucket."""
    target = f"{url}/{key}" if key else url
    for cache in _peer_caches(url):
        root = cache.url
        if target.startswith(root + "/") or target == root:
            rel = target[len(root) + 1:]
            if prefix:
                cache.drop_prefix(rel)
            else:
                cache.drop(rel)
        elif prefix and (root + "/").startswith(target.rstrip("/") + "/"):
            cache.drop_prefix("")  # the other store's root lies under the prefix


class _RemoteReader(RangeReader):
    """A shard reader: size and ETag from the open; reads checked against that ETag.

    Read-ahead: once two reads in a row go forward (the second starting at most
    ``coalesce_gap`` bytes after the first ended), each read that misses fetches
    ``readahead`` bytes from its start, so a caller reading many neighbouring inner chunks
    one by one makes a few requests, not one each. A lone read fetches only its range.
    """

    def __init__(self, store: RemoteStore, key: str, size: int, etag: str | None,
                 probe: float | None = None) -> None:
        super().__init__(store, key, size)
        self.etag = etag
        self.gap = store.coalesce_gap(probe)
        # opened without a timed request (a HEAD: FsspecStore): the first small read (a
        # shard's index) is the probe
        self._unprobed = probe is None
        self._ahead: tuple[int, Buffer] | None = None
        self._last_stop: int | None = None

    def read(self, offset: int, length: int | None) -> Buffer:
        start, stop = resolve_range(self.size, offset, length)
        if stop <= start:
            return b""
        store = self.store
        last, self._last_stop = self._last_stop, stop
        entry = store._cache.get(self.key)
        if entry is not None and entry.etag == self.etag:
            hit = entry.lookup(start, stop)
            if hit is not None:
                return hit
        if self._ahead is not None:
            a_start, a_data = self._ahead
            if a_start <= start and stop <= a_start + len(a_data):
                return memoryview(a_data)[start - a_start:stop - a_start]
        ahead = store.settings["readahead"]
        forward = last is not None and 0 <= start - last <= self.gap
        fetch_stop = min(self.size, max(stop, start + ahead)) if forward and ahead else stop
        got = self._fetch(start, fetch_stop)
        if stop == self.size:  # an index at the end of the shard: worth keeping
            store._cache.add(self.key, self.size, self.etag, start, got.data)
        if fetch_stop > stop:
            self._ahead = (start, got.data)
            return memoryview(got.data)[:stop - start]
        return got.data

    def _fetch(self, start: int, stop: int) -> Fetched:
        """Bytes ``[start, stop)`` of the version opened; the first small one timed as the
        probe when the open timed none."""
        store = self.store
        t0 = time.perf_counter()
        got = store._checked_fetch(self.key, start, stop, etag=self.etag)
        if got is None:
            raise StoreError(f"{store.url_of(self.key)}: the object was deleted while being read")
        if self._unprobed and stop - start <= store.settings["tail_bytes"]:
            self._unprobed = False
            self.gap = store.coalesce_gap(time.perf_counter() - t0)
        return got

    def close(self) -> None:
        self._ahead = None

    def read_ranges(self, ranges: list[tuple[int, int | None]]) -> list[Buffer]:
        """The bytes of several ``(offset, length)`` ranges, coalesced and fetched
        concurrently (each checked against the ETag the reader opened)."""
        out: list[Buffer] = [b""] * len(ranges)
        self.store._map(lambda task: task(), self.plan_ranges(ranges, out))
        return out

    def plan_ranges(self, ranges: list[tuple[int, int | None]],
                    out: list) -> list[Callable[[], list[int]]]:
        """Fill ``out[i]`` with what the cache holds of range ``i``; return the fetches
        (coalesced spans, checked against the reader's ETag) that fill the rest, each
        returning the indices it filled."""
        store = self.store
        absolute: list[tuple[int, int]] = []
        where: list[int] = []
        entry = store._cache.get(self.key)
        if entry is not None and entry.etag != self.etag:
            entry = None
        for i, (offset, length) in enumerate(ranges):
            start, stop = resolve_range(self.size, offset, length)
            if stop <= start:
                out[i] = b""
                continue
            hit = entry.lookup(start, stop) if entry is not None else None
            if hit is not None:
                out[i] = hit
                continue
            absolute.append((start, stop))
            where.append(i)
        gap, most = self.gap, store.settings["coalesce_max"]

        def task(span: Any) -> Callable[[], list[int]]:
            def run() -> list[int]:
                got = self._fetch(span.start, span.stop)
                filled = []
                for m, data in split(span, got.data, absolute):
                    out[where[m]] = data
                    filled.append(where[m])
                return filled
            return run

        return [task(span) for span in coalesce(absolute, gap, most)]


class RemoteStore(Store):
    """Base class of the object-store backends (see the module docstring).

    Parameters
    ----------
    url : str
        The store's root URL (``s3://bucket/path``, ``https://host/path``...).
    read_only : bool
        Refuse writes with `ReadOnlyError`.
    **settings
        ``concurrency``, ``retry_timeout``, ``request_timeout``, ``coalesce_gap``,
        ``coalesce_max``, ``coalesce_rate``, ``tail_bytes``, ``cache_bytes``, ``readahead``.
    """

    def __init__(self, url: str, *, read_only: bool = False, **settings: Any) -> None:
        super().__init__(read_only=read_only)
        self.url = url.rstrip("/")
        self.settings = store_settings(dict(settings))
        unknown = set(settings) - set(SETTINGS)
        if unknown:
            raise TypeError(f"{type(self).__name__}: unknown settings {sorted(unknown)}")
        self._cache = _TailCache(self.settings["cache_bytes"])
        _register_cache(self._cache, self.url)

    # -- backend primitives (subclasses) -----------------------------------------------

    def _fetch(self, key: str, start: int | None = None, stop: int | None = None,
               suffix: int | None = None, etag: str | None = None) -> Fetched | None:
        """The whole object, ``[start, stop)`` (``stop`` None: to the end) or the last
        ``suffix`` bytes; ``b""`` past the end; ``None`` if missing; `ObjectChanged` when
        ``etag`` is given and does not match."""
        raise NotImplementedError

    def _head(self, key: str) -> tuple[int, str | None] | None:
        raise NotImplementedError

    def _put(self, key: str, data: memoryview) -> None:
        raise NotImplementedError

    def _delete(self, keys: list[str]) -> None:
        raise NotImplementedError

    def _list_keys(self, prefix: str) -> Iterator[str]:
        raise NotImplementedError

    def _list_names(self, prefix: str) -> Iterable[str]:
        raise NotImplementedError

    # -- helpers -----------------------------------------------------------------------

    def url_of(self, key: str) -> str:
        """The URL of ``key`` (for messages)."""
        return f"{self.url}/{key}" if key else self.url

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.url!r}, read_only={self._read_only})"

    def _check_writable(self, key: str, action: str) -> None:
        if self._read_only and not self._closed:  # named by URL, whatever the repr
            raise ReadOnlyError(f"{key!r}: cannot {action}: {self.url} is read-only")
        super()._check_writable(key, action)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RemoteStore):
            return NotImplemented
        return (type(self) is type(other) and self.url == other.url
                and self._read_only == other._read_only
                and getattr(self, "storage_options", None)
                == getattr(other, "storage_options", None))

    def __hash__(self) -> int:
        return hash((type(self), self.url, self._read_only))

    def with_read_only(self, read_only: bool = True) -> RemoteStore:
        """Another view of the same objects with the given mode (sharing the tail cache,
        so that a write through one view drops what the other cached)."""
        view = copy.copy(self)
        view._read_only = bool(read_only)
        view._closed = False
        return view

    def _map(self, fn: Callable[[Any], Any], items: list) -> list:
        """``[fn(x) for x in items]`` with at most ``concurrency`` calls in flight."""
        limit = self.settings["concurrency"]
        if len(items) <= 1 or limit == 1:
            return [fn(x) for x in items]
        pool = _shared_pool(limit)
        results: list = [None] * len(items)
        pending: dict = {}
        try:
            for i, x in enumerate(items):
                if len(pending) >= limit:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for f in done:
                        results[pending.pop(f)] = f.result()
                pending[pool.submit(fn, x)] = i
            for f in list(pending):
                results[pending.pop(f)] = f.result()
        finally:
            for f in pending:
                f.cancel()
            wait(pending)
        return results

    def close(self) -> None:
        super().close()
        self._cache.drop_prefix("")

    def _checked_fetch(self, key: str, start: int | None = None, stop: int | None = None,
                       suffix: int | None = None,
                       etag: str | None = None) -> Fetched | None:
        try:
            return checked_length(self.url_of(key), self._fetch(key, start, stop, suffix, etag),
                                   start, stop, suffix)
        except ObjectChanged:
            self._cache.drop(key)
            raise StoreError(
                f"{self.url_of(key)}: the object was replaced by another writer while being "
                "read (its ETag changed since its index was read); read it again"
            ) from None

    # -- readable ----------------------------------------------------------------------

    def _get(self, key: str) -> Buffer | None:
        got = self._fetch(key)
        return None if got is None else got.data

    def _get_values(self, keys: list[str]) -> list[Buffer | None]:
        return self._map(self._get, keys)

    def _iter_values(self, keys: list[str]) -> Iterator[tuple[int, Buffer | None]]:
        if len(keys) <= 1 or self.settings["concurrency"] == 1:
            yield from super()._iter_values(keys)
            return
        yield from self._iter_map(self._get, keys)

    def _iter_map(self, fn: Callable[[Any], Any], items: list) -> Iterator[tuple[int, Any]]:
        """Yield ``(i, fn(items[i]))`` as each call returns, at most ``concurrency`` in
        flight on the shared pool; each finished call starts the next (a completion
        callback), whether or not the consumer is busy. Abandoning the iterator stops
        new calls."""
        limit = self.settings["concurrency"]
        pool = _shared_pool(limit)
        arrived: queue.SimpleQueue = queue.SimpleQueue()
        lock = threading.Lock()
        state = {"next": 0, "stop": False}

        def launch() -> None:
            with lock:
                if state["stop"] or state["next"] >= len(items):
                    return
                i = state["next"]
                state["next"] += 1
            try:
                future = pool.submit(fn, items[i])
            except BaseException as exc:  # the pool is shutting down: report, never hang
                future = Future()
                future.set_exception(exc)
            future.add_done_callback(lambda f, i=i: (arrived.put((i, f)), launch()))

        for _ in range(min(limit, len(items))):
            launch()
        try:
            for _ in range(len(items)):
                i, future = arrived.get()
                yield i, future.result()
        finally:
            with lock:
                state["stop"] = True

    def _exists(self, key: str) -> bool:
        return self._head(key) is not None

    def _getsize(self, key: str) -> int | None:
        entry = self._cache.get(key)
        if entry is not None:
            return entry.size
        head = self._head(key)
        if head is None:
            return None
        # remember size and ETag: a later index read at the end of the object is kept
        self._cache.add(key, head[0], head[1], head[0], b"")
        return head[0]

    def _open_reader(self, key: str) -> RangeReader | None:
        entry = self._cache.get(key)
        if entry is not None:
            return _RemoteReader(self, key, entry.size, entry.etag, entry.probe)
        t0 = time.perf_counter()
        got = checked_length(self.url_of(key), self._fetch(key, suffix=self.settings["tail_bytes"]),
                              None, None, self.settings["tail_bytes"])
        probe = time.perf_counter() - t0
        if got is None:
            return None
        size, etag = got.size, got.etag
        if size is None:
            head = self._head(key)
            if head is None:
                return None
            size, etag = head
        else:
            self._cache.add(key, size, etag, size - memoryview(got.data).nbytes, got.data,
                            probe)
        return _RemoteReader(self, key, size, etag, probe)

    def coalesce_gap(self, probe: float | None) -> int:
        """Bytes of gap worth fetching rather than paying another request to an object
        whose small request took ``probe`` seconds (see the module docstring)."""
        gap = self.settings["coalesce_gap"]
        if probe is None or not self.settings["coalesce_rate"]:
            return gap
        cost = int(probe * self.settings["coalesce_rate"])
        return max(min(gap, _PROBED_MIN_GAP), min(cost, self.settings["coalesce_max"]))

    def open_readers(self, keys: Iterable[str]) -> list[RangeReader | None]:
        """`open_reader` of several keys at once, concurrently (one request each at most:
        a shard's size and index come together)."""
        self._check_open()
        return self._map(self._open_reader, [self._validate_key(k) for k in keys])

    def read_ranges(
        self, requests: list[tuple[RangeReader, list[tuple[int, int | None]]]]
    ) -> list[list[Buffer]]:
        """The ranges of several readers in one batch: coalesced per object, every
        request of every reader in flight together (at most ``concurrency``)."""
        self._check_open()
        outs: list[list[Buffer]] = []
        tasks: list[Callable[[], None]] = []
        for reader, ranges in requests:
            out: list[Buffer] = [b""] * len(ranges)
            outs.append(out)
            if isinstance(reader, _RemoteReader):
                tasks.extend(reader.plan_ranges(ranges, out))
            else:
                out[:] = reader.read_ranges(ranges)
        self._map(lambda task: task(), tasks)
        return outs

    def iter_ranges(
        self, requests: list[tuple[RangeReader, list[tuple[int, int | None]]]]
    ) -> Iterator[tuple[int, int, Buffer]]:
        """`read_ranges`, yielding ``(n, i, bytes)`` per range as its request completes
        (ranges the tail cache holds first), so the caller decodes while the rest are in
        flight."""
        self._check_open()
        tasks: list[tuple[int, list, Callable[[], list[int]]]] = []
        ready: list[tuple[int, int, Buffer]] = []
        for n, (reader, ranges) in enumerate(requests):
            out: list[Buffer | None] = [None] * len(ranges)
            if not isinstance(reader, _RemoteReader):
                ready.extend((n, i, b) for i, b in enumerate(reader.read_ranges(ranges)))
                continue
            tasks.extend((n, out, task) for task in reader.plan_ranges(ranges, out))
            ready.extend((n, i, b) for i, b in enumerate(out) if b is not None)
        yield from ready
        for _, (n, out, filled) in self._iter_map(lambda t: (t[0], t[1], t[2]()), tasks):
            for i in filled:
                yield n, i, out[i]

    def _get_partial_values(
        self, requests: list[tuple[str, int, int | None]]
    ) -> list[Buffer | None]:
        out: list[Buffer | None] = [None] * len(requests)
        by_key: dict[str, list[tuple[int, int, int | None]]] = {}
        for i, (key, offset, length) in enumerate(requests):
            by_key.setdefault(key, []).append((i, offset, length))
        tasks: list[Callable[[], None]] = []
        for key, items in by_key.items():
            tasks.extend(self._plan_key(key, items, out))
        self._map(lambda task: task(), tasks)
        return out

    def _plan_key(self, key: str, items: list, out: list) -> list[Callable[[], None]]:
        """Fill what the cache holds; return the fetches for the rest of one key's ranges."""
        entry = self._cache.get(key)
        absolute: list[tuple[int, int]] = []
        where: list[int] = []
        tasks: list[Callable[[], None]] = []
        for i, offset, length in items:
            if entry is not None:
                start, stop = resolve_range(entry.size, offset, length)
                hit = entry.lookup(start, stop) if stop > start else memoryview(b"")
                if hit is not None:
                    out[i] = hit
                    continue
            elif offset < 0:
                tasks.append(self._suffix_task(key, i, offset, length, out))
                continue
            elif length is None:
                tasks.append(self._open_end_task(key, i, offset, out))
                continue
            else:
                start, stop = offset, offset + length
            absolute.append((start, stop))
            where.append(i)
        if absolute:
            gap = self.coalesce_gap(None if entry is None else entry.probe)
            for span in coalesce(absolute, gap, self.settings["coalesce_max"]):
                tasks.append(self._span_task(key, span, absolute, where, entry, out))
        return tasks

    def _suffix_task(self, key: str, i: int, offset: int, length: int | None,
                     out: list) -> Callable[[], None]:
        def run() -> None:
            got = self._checked_fetch(key, suffix=-offset)
            if got is None:
                return
            view = memoryview(got.data)
            if got.size is not None:
                self._cache.add(key, got.size, got.etag, got.size - view.nbytes, view)
            out[i] = view if length is None else view[:length]
        return run

    def _open_end_task(self, key: str, i: int, offset: int, out: list) -> Callable[[], None]:
        def run() -> None:
            got = self._checked_fetch(key, start=offset)
            out[i] = None if got is None else got.data
        return run

    def _span_task(self, key: str, span: Any, ranges: list, where: list,
                   entry: _Entry | None, out: list) -> Callable[[], None]:
        etag = None if entry is None else entry.etag

        def run() -> None:
            if span.stop <= span.start:  # only empty ranges: the key's existence decides
                found = self._head(key) is not None
                for m in span.members:
                    out[where[m]] = b"" if found else None
                return
            got = self._checked_fetch(key, span.start, span.stop, etag=etag)
            if got is None:
                return
            if (entry is not None and span.stop == entry.size
                    and span.stop - span.start <= self.settings["tail_bytes"]):
                self._cache.add(key, entry.size, etag, span.start, got.data)  # an index
            for m, data in split(span, got.data, ranges):
                out[where[m]] = data
        return run

    # -- writeable ---------------------------------------------------------------------

    def _set(self, key: str, data: memoryview) -> None:
        _drop_everywhere(self.url, key)
        self._put(key, data)
        _drop_everywhere(self.url, key)

    def _set_values(self, items: list[tuple[str, memoryview]]) -> None:
        self._map(lambda kv: self._set(*kv), items)

    def _submit_set(self, key: str, data: memoryview) -> Future:
        # the caller (the write path's `UploadQueue`) bounds what is in flight
        return _shared_pool(self.settings["concurrency"]).submit(self._set, key, data)

    @property
    def concurrency(self) -> int:
        return self.settings["concurrency"]

    def _erase(self, key: str) -> None:
        self._erase_values([key])

    def _erase_values(self, keys: list[str]) -> None:
        for key in keys:
            _drop_everywhere(self.url, key)
        self._delete(keys)

    def _erase_prefix(self, prefix: str) -> None:
        _drop_everywhere(self.url, prefix, prefix=True)
        keys = list(self._list_keys(prefix))
        if keys:
            self._delete(keys)

    # -- listable ----------------------------------------------------------------------

    def _list(self) -> Iterator[str]:
        return self._list_keys("")

    def _list_prefix(self, prefix: str) -> Iterator[str]:
        return self._list_keys(prefix)

    def _list_dir(self, prefix: str) -> Iterable[str]:
        return self._list_names(prefix)

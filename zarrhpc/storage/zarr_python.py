"""zarr-python stores as zarrhpc Stores: any ``zarr.abc.store.Store`` (icechunk's
``session.store``, virtualizarr's ``ManifestStore``, zarr-python's ``MemoryStore`` or
``ZipStore``, a user's subclass) given to ``zarrhpc.open``, ``create_array``,
``xr.open_dataset(engine="zarrhpc")``...

Life cycle: store resolution (``zarrhpc.core._nodes.resolve_store``) calls `adapt` on what
it does not know. zarr-python's own ``LocalStore``, ``FsspecStore`` and ``ObjectStore``,
*exactly* those classes, become zarrhpc's store over the same directory, file system or
obstore store (the native engine then reads chunk files itself); a subclass (which may
override ``get`` to count or change reads) and every other store is wrapped in
`ZarrPythonStore`, which drives the store's asynchronous API on zarr-python's own event
loop thread, the loop its stores expect (an fsspec session is bound to it): a batch of
keys (every chunk of a request) is one batch of concurrent ``get`` coroutines, at most
zarr-python's ``async.concurrency`` in flight, yielded as they complete so the engine
decodes the first chunks while the others are fetched; byte ranges (a shard's index and
inner chunks) are ranged ``get`` calls in one batch, as zarr-python reads them. ``read_only``, ``supports_writes`` (a store that cannot
write is read-only here), ``supports_deletes``, ``supports_listing`` and
``supports_consolidated_metadata`` are the wrapped store's. zarr-python is only imported
when the object is one of its stores.

A zarrhpc store subclass that overrides ``get`` with ``async def get(self, key,
prototype=None, byte_range=None)`` (zarr-python's asynchronous signature; anndata's
``AccessTrackingStore`` counts reads this way and awaits ``super().get(...)``, which
zarrhpc's `Store.get` answers as a coroutine when given a ``prototype``) is wrapped the
same way (`AsyncGetStore`): every read of zarrhpc goes through the override.
"""

from __future__ import annotations

import asyncio
import inspect
import queue
import sys
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from typing import Any

from zarrhpc.errors import UnsupportedError
from zarrhpc.storage._values import Buffer, RangeReader, ValueReader
from zarrhpc.storage.abc import Store

__all__ = ["AsyncGetStore", "ZarrPythonStore", "adapt", "as_zarrhpc_store",
           "zarr_python_store_class"]

_DEFAULT_CONCURRENCY = 10  # zarr-python's async.concurrency default
_MISSING = (FileNotFoundError, IsADirectoryError, NotADirectoryError)


def zarr_python_store_class() -> type | None:
    """``zarr.abc.store.Store`` of zarr-python when it is imported (and is not zarrhpc
    itself, as under ``zarrhpc.testing.zarr_switch``), else None."""
    module = sys.modules.get("zarr.abc.store")
    cls = getattr(module, "Store", None)
    if cls is None or cls is Store or not isinstance(cls, type):
        return None
    return cls


def adapt(obj: Any) -> Store | None:
    """A zarrhpc Store over ``obj`` when it is a zarr-python store, else None (see the
    module docstring for which classes are taken over and which are wrapped)."""
    if isinstance(obj, Store):
        if obj.zarr_python_api:  # only zarr-python's API: driven as a zarr-python store
            return ZarrPythonStore(obj)
        return AsyncGetStore(obj) if _overrides_get(type(obj)) else None
    zstore_cls = zarr_python_store_class()
    if zstore_cls is None or not isinstance(obj, zstore_cls):
        return None
    storage = sys.modules.get("zarr.storage")
    kind = type(obj)
    if kind is getattr(storage, "LocalStore", None):
        from zarrhpc.storage.local import LocalStore

        return LocalStore(obj.root, read_only=obj.read_only)
    if kind in (getattr(storage, "FsspecStore", None), getattr(storage, "ObjectStore", None)):
        from zarrhpc.storage.remote import adopt

        adopted = adopt(obj, read_only=obj.read_only)
        if adopted is not None:
            return adopted
    return ZarrPythonStore(obj)


def as_zarrhpc_store(obj: Any) -> Any:
    """``obj`` itself, or the zarrhpc Store `adapt` makes of it."""
    adapted = adapt(obj)
    return obj if adapted is None else adapted


def _overrides_get(cls: type) -> bool:
    """Whether a zarrhpc Store class overrides ``get`` with a coroutine function."""
    return inspect.iscoroutinefunction(getattr(cls, "get", None))


def _own_getsize(cls: type) -> bool:
    """Whether a zarr-python store class has a ``getsize`` of its own (not the ABC's,
    which reads the whole value)."""
    from zarr.abc.store import Store as ZStore

    return getattr(cls, "getsize", None) is not ZStore.getsize


def _loop() -> asyncio.AbstractEventLoop:
    """zarr-python's event loop (started by it on first use)."""
    from zarr.core.sync import _get_loop

    return _get_loop()


def _run(coro) -> Any:
    """Run ``coro`` on zarr-python's loop and wait for it (refused on that loop's thread:
    it would wait for itself)."""
    loop = _loop()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        coro.close()
        raise RuntimeError("a zarrhpc store over a zarr-python store was called from a "
                           "coroutine on zarr-python's own event loop: it would wait for "
                           "itself (call it from a thread)")
    return asyncio.run_coroutine_threadsafe(coro, loop).result()


def _prototype():
    from zarr.core.buffer import default_buffer_prototype

    return default_buffer_prototype()


def _byte_request(offset: int, length: int | None):
    """zarr-python's ByteRequest for zarrhpc's ``(offset, length)`` (a negative offset is a
    suffix; the caller cuts a suffix to ``length``)."""
    from zarr.abc.store import OffsetByteRequest, RangeByteRequest, SuffixByteRequest

    if offset < 0:
        return SuffixByteRequest(-offset)
    if length is None:
        return None if offset == 0 else OffsetByteRequest(offset)
    return RangeByteRequest(offset, offset + length)


def _view(value) -> Buffer | None:
    """The bytes of a zarr-python Buffer as a read-only view (no copy), None for None."""
    if value is None:
        return None
    return memoryview(value.as_numpy_array()).cast("B").toreadonly()


class ZarrPythonStore(Store):
    """A zarr-python store seen as a zarrhpc Store (see the module docstring).

    Parameters
    ----------
    store : zarr.abc.store.Store
        Any zarr-python store (opened here if it is not yet, as zarr-python does).
    """

    def __init__(self, store) -> None:
        super().__init__(read_only=store.read_only or not store.supports_writes)
        self._zstore = store
        self._limit: asyncio.Semaphore | None = None
        self._limit_lock = threading.Lock()
        if not getattr(store, "_is_open", True):
            _run(store._ensure_open())
        self.supports_consolidated_metadata = bool(
            getattr(store, "supports_consolidated_metadata", True))
        self.supports_deletes = bool(getattr(store, "supports_deletes", True))
        self.supports_listing = bool(getattr(store, "supports_listing", True))

    # -- state -------------------------------------------------------------------------

    @property
    def wrapped(self):
        """The zarr-python store."""
        return self._zstore

    def __repr__(self) -> str:
        return f"ZarrPythonStore({self._zstore!r})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._zstore == self._zstore

    def __hash__(self) -> int:
        return hash(id(self._zstore))

    def __reduce__(self):
        return (type(self), (self._zstore,))

    def with_read_only(self, read_only: bool = True) -> ZarrPythonStore:
        try:
            other = self._zstore.with_read_only(read_only)
        except NotImplementedError as exc:
            raise UnsupportedError(f"{self!r}: {exc}") from None
        return type(self)(other)

    @property
    def concurrency(self) -> int:
        """int: zarr-python's ``async.concurrency`` (requests in flight per batch)."""
        try:
            from zarr import config

            return max(1, int(config.get("async.concurrency") or _DEFAULT_CONCURRENCY))
        except Exception:  # a zarr-python without that key
            return _DEFAULT_CONCURRENCY

    def _check_writable(self, key: str, action: str) -> None:
        super()._check_writable(key, action)
        if action in ("erase", "erase_prefix") and not self.supports_deletes:
            raise UnsupportedError(f"{key!r}: cannot {action}: {self!r} does not support "
                                   "deletes")

    def _check_listing(self, prefix: str) -> None:
        if not self.supports_listing:
            raise UnsupportedError(f"{prefix!r}: cannot list: {self!r} does not support "
                                   "listing")

    # -- one request -------------------------------------------------------------------

    def _semaphore(self) -> asyncio.Semaphore:
        # made on the loop's thread (asyncio objects belong to one loop)
        with self._limit_lock:
            if self._limit is None:
                self._limit = asyncio.Semaphore(self.concurrency)
            return self._limit

    async def _fetch(self, key: str, byte_range=None):
        async with self._semaphore():
            try:
                return await self._zstore.get(key, prototype=_prototype(),
                                              byte_range=byte_range)
            except _MISSING:  # stores that raise for a missing key (LocalStore for a
                return None  # key that is a directory, below a file)

    async def _aget(self, key: str) -> Buffer | None:
        return _view(await self._fetch(key))

    # -- readable ----------------------------------------------------------------------

    def _get(self, key: str) -> Buffer | None:
        return _run(self._aget(key))

    def _get_values(self, keys: list[str]) -> list[Buffer | None]:
        async def many():
            return await asyncio.gather(*(self._aget(k) for k in keys))

        return list(_run(many())) if keys else []

    def _iter_values(self, keys: list[str]) -> Iterator[tuple[int, Buffer | None]]:
        """Every key's value as it arrives: one batch of concurrent gets, yielded in the
        order they complete; abandoning the iterator cancels what is still in flight."""
        if len(keys) < 2:
            yield from enumerate(self._get_values(keys))
            return
        arrived: queue.SimpleQueue = queue.SimpleQueue()

        async def one(i: int, key: str) -> None:
            try:
                arrived.put((i, await self._aget(key), None))
            except BaseException as exc:  # handed to the caller's thread
                arrived.put((i, None, exc))

        async def many():
            await asyncio.gather(*(one(i, k) for i, k in enumerate(keys)))

        future = asyncio.run_coroutine_threadsafe(many(), _loop())
        try:
            for _ in keys:
                i, value, exc = arrived.get()
                if exc is not None:
                    raise exc
                yield i, value
        finally:
            future.cancel()

    def _get_partial_values(
        self, requests: list[tuple[str, int, int | None]]
    ) -> list[Buffer | None]:
        """One batch of concurrent ranged ``get`` calls, as zarr-python reads the inner
        chunks of a shard (its stores' ``get_partial_values`` raise for a missing key)."""
        async def many():
            return await asyncio.gather(*(self._fetch(key, _byte_request(offset, length))
                                          for key, offset, length in requests))

        out: list[Buffer | None] = []
        for (_, offset, length), value in zip(requests, _run(many()) if requests else []):
            view = _view(value)
            if view is not None and offset < 0 and length is not None:
                view = view[:length]
            out.append(view)
        return out

    async def _asize(self, key: str) -> int | None:
        async def size():
            async with self._semaphore():
                try:
                    return int(await self._zstore.getsize(key))
                except _MISSING:
                    return None

        # and whether it is a value: a LocalStore gives a directory's size too
        found, nbytes = await asyncio.gather(self._aexists(key), size())
        return nbytes if found else None

    def _getsize(self, key: str) -> int | None:
        return _run(self._asize(key))

    def _open_reader(self, key: str) -> RangeReader | None:
        return self.open_readers([key])[0]

    def open_readers(self, keys: Iterable[str]) -> list[RangeReader | None]:
        """Readers of several keys, opened concurrently: their sizes asked, or, when the
        store has no ``getsize`` of its own (zarr-python's fallback reads the whole value
        for it), the values taken whole once and every range read from them."""
        self._check_open()
        checked = [self._validate_key(k) for k in keys]
        if not checked:
            return []
        if _own_getsize(type(self._zstore)):
            async def sizes():
                return await asyncio.gather(*(self._asize(k) for k in checked))

            return [None if size is None else RangeReader(self, key, size)
                    for key, size in zip(checked, _run(sizes()))]
        return [None if value is None else ValueReader(self, key, value)
                for key, value in zip(checked, self._get_values(checked))]

    def read_ranges(
        self, requests: list[tuple[RangeReader, list[tuple[int, int | None]]]]
    ) -> list[list[Buffer]]:
        """Every range of every reader in one batch of concurrent ranged gets, each range
        first cut to its reader's size (some stores refuse a range past the end)."""
        self._check_open()
        if any(type(reader) is not RangeReader for reader, _ in requests):
            return Store.read_ranges(self, requests)  # values in hand: no request
        flat = []
        for reader, ranges in requests:
            for offset, length in ranges:
                start, stop = _clip(reader.size, offset, length)
                flat.append((reader.key, start, stop - start))
        values = self._get_partial_values([r for r in flat if r[2] > 0])
        found = iter(values)
        out: list[list[Buffer]] = []
        n = 0
        for _, ranges in requests:
            bufs = []
            for _ in ranges:
                value = next(found) if flat[n][2] > 0 else b""
                bufs.append(b"" if value is None else value)
                n += 1
            out.append(bufs)
        return out

    async def _aexists(self, key: str) -> bool:
        try:
            async with self._semaphore():
                return bool(await self._zstore.exists(key))
        except NotImplementedError:  # virtualizarr's ManifestStore: a get tells
            return await self._fetch(key) is not None

    def _exists(self, key: str) -> bool:
        return _run(self._aexists(key))

    # -- writeable ---------------------------------------------------------------------

    async def _aset(self, key: str, data: memoryview) -> None:
        value = _prototype().buffer.from_bytes(bytes(data))  # a copy: the caller reuses
        async with self._semaphore():
            await self._zstore.set(key, value)

    def _set(self, key: str, data: memoryview) -> None:
        _run(self._aset(key, data))

    def _set_values(self, items: list[tuple[str, memoryview]]) -> None:
        async def many():
            await asyncio.gather(*(self._aset(k, v) for k, v in items))

        if items:
            _run(many())

    def _submit_set(self, key: str, data: memoryview) -> Future:
        """The set started on the loop (the encoders go on while it runs)."""
        return asyncio.run_coroutine_threadsafe(self._aset(key, data), _loop())

    async def _adelete(self, key: str) -> None:
        # only a stored value: zarr-python's LocalStore deletes a directory's tree
        if await self._aexists(key):
            async with self._semaphore():
                await self._zstore.delete(key)

    def _erase(self, key: str) -> None:
        _run(self._adelete(key))

    def _erase_values(self, keys: list[str]) -> None:
        async def many():
            await asyncio.gather(*(self._adelete(k) for k in keys))

        if keys:
            _run(many())

    def _erase_prefix(self, prefix: str) -> None:
        # the keys listed, then deleted: zarr-python's delete_dir refuses a prefix that is
        # also a key (LocalStore), where zarrhpc erases what is below it
        self._erase_values(list(self._list_prefix(prefix)))

    # -- listable ----------------------------------------------------------------------

    @staticmethod
    async def _collect(agen) -> list[str]:
        return [k async for k in agen]

    def _list(self) -> Iterator[str]:
        self._check_listing("")
        return iter(_run(self._collect(self._zstore.list())))

    def _list_prefix(self, prefix: str) -> Iterator[str]:
        self._check_listing(prefix)
        return iter(_run(self._collect(self._zstore.list_prefix(prefix))))

    def _list_dir(self, prefix: str) -> Iterable[str]:
        self._check_listing(prefix)
        return {name.rstrip("/") for name in
                _run(self._collect(self._zstore.list_dir(prefix.rstrip("/"))))}


def _clip(size: int, offset: int, length: int | None) -> tuple[int, int]:
    from zarrhpc.storage._values import resolve_range

    return resolve_range(size, offset, length)


class AsyncGetStore(ZarrPythonStore):
    """A zarrhpc store whose class overrides ``get`` with zarr-python's ``async def get``:
    every read goes through the override (awaited on zarr-python's loop, batches
    concurrently); everything else is the store's own synchronous method (no listing,
    writing or deleting through the asynchronous API: zarrhpc's store has them)."""

    def __init__(self, store: Store) -> None:
        Store.__init__(self, read_only=store.read_only)
        self._zstore = store
        self._limit = None
        self._limit_lock = threading.Lock()
        for flag in ("supports_consolidated_metadata", "supports_deletes",
                     "supports_listing"):
            setattr(self, flag, getattr(store, flag, True))

    def __repr__(self) -> str:
        return repr(self._zstore)

    def with_read_only(self, read_only: bool = True) -> AsyncGetStore:
        return AsyncGetStore(self._zstore.with_read_only(read_only))

    @property
    def concurrency(self) -> int:
        return max(self._zstore.concurrency, 2)

    def _getsize(self, key: str) -> int | None:
        return self._zstore.getsize(key)

    def _open_reader(self, key: str) -> RangeReader | None:
        return Store._open_reader(self, key)  # its size from the store's own getsize

    def open_readers(self, keys: Iterable[str]) -> list[RangeReader | None]:
        return Store.open_readers(self, keys)

    def _exists(self, key: str) -> bool:
        return self._zstore.exists(key)

    def _set(self, key: str, data: memoryview) -> None:
        self._zstore.set(key, data)

    def _set_values(self, items: list[tuple[str, memoryview]]) -> None:
        self._zstore.set_values(items)

    def _submit_set(self, key: str, data: memoryview) -> Future:
        return self._zstore.submit_set(key, data)

    def _erase(self, key: str) -> None:
        self._zstore.erase(key)

    def _erase_values(self, keys: list[str]) -> None:
        self._zstore.erase_values(keys)

    def _erase_prefix(self, prefix: str) -> None:
        self._zstore.erase_prefix(prefix)

    def _list(self) -> Iterator[str]:
        return self._zstore.list()

    def _list_prefix(self, prefix: str) -> Iterator[str]:
        return self._zstore.list_prefix(prefix)

    def _list_dir(self, prefix: str) -> Iterable[str]:
        return self._zstore.list_dir(prefix)


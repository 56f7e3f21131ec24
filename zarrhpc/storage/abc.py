"""The abstract store interface of the Zarr v3 specification, as a Python class.

A store is a mapping from keys (see :mod:`zarrhpc.storage.keys`) to byte values, with the
three capabilities the specification names: *readable* (`Store.get`, `Store.get_values`,
`Store.get_partial_values`), *writeable* (`Store.set`, `Store.set_values`,
`Store.set_partial_values`,
`Store.erase`, `Store.erase_values`, `Store.erase_prefix`) and *listable* (`Store.list`,
`Store.list_prefix`, `Store.list_dir`), plus `Store.exists`.

Life cycle: a store is created open (``LocalStore(path)``, ``MemoryStore()``), used from
any number of threads, and closed with `Store.close` or by leaving a ``with`` block. After
closing, every operation raises `StoreError`. A store is read-only when created with
``read_only=True``; every write then raises `ReadOnlyError` naming the key.
`Store.with_read_only` returns another view of the same data with the other mode.

Implementing a store: the public methods validate their arguments (keys, prefixes, byte
ranges, buffers, the read-only flag, the closed flag) once, here, and then call the
underscored hooks with clean arguments. A subclass must implement `Store._get`,
`Store._set`, `Store._erase` and `Store._list`; every other hook has a correct but
generic fallback built on those four (the "StoreWithPartialAccess" fallbacks the
specification recommends), which a subclass overrides where it can do better.

Semantics shared by every store (`zarrhpc.testing.store.StoreTests` checks them):

- `get` returns a buffer (``bytes`` or a read-only ``memoryview``), or ``None`` when the
  key is missing. The caller must not try to write into it.
- `get_partial_values` takes ``(key, offset, length)`` triples. ``offset >= 0`` is the
  first byte, ``length`` the number of bytes (``None``: to the end). A negative offset
  asks for a suffix of ``-offset`` bytes (the whole value when it is shorter), after
  which ``length``, if given, limits the result further. A range reaching past the end
  returns the bytes that are there, possibly none (``b""``): reading an index at the end
  of a shard needs no separate size query. A missing key gives ``None``.
- `set` is atomic: a reader sees the old value or the new one, never a mix. Any buffer
  is accepted (``bytes``, ``bytearray``, ``memoryview``, numpy arrays); its bytes are
  copied (non-contiguous buffers in C order) before `set` returns.
- `set_partial_values` takes ``(key, offset, value)`` triples; the value is written at
  ``offset`` (``>= 0``), growing the stored value with zero bytes if the offset lies past
  its end; a missing key starts empty. Each key is updated atomically as a whole, but
  concurrent partial writes to one key may lose one another's update (last writer wins).
  Overlapping ranges for one key are applied in the order given.
- `erase` of a missing key does nothing; `erase_prefix("")` empties the store.
- prefixes are directory prefixes (see :func:`zarrhpc.storage.keys.normalize_prefix`):
  ``"a/b"`` and ``"a/b/"`` both mean the keys below ``a/b/``.
- `list` and `list_prefix` return iterators of full keys, in no particular order.
  `list_dir` returns the sorted names (not keys) of the direct children of a prefix,
  values and sub-prefixes alike, with no trailing "/".
"""

from __future__ import annotations

import abc
import operator
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from typing import Any

from zarrhpc.errors import ReadOnlyError, StoreError, UnsupportedError
from zarrhpc.storage._values import (
    Buffer,
    RangeReader,
    ValueReader,
    apply_writes,
    as_byte_view,
    check_range,
    resolve_range,
)
from zarrhpc.storage.keys import normalize_prefix, validate_key

__all__ = [
    "Store", "RangeReader", "Buffer", "as_byte_view", "check_range", "resolve_range",
    "apply_writes", "ValueReader",
]


class Store(abc.ABC):
    """A Zarr store: a mapping of keys to byte values (see the module docstring).

    Parameters
    ----------
    read_only : bool, default False
        Refuse every write with `ReadOnlyError`.
    """

    # zarr-python's Store capability flags (every zarrhpc store writes, deletes and lists;
    # partial writes go through set_partial_values, which rewrites the value)
    supports_writes = True
    supports_deletes = True
    supports_partial_writes = False
    supports_listing = True
    supports_consolidated_metadata = True

    # True for a subclass written against zarr-python's asynchronous Store API instead of
    # these hooks (see __init_subclass__)
    zarr_python_api = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass that implements zarr-python's asynchronous API (``async def get``,
        ``set``, ``list``...) and none of the required hooks, as a zarr-python store class
        does when ``zarr.abc.store.Store`` is this class (``import zarrhpc as zarr``:
        virtualizarr's ManifestStore), can be made: its hooks refuse direct use, and
        zarrhpc reads and writes it through that API (``zarrhpc.storage.zarr_python``)."""
        super().__init_subclass__(**kwargs)
        import inspect

        if not (inspect.iscoroutinefunction(getattr(cls, "get", None))
                and getattr(cls._get, "__isabstractmethod__", False)):
            return
        cls.zarr_python_api = True
        for hook in ("_get", "_set", "_erase", "_list"):
            if getattr(getattr(cls, hook), "__isabstractmethod__", False):
                setattr(cls, hook, _zarr_python_api_only)
    def __init__(self, *, read_only: bool = False) -> None:
        self._read_only = bool(read_only)
        self._closed = False

    # -- state -------------------------------------------------------------------------

    @property
    def read_only(self) -> bool:
        """bool: whether writes are refused."""
        return self._read_only

    @property
    def closed(self) -> bool:
        """bool: whether `close` has been called."""
        return self._closed

    def close(self) -> None:
        """Release the store's resources; later operations raise `StoreError`.

        Closing twice is allowed. Buffers already returned by `get` stay valid.
        """
        self._closed = True

    @property
    def native_root(self) -> str | None:
        """The directory whose files hold this store's values, file path = root + "/" + key.

        The native engine reads and writes chunk files there directly (same atomic
        temporary-file protocol as LocalStore). None, the default, for any store that is
        not exactly such a directory: then chunks go through :meth:`get`/:meth:`set`.
        """
        return None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(read_only={self._read_only})"

    def with_read_only(self, read_only: bool = True) -> Store:
        """Return a new store over the same data with the given ``read_only`` mode.

        Parameters
        ----------
        read_only : bool, default True

        Returns
        -------
        Store
            A new, open store of the same type.

        Raises
        ------
        UnsupportedError
            If this store type cannot be reopened this way.
        """
        raise UnsupportedError(f"{type(self).__name__} does not implement with_read_only")

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"{self!r}: the store is closed")

    def _check_writable(self, key: str, action: str) -> None:
        if self._closed:
            raise StoreError(f"{key!r}: cannot {action}: {self!r} is closed")
        if self._read_only:
            raise ReadOnlyError(f"{key!r}: cannot {action}: {self!r} is read-only")

    def _validate_key(self, key: object) -> str:
        """Validate a key; stores with extra restrictions extend this."""
        return validate_key(key)

    # -- readable ----------------------------------------------------------------------

    def get(self, key: str, prototype: Any = None, byte_range: Any = None) -> Buffer | None:
        """Return the value stored under ``key``, or ``None`` if there is none.

        Parameters
        ----------
        key : str
        prototype, byte_range : optional
            zarr-python's asynchronous ``Store.get`` arguments. Given a ``prototype``, the
            call is zarr-python's: it returns a coroutine giving ``prototype.buffer`` of
            the bytes (``byte_range`` a zarr-python ``ByteRequest``). What a subclass
            overriding ``get`` with ``async def`` awaits from ``super().get(...)``
            (see :mod:`zarrhpc.storage.zarr_python`).

        Returns
        -------
        bytes or memoryview or None
            The whole value, read-only.

        Raises
        ------
        InvalidKeyError
            If ``key`` is malformed.
        StoreError
            If the store is closed or the read fails.
        """
        if prototype is not None:
            return self._get_as_zarr_python(key, prototype, byte_range)
        self._check_open()
        return self._get(self._validate_key(key))

    async def _get_as_zarr_python(self, key: str, prototype: Any, byte_range: Any) -> Any:
        """zarr-python's ``await store.get(key, prototype, byte_range)``, read on a worker
        thread (the loop's other reads go on meanwhile)."""
        import asyncio

        if byte_range is None:
            value = await asyncio.to_thread(Store.get, self, key)  # not an override
        else:  # zarr-python's RangeByteRequest, OffsetByteRequest, SuffixByteRequest
            if hasattr(byte_range, "suffix"):
                offset, length = -byte_range.suffix, None
            elif hasattr(byte_range, "offset"):
                offset, length = byte_range.offset, None
            else:
                offset, length = byte_range.start, byte_range.end - byte_range.start
            (value,) = await asyncio.to_thread(Store.get_partial_values, self,
                                               [(key, offset, length)])
        buffer = getattr(prototype, "buffer", None)  # else not zarr-python's: the bytes
        return value if value is None or buffer is None else buffer.from_bytes(value)

    def get_values(self, keys: Iterable[str]) -> list[Buffer | None]:
        """Return the values of several keys, in order (``None`` for a missing key).

        The batched form of `get` that the read path uses for every chunk of a request
        that the native engine does not open itself. Remote stores override the
        ``_get_values`` hook to fetch concurrently; the fallback reads one key at a time.

        Parameters
        ----------
        keys : iterable of str

        Returns
        -------
        list of bytes or memoryview or None

        Raises
        ------
        InvalidKeyError
            If a key is malformed.
        StoreError
            If the store is closed or a read fails.
        """
        self._check_open()
        return self._get_values([self._validate_key(k) for k in keys])

    def iter_values(self, keys: Iterable[str]) -> Iterator[tuple[int, Buffer | None]]:
        """Yield ``(i, value)`` for every key ``keys[i]`` as its value arrives.

        What a read uses to decode the chunks already fetched while the others are still
        in flight: remote stores keep up to `concurrency` requests going on their own
        threads (the consumer need not keep up) and yield in the order the answers come;
        the fallback reads the keys in order. Abandoning the iterator stops new requests.

        Parameters
        ----------
        keys : iterable of str

        Yields
        ------
        tuple
            ``(position in keys, bytes or memoryview or None)``.
        """
        self._check_open()
        checked = [self._validate_key(k) for k in keys]
        return self._iter_values(checked)

    def get_partial_values(
        self, key_ranges: Iterable[tuple[str, int, int | None]]
    ) -> list[Buffer | None]:
        """Read byte ranges of several values.

        Parameters
        ----------
        key_ranges : iterable of (key, offset, length)
            ``offset`` is the first byte, or negative for a suffix of ``-offset`` bytes;
            ``length`` is a byte count or ``None`` (to the end). A key may appear many
            times.

        Returns
        -------
        list
            One entry per range, in order: the bytes found (shorter than asked, possibly
            empty, when the range passes the end of the value), or ``None`` when the key
            is missing.

        Raises
        ------
        InvalidKeyError
            If a key is malformed.
        TypeError, ValueError
            If a range is not integers, or a length is negative.
        """
        self._check_open()
        requests = []
        for key, offset, length in key_ranges:
            key = self._validate_key(key)
            requests.append((key, *check_range(key, offset, length)))
        return self._get_partial_values(requests)

    def getsize(self, key: str) -> int | None:
        """Return the size in bytes of the value under ``key``, or ``None`` if there is none.

        Sharded reads use it to check a shard's index against the shard's real length
        before reading any inner chunk.

        Parameters
        ----------
        key : str

        Returns
        -------
        int or None
        """
        self._check_open()
        return self._getsize(self._validate_key(key))

    def open_reader(self, key: str) -> RangeReader | None:
        """Open ``key`` for reading byte ranges: a `RangeReader`, or ``None`` if missing.

        A sharded read uses one reader per shard: the size (to check the shard index
        against) and the index come with one open on stores that can do so.
        """
        self._check_open()
        return self._open_reader(self._validate_key(key))

    def open_readers(self, keys: Iterable[str]) -> list[RangeReader | None]:
        """`open_reader` of several keys, in order (remote stores open them concurrently:
        one request each at most, which also brings a shard's index)."""
        self._check_open()
        return [self._open_reader(self._validate_key(k)) for k in keys]

    def read_ranges(
        self, requests: list[tuple[RangeReader, list[tuple[int, int | None]]]]
    ) -> list[list[Buffer]]:
        """Byte ranges of several open readers at once: per ``(reader, ranges)`` the list
        ``reader.read_ranges(ranges)`` returns.

        How a sharded read fetches the inner chunks of every shard of a request: remote
        stores coalesce and fetch all of them with one batch of concurrent requests (each
        checked against its reader's version); the fallback asks each reader in turn.
        """
        self._check_open()
        return [reader.read_ranges(ranges) for reader, ranges in requests]

    def iter_ranges(
        self, requests: list[tuple[RangeReader, list[tuple[int, int | None]]]]
    ) -> Iterator[tuple[int, int, Buffer]]:
        """`read_ranges`, yielding ``(n, i, bytes of range i of request n)`` as they arrive.

        What a sharded read uses to decode the inner chunks already fetched while the
        others are in flight: remote stores yield each coalesced request's ranges when it
        completes (in the order the answers come); the fallback reads everything first.
        Abandoning the iterator stops new requests.
        """
        for n, bufs in enumerate(self.read_ranges(requests)):
            for i, buf in enumerate(bufs):
                yield n, i, buf

    def exists(self, key: str) -> bool:
        """Return whether a value is stored under ``key``.

        Parameters
        ----------
        key : str

        Returns
        -------
        bool
        """
        self._check_open()
        return self._exists(self._validate_key(key))

    # -- writeable ---------------------------------------------------------------------

    def set(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key``, atomically replacing any previous value.

        Parameters
        ----------
        key : str
        value : buffer
            ``bytes``, ``bytearray``, ``memoryview``, a numpy array, or anything else
            with the buffer protocol; its bytes are copied before returning.

        Raises
        ------
        InvalidKeyError
            If ``key`` is malformed.
        ReadOnlyError
            If the store is read-only.
        TypeError
            If ``value`` is not bytes-like.
        StoreError
            If the write fails; the previous value, if any, is then left intact.
        """
        key = self._validate_key(key)
        self._check_writable(key, "set")
        self._set(key, as_byte_view(key, value))

    def set_values(self, items: Iterable[tuple[str, Any]]) -> None:
        """Store several values, each one as `set` does (atomically, bytes copied).

        The batched form of `set` that the write path uses for the chunks of a request:
        remote stores override the ``_set_values`` hook to upload up to `concurrency`
        values at once; the fallback stores one value at a time. Every key and value is
        checked before anything is stored.

        Parameters
        ----------
        items : iterable of (key, buffer)

        Raises
        ------
        InvalidKeyError, ReadOnlyError, TypeError, StoreError
            As for `set`; after a failed store some of the other values may be stored.
        """
        checked = []
        for key, value in items:
            key = self._validate_key(key)
            self._check_writable(key, "set")
            checked.append((key, as_byte_view(key, value)))
        if checked:
            self._set_values(checked)

    def submit_set(self, key: str, value: Any) -> Future:
        """Start `set`; return a `concurrent.futures.Future` (result None, or `set`'s
        error). Remote stores upload on their I/O threads and return at once (the caller
        bounds what is in flight and leaves ``value`` unchanged until done); the fallback
        stores here and returns a finished future. Bad keys and values raise at once."""
        key = self._validate_key(key)
        self._check_writable(key, "set")
        return self._submit_set(key, as_byte_view(key, value))

    def _submit_set(self, key: str, data: memoryview) -> Future:
        future: Future = Future()
        try:
            self._set(key, data)
            future.set_result(None)
        except BaseException as exc:
            future.set_exception(exc)
        return future

    @property
    def concurrency(self) -> int:
        """int: how many requests `get_values`/`set_values` keep in flight (1: in turn).

        The write path sizes its upload batches by it; remote stores return their
        ``concurrency`` setting.
        """
        return 1

    def set_vectored(self, key: str, values: Iterable[Any]) -> None:
        """Store the concatenation of ``values`` (buffers) under ``key``, as :meth:`set`.

        Stores that can (LocalStore: one ``writev``) write the pieces without joining
        them into one buffer first.
        """
        key = self._validate_key(key)
        self._check_writable(key, "set")
        self._set_vectored(key, [as_byte_view(key, v) for v in values])

    def _set_vectored(self, key: str, views: list[memoryview]) -> None:
        self._set(key, memoryview(b"".join(views)))

    def set_partial_values(self, key_start_values: Iterable[tuple[str, int, Any]]) -> None:
        """Write byte ranges into stored values.

        Parameters
        ----------
        key_start_values : iterable of (key, offset, value)
            Each ``value`` (bytes-like) is written at byte ``offset`` (``>= 0``) of the
            value under ``key``; a missing value starts empty and a gap is zero-filled.

        Raises
        ------
        InvalidKeyError, ReadOnlyError, TypeError, StoreError
            As for `set`.
        ValueError
            If an offset is negative.
        """
        items = []
        for key, offset, value in key_start_values:
            key = self._validate_key(key)
            self._check_writable(key, "set a partial value")
            try:
                offset = operator.index(offset)
            except TypeError:
                raise TypeError(
                    f"{key!r}: a partial write needs an integer offset, got {offset!r}"
                ) from None
            if offset < 0:
                raise ValueError(f"{key!r}: partial write offset must be >= 0, got {offset}")
            items.append((key, offset, as_byte_view(key, value)))
        if items:
            self._set_partial_values(items)

    def erase(self, key: str) -> None:
        """Remove the value under ``key``; a missing key is not an error.

        Parameters
        ----------
        key : str

        Raises
        ------
        InvalidKeyError, ReadOnlyError, StoreError
        """
        key = self._validate_key(key)
        self._check_writable(key, "erase")
        self._erase(key)

    def erase_values(self, keys: Iterable[str]) -> None:
        """Remove the values under ``keys``; missing keys are not an error.

        Parameters
        ----------
        keys : iterable of str

        Raises
        ------
        InvalidKeyError, ReadOnlyError, StoreError
        """
        checked = []
        for key in keys:
            key = self._validate_key(key)
            self._check_writable(key, "erase")
            checked.append(key)
        if checked:
            self._erase_values(checked)

    def erase_prefix(self, prefix: str) -> None:
        """Remove every value below ``prefix`` (``""``: every value in the store).

        Parameters
        ----------
        prefix : str
            ``""`` or a directory prefix (``"a/b/"``, or ``"a/b"`` meaning the same).

        Raises
        ------
        InvalidKeyError, ReadOnlyError, StoreError
        """
        prefix = normalize_prefix(prefix)
        self._check_writable(prefix, "erase a prefix")
        self._erase_prefix(prefix)

    def clear(self) -> None:
        """Remove every value: zarr-python's ``Store.clear`` (a coroutine there), which
        anndata calls before writing a root element."""
        self.erase_prefix("")

    # -- listable ----------------------------------------------------------------------

    def list(self) -> Iterator[str]:
        """Return an iterator over every key in the store, in no particular order."""
        self._check_open()
        return self._list()

    def list_prefix(self, prefix: str) -> Iterator[str]:
        """Return an iterator over the full keys below ``prefix``, in no particular order.

        Parameters
        ----------
        prefix : str
            ``""`` or a directory prefix (``"a/b/"``, or ``"a/b"`` meaning the same).

        Returns
        -------
        iterator of str
        """
        self._check_open()
        return self._list_prefix(normalize_prefix(prefix))

    def list_dir(self, prefix: str = "") -> list[str]:
        """Return the sorted names of the direct children of ``prefix``.

        Parameters
        ----------
        prefix : str, default ""
            ``""`` (the top level) or a directory prefix.

        Returns
        -------
        list of str
            Names of values and of sub-prefixes alike, without any "/"; for keys
            ``a/b``, ``a/c/d`` ``list_dir("a/")`` is ``["b", "c"]``.
        """
        self._check_open()
        return sorted(set(self._list_dir(normalize_prefix(prefix))))

    # -- hooks: required ---------------------------------------------------------------

    @abc.abstractmethod
    def _get(self, key: str) -> Buffer | None:
        """Return the value of a valid key, or ``None``."""

    def _get_values(self, keys: list[str]) -> list[Buffer | None]:
        return [self._get(k) for k in keys]

    def _iter_values(self, keys: list[str]) -> Iterator[tuple[int, Buffer | None]]:
        for i, key in enumerate(keys):
            yield i, self._get(key)

    @abc.abstractmethod
    def _set(self, key: str, data: memoryview) -> None:
        """Atomically store ``data`` (flat bytes; copy it, the caller may reuse it)."""

    def _set_values(self, items: list[tuple[str, memoryview]]) -> None:
        for key, data in items:
            self._set(key, data)

    @abc.abstractmethod
    def _erase(self, key: str) -> None:
        """Remove a valid key; do nothing if it is missing."""

    @abc.abstractmethod
    def _list(self) -> Iterator[str]:
        """Iterate over every key."""

    # -- hooks: generic fallbacks ------------------------------------------------------

    def _exists(self, key: str) -> bool:
        return self._get(key) is not None

    def _getsize(self, key: str) -> int | None:
        value = self._get(key)
        return None if value is None else memoryview(value).nbytes

    def _open_reader(self, key: str) -> RangeReader | None:
        size = self._getsize(key)
        return None if size is None else RangeReader(self, key, size)

    def _get_partial_values(
        self, requests: list[tuple[str, int, int | None]]
    ) -> list[Buffer | None]:
        cache: dict[str, Buffer | None] = {}
        out: list[Buffer | None] = []
        for key, offset, length in requests:
            if key not in cache:
                cache[key] = self._get(key)
            value = cache[key]
            if value is None:
                out.append(None)
                continue
            view = memoryview(value)
            start, stop = resolve_range(view.nbytes, offset, length)
            out.append(bytes(view[start:stop]))
        return out

    def _set_partial_values(self, items: list[tuple[str, int, memoryview]]) -> None:
        by_key: dict[str, list[tuple[int, memoryview]]] = {}
        for key, offset, data in items:
            by_key.setdefault(key, []).append((offset, data))
        for key, writes in by_key.items():
            old = self._get(key)
            self._set(key, memoryview(apply_writes(old, writes)))

    def _erase_values(self, keys: list[str]) -> None:
        for key in keys:
            self._erase(key)

    def _erase_prefix(self, prefix: str) -> None:
        for key in list(self._list_prefix(prefix)):
            self._erase(key)

    def _list_prefix(self, prefix: str) -> Iterator[str]:
        return (key for key in self._list() if key.startswith(prefix))

    def _list_dir(self, prefix: str) -> Iterable[str]:
        n = len(prefix)
        return {key[n:].split("/", 1)[0] for key in self._list_prefix(prefix)}


def _zarr_python_api_only(self: Store, *args: Any) -> Any:
    raise UnsupportedError(
        f"{type(self).__name__} implements zarr-python's asynchronous Store API: give it to "
        "zarrhpc.open / open_array / create_array..., which drive that API")

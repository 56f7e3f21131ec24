"""MemoryStore: a store held in a Python dict, for tests, scratch data and small caches.

Life cycle: ``MemoryStore()`` starts empty (or with a copy of ``store_dict``); the data
lives as long as some view of it does. `MemoryStore.with_read_only` returns another view
of the *same* data (sharing its lock), which is how a read-only memory store is usually
made. Closing a view only closes that view.

Values are kept as immutable ``bytes`` (`StoredBytes`, which also answers zarr-python's
Buffer methods ``to_bytes()`` and ``as_numpy_array()``, so code that reads a dict backing a
store, ``json.loads(store[".zarray"].to_bytes())``, runs unchanged): `MemoryStore.set`
copies the caller's buffer once and `MemoryStore.get` returns the stored object itself,
without copying. One lock per
data dict serialises writers (including the read-modify-write of a partial write, so
concurrent partial writes to one key do not lose updates here) and readers, so the store
may be shared by threads, free-threaded builds included.

Unlike a file system, a memory store is a flat mapping: ``"a"`` and ``"a/b"`` may both be
keys.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from zarrhpc.storage.abc import (
    Buffer,
    RangeReader,
    Store,
    ValueReader,
    apply_writes,
    as_byte_view,
    resolve_range,
)
from zarrhpc.storage.keys import validate_key

__all__ = ["MemoryStore", "StoredBytes"]


class StoredBytes(bytes):
    """An immutable stored value: ``bytes``, plus the read methods of zarr-python's
    ``Buffer`` that user code calls on the values of a dict backing a store."""

    __slots__ = ()

    def to_bytes(self) -> bytes:
        """The value as plain ``bytes`` (zarr-python's ``Buffer.to_bytes``)."""
        return bytes(self)

    def as_numpy_array(self):
        """A read-only uint8 numpy array over the value, without a copy."""
        import numpy as np

        return np.frombuffer(self, dtype=np.uint8)

    def as_array_like(self):
        """Same as `as_numpy_array` (zarr-python's ``Buffer.as_array_like``)."""
        return self.as_numpy_array()


class MemoryStore(Store):
    """A thread-safe store backed by a ``dict`` of ``bytes``.

    Parameters
    ----------
    store_dict : mapping of str to buffer, optional
        Initial contents (keys validated, values converted to ``bytes``). A ``dict`` is
        used as the store's data itself, as zarr-python does: writes show up in it.
    read_only : bool, default False
        Refuse writes with `ReadOnlyError`.

    Examples
    --------
    >>> store = MemoryStore()
    >>> store.set("a/b", b"xyz")
    >>> bytes(store.get("a/b")), store.get("missing")
    (b'xyz', None)
    >>> store.list_dir("")
    ['a']
    """

    def __init__(
        self, store_dict: Mapping[str, Any] | None = None, *, read_only: bool = False
    ) -> None:
        super().__init__(read_only=read_only)
        self._lock = threading.RLock()
        # as zarr-python's MemoryStore(store_dict): a dict given is the store's own data
        # (writes show up in it); its values are made immutable bytes in place
        self._data: dict[str, bytes] = store_dict if isinstance(store_dict, dict) else {}
        for key, value in list((store_dict or {}).items()):
            if validate_key(key) != key:
                raise ValueError(f"MemoryStore: key {key!r} is not in canonical form")
            if type(value) is not StoredBytes:
                value = StoredBytes(as_byte_view(key, value.to_bytes() if hasattr(
                    value, "to_bytes") and not isinstance(value, bytes) else value))
            self._data[key] = value

    @property
    def _store_dict(self) -> dict[str, bytes]:
        """The stored values by key (zarr-python's attribute of that name, which user code
        and downstream tests read); values have ``Buffer``'s ``to_bytes``."""
        return self._data

    @classmethod
    def _view(cls, data: dict[str, bytes], lock: Any, read_only: bool) -> MemoryStore:
        store = cls.__new__(cls)
        Store.__init__(store, read_only=read_only)
        store._data = data
        store._lock = lock
        return store

    def with_read_only(self, read_only: bool = True) -> MemoryStore:
        """Return a new view of the same data with the given mode.

        Parameters
        ----------
        read_only : bool, default True

        Returns
        -------
        MemoryStore
            Shares this store's data and lock: writes through one view are seen by all.
        """
        return self._view(self._data, self._lock, read_only)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MemoryStore):
            return NotImplemented
        return self._data is other._data and self._read_only == other._read_only

    def __hash__(self) -> int:
        return hash((MemoryStore, id(self._data), self._read_only))

    def __str__(self) -> str:
        # zarr-python's URL of a memory store: the id of its data dict (shared by views)
        return f"memory://{id(self._data)}"

    def __repr__(self) -> str:
        return f"MemoryStore({str(self)!r})"

    def __getstate__(self) -> dict[str, Any]:
        # Pickling copies the data (another process cannot share this dict anyway).
        with self._lock:
            return {"data": dict(self._data), "read_only": self._read_only}

    def __setstate__(self, state: dict[str, Any]) -> None:
        Store.__init__(self, read_only=state["read_only"])
        self._data = state["data"]
        self._lock = threading.RLock()

    # -- hooks -------------------------------------------------------------------------

    def _get(self, key: str) -> Buffer | None:
        with self._lock:
            return self._data.get(key)

    def _exists(self, key: str) -> bool:
        with self._lock:
            return key in self._data

    def _getsize(self, key: str) -> int | None:
        with self._lock:
            value = self._data.get(key)
        return None if value is None else memoryview(value).nbytes

    def _get_partial_values(
        self, requests: list[tuple[str, int, int | None]]
    ) -> list[Buffer | None]:
        # One snapshot of the values involved, so a batch sees one consistent state.
        with self._lock:
            snapshot = {key: self._data.get(key) for key, _, _ in requests}
        out: list[Buffer | None] = []
        for key, offset, length in requests:
            value = snapshot[key]
            if value is None:
                out.append(None)
                continue
            start, stop = resolve_range(len(value), offset, length)
            out.append(value[start:stop])
        return out

    def _open_reader(self, key: str) -> RangeReader | None:
        # the stored bytes are immutable: a reader keeps the version it opened
        with self._lock:
            value = self._data.get(key)
        return None if value is None else ValueReader(self, key, value)

    def _set(self, key: str, data: memoryview) -> None:
        value = StoredBytes(data)  # copy outside the lock
        with self._lock:
            self._data[key] = value

    def _set_partial_values(self, items: list[tuple[str, int, memoryview]]) -> None:
        by_key: dict[str, list[tuple[int, memoryview]]] = {}
        for key, offset, data in items:
            by_key.setdefault(key, []).append((offset, data))
        with self._lock:
            for key, writes in by_key.items():
                self._data[key] = StoredBytes(apply_writes(self._data.get(key), writes))

    def _erase(self, key: str) -> None:
        with self._lock:
            self._data.pop(key, None)

    def _erase_values(self, keys: list[str]) -> None:
        with self._lock:
            for key in keys:
                self._data.pop(key, None)

    def _erase_prefix(self, prefix: str) -> None:
        with self._lock:
            if not prefix:
                self._data.clear()
                return
            for key in [k for k in self._data if k.startswith(prefix)]:
                del self._data[key]

    def _snapshot_keys(self) -> list[str]:
        with self._lock:
            return list(self._data)

    def _list(self) -> Iterator[str]:
        return iter(self._snapshot_keys())

    def _list_prefix(self, prefix: str) -> Iterator[str]:
        return iter([key for key in self._snapshot_keys() if key.startswith(prefix)])

    def _list_dir(self, prefix: str) -> Iterable[str]:
        n = len(prefix)
        return {
            key[n:].split("/", 1)[0] for key in self._snapshot_keys() if key.startswith(prefix)
        }

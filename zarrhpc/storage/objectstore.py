"""ObjectStore: zarr-python's ``zarr.storage.ObjectStore`` -- a store over an obstore store
object the caller has already built.

Life cycle: ``ObjectStore(obstore.store.S3Store(...), read_only=False)`` (or any obstore
store: ``MemoryStore``, ``LocalStore``, ``GCSStore``, ``AzureStore``, ``HTTPStore``) wraps
the given client; keys are paths in it. Everything else -- ranged and batched reads,
coalescing, ETag checks, concurrent uploads, retries -- is `ObstoreStore`'s, which opens
the same clients from a URL (``zarrhpc.open("s3://...")``). An ``HTTPStore`` is read-only
and cannot list. Pickles with the obstore object (obstore pickles its remote stores by
configuration; its MemoryStore cannot be pickled, as in zarr-python). Printed as
zarr-python prints it: ``ObjectStore(object_store://<the obstore store>)``.
"""

from __future__ import annotations

from typing import Any

from zarrhpc.errors import StoreError
from zarrhpc.storage._obstore import ObstoreStore
from zarrhpc.storage._remotebase import RemoteStore

__all__ = ["ObjectStore"]

_NOT_A_DIRECTORY = "Not a directory (os error 20)"


class ObjectStore(ObstoreStore):
    """A store over an obstore store object.

    Parameters
    ----------
    store : obstore.store.ObjectStore
        An obstore store (``S3Store``, ``GCSStore``, ``AzureStore``, ``HTTPStore``,
        ``LocalStore``, ``MemoryStore``...).
    read_only : bool, default False
        Refuse writes with `ReadOnlyError`.
    **settings
        zarrhpc's remote store settings (``concurrency``, ``coalesce_gap``...; see
        `zarrhpc.storage._remotebase`).

    Examples
    --------
    >>> from obstore.store import MemoryStore as ObsMemory
    >>> store = ObjectStore(ObsMemory())
    >>> store.set("a/b", b"xyz")
    >>> bytes(store.get("a/b")), store.list_dir("a")
    (b'xyz', ['b'])
    """

    def __init__(self, store: Any, *, read_only: bool = False, **settings: Any) -> None:
        import obstore.store as obs

        if not isinstance(store, tuple(getattr(obs, name) for name in (
                "S3Store", "GCSStore", "AzureStore", "HTTPStore", "LocalStore",
                "MemoryStore"))):
            raise TypeError(f"ObjectStore: expected an obstore store "
                            f"(obstore.store.S3Store, MemoryStore...), got {type(store).__name__}")
        http = isinstance(store, obs.HTTPStore)
        # the client is the caller's: ObstoreStore's URL parsing and client set-up skipped
        RemoteStore.__init__(self, f"object_store://{store}", read_only=read_only or http,
                             **settings)
        self.kind = "http" if http else "object"
        self.storage_options: dict[str, Any] = {}
        # the caller's client for every try (its own retry settings: nothing to rebuild
        # it from); the deadline still cuts the retrying path
        self._obs = self._obs1 = store
        self._root = ""  # keys are paths in the caller's client, its own prefix included
        # obstore's MemoryStore keeps the buffer it is given (no copy): the caller's, or a
        # pooled encode buffer the write path reuses, would change the stored value later
        self._keeps_buffers = isinstance(store, obs.MemoryStore)
        self._is_local = isinstance(store, obs.LocalStore)

    def _put(self, key: str, data: memoryview) -> None:
        super()._put(key, memoryview(data.tobytes()) if self._keeps_buffers else data)

    # obstore's LocalStore reports a key below an existing value ("a/b/c" when "a/b" is a
    # file) as an error; for a store it is a missing key

    def _fetch(self, key: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return super()._fetch(key, *args, **kwargs)
        except StoreError as exc:
            if _NOT_A_DIRECTORY in str(exc):
                return None
            raise

    def _list_names(self, prefix: str) -> Any:
        names = super()._list_names(prefix)
        if not self._is_local:
            return names
        # obstore's LocalStore lists a directory left empty by erases as a child: keep
        # only names that hold a value or have one below them
        import obstore

        def holds(name: str) -> bool:
            path = prefix + name
            if self._head(path) is not None:
                return True
            return any(len(batch) for batch in obstore.list(self._obs, path, chunk_size=1))

        return [name for name in names if holds(name)]

    def _head(self, key: str) -> Any:
        try:
            return super()._head(key)
        except StoreError as exc:
            if _NOT_A_DIRECTORY in str(exc):
                return None
            raise

    @property
    def store(self) -> Any:
        """The obstore store this wraps (zarr-python's attribute)."""
        return self._obs

    def __reduce__(self) -> Any:
        return (_rebuild, (self._obs, self._read_only, self.settings))

    def __str__(self) -> str:
        return self.url

    def __repr__(self) -> str:
        return f"ObjectStore({self.url})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ObjectStore):
            return NotImplemented
        return self._obs is other._obs and self._read_only == other._read_only

    def __hash__(self) -> int:
        return hash((ObjectStore, id(self._obs), self._read_only))


def _rebuild(store: Any, read_only: bool, settings: dict) -> ObjectStore:
    return ObjectStore(store, read_only=read_only, **settings)

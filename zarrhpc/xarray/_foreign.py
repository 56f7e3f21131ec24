"""zarr-python stores given to the xarray layer: ``engine="zarrhpc"`` and
``zarrhpc.xarray.to_zarr`` take what ``engine="zarr"`` takes, so an xarray user's
``zarr.storage.MemoryStore``, ``LocalStore``, ``FsspecStore`` or a wrapper of one works.

Life cycle: :func:`as_zarrhpc_store` is called on the user's store before it is resolved.
A zarr-python ``LocalStore`` becomes zarrhpc's own ``LocalStore`` over the same directory
(the native engine reads its files directly); any other zarr-python store is wrapped in
:class:`ZarrPythonStore`, a zarrhpc Store whose operations run the store's coroutines on
zarr-python's own event loop thread (``zarr.core.sync.sync``), batches of keys
concurrently. Its ``supports_consolidated_metadata`` is the wrapped store's. zarr-python is
imported only when the object is one of its stores.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator

from zarrhpc.storage.abc import Buffer, Store

__all__ = ["ZarrPythonStore", "as_zarrhpc_store"]


def _zarr_store_class():
    zarr = sys.modules.get("zarr")
    if zarr is None:  # the user cannot have made a zarr-python store
        return None
    from zarr.abc.store import Store as ZStore

    return ZStore


def as_zarrhpc_store(store):
    """``store`` itself, or a zarrhpc Store over it when it is a zarr-python store (a
    ``StorePath`` of one: the store, its path joined to ``path`` by the caller)."""
    zstore_cls = _zarr_store_class()
    if zstore_cls is None:
        return store
    from zarr.storage import LocalStore as ZLocal

    if isinstance(store, ZLocal):
        from zarrhpc.storage.local import LocalStore

        return LocalStore(store.root, read_only=store.read_only)
    if isinstance(store, zstore_cls):
        return ZarrPythonStore(store)
    return store


class ZarrPythonStore(Store):
    """A zarr-python store seen as a zarrhpc Store.

    Parameters
    ----------
    store : zarr.abc.store.Store
        Any zarr-python store; read-only if it is.
    """

    def __init__(self, store) -> None:
        super().__init__(read_only=store.read_only)
        self._zstore = store
        if hasattr(store, "_ensure_open"):  # a ZipStore opens its file here, as
            self._run(store._ensure_open())  # zarr-python's open_group does
        self.supports_consolidated_metadata = getattr(
            store, "supports_consolidated_metadata", True)

    def __repr__(self) -> str:
        return f"ZarrPythonStore({self._zstore!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ZarrPythonStore) and other._zstore == self._zstore

    def __hash__(self) -> int:
        return hash(id(self._zstore))

    def with_read_only(self, read_only: bool = True) -> ZarrPythonStore:
        return ZarrPythonStore(self._zstore.with_read_only(read_only))

    @staticmethod
    def _run(coro):
        from zarr.core.sync import sync

        return sync(coro)

    async def _one(self, key):
        from zarr.core.buffer import default_buffer_prototype

        value = await self._zstore.get(key, prototype=default_buffer_prototype())
        return None if value is None else value.to_bytes()

    def _get(self, key: str) -> Buffer | None:
        return self._run(self._one(key))

    def _get_values(self, keys: list[str]) -> list[Buffer | None]:
        async def many():
            return await asyncio.gather(*(self._one(k) for k in keys))

        return list(self._run(many()))

    def _iter_values(self, keys: list[str]) -> Iterator[tuple[int, Buffer | None]]:
        return enumerate(self._get_values(keys))

    def _set(self, key: str, data: memoryview) -> None:
        self._set_values([(key, data)])

    def _set_values(self, items: list[tuple[str, memoryview]]) -> None:
        from zarr.core.buffer import default_buffer_prototype

        proto = default_buffer_prototype()

        async def many():
            await asyncio.gather(*(self._zstore.set(k, proto.buffer.from_bytes(bytes(v)))
                                   for k, v in items))

        self._run(many())

    def _erase(self, key: str) -> None:
        self._run(self._zstore.delete(key))

    def _exists(self, key: str) -> bool:
        return self._run(self._zstore.exists(key))

    def _erase_prefix(self, prefix: str) -> None:
        self._run(self._zstore.delete_dir(prefix.rstrip("/")))

    @staticmethod
    async def _collect(agen) -> list[str]:
        return [k async for k in agen]

    def _list(self) -> Iterator[str]:
        return iter(self._run(self._collect(self._zstore.list())))

    def _list_prefix(self, prefix: str) -> Iterator[str]:
        return iter(self._run(self._collect(self._zstore.list_prefix(prefix))))

    def _list_dir(self, prefix: str):
        return self._run(self._collect(self._zstore.list_dir(prefix.rstrip("/"))))

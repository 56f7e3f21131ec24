"""Store resolution and node lookup shared by arrays and groups."""

from __future__ import annotations

import os

from zarrhpc.errors import ReadOnlyError
from zarrhpc.storage import LocalStore, MemoryStore, Store, ZipStore

META = "zarr.json"

__all__ = ["META", "resolve_store", "meta_key", "child_path", "read_node", "check_writable"]


def resolve_store(store, mode: str = "r") -> Store:
    """A Store from what the user passed: a Store, a path (``*.zip``: a ZipStore), or
    ``"memory://"``."""
    if isinstance(store, Store):
        return store
    if isinstance(store, str) and store.startswith("memory://"):
        return MemoryStore()
    if isinstance(store, (str, os.PathLike)):
        if os.fspath(store).lower().endswith(".zip"):
            return ZipStore(store, mode=_zip_mode(store, mode))
        return LocalStore(store, read_only=(mode == "r"))
    raise TypeError(
        f"store: expected a Store, a directory path or 'memory://', got {type(store).__name__}"
    )


def _zip_mode(path, mode: str) -> str:
    """The ZipStore mode for an open mode: never truncate, the node is what is replaced."""
    if mode == "r" or (mode == "r+" and not os.path.exists(path)):
        return "r"  # a missing file is an error, not a new empty zip
    return "a"


def meta_key(path: str) -> str:
    """The store key of the ``zarr.json`` of the node at ``path``."""
    return f"{path}/{META}" if path else META


def child_path(path: str, name: str) -> str:
    return f"{path}/{name}" if path else name


def read_node(store: Store, path: str):
    """The parsed metadata of the node at ``path`` (v3, v2 or the 2022 draft), or None."""
    from zarrhpc.core.formats import read_node as read_any

    return read_any(store, path)


def check_writable(store: Store, what: str) -> None:
    if store.read_only:
        raise ReadOnlyError(f"{what}: the store is read-only (opened with mode='r')")

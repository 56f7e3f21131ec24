"""Store resolution and node lookup shared by arrays and groups.

What users pass as ``store`` (zarr-python 3's ``StoreLike``) becomes a Store here, once:
a Store; a :class:`StorePath` (store plus a path prefix); ``None`` or a ``dict`` (a
MemoryStore, backed by that dict); a path or ``file://`` URL (a directory, or a ZipStore
for ``*.zip``); ``memory://name`` (one in-memory store per name for the life of the
process; bare ``memory://`` is a new one); any other URL scheme goes to the remote stores
(``zarrhpc.storage.remote.open_url``), and never becomes a local directory; a zarr-python
store is taken over or wrapped (``zarrhpc.storage.zarr_python.adapt``).
"""

from __future__ import annotations

import os
import re
import sys
import threading
from urllib.parse import unquote, urlsplit

from zarrhpc.errors import ReadOnlyError, UnsupportedError
from zarrhpc.metadata.n5 import node_json
from zarrhpc.storage import LocalStore, MemoryStore, Store, StorePath, ZipStore
from zarrhpc.storage.n5 import N5Store, is_n5_container, register_translation
from zarrhpc.storage.zarr_python import adapt

META = "zarr.json"

__all__ = [
    "META",
    "check_writable",
    "child_path",
    "meta_key",
    "read_node",
    "resolve_store",
    "resolve_store_path",
]

# "memory://name" -> the data dict and lock of that named store (process-wide)
_NAMED_MEMORY: dict[str, MemoryStore] = {}
_NAMED_LOCK = threading.Lock()
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*)://")
# which extra brings the remote stores for a scheme (the message of a missing install)
_EXTRA = {"s3": "s3", "s3a": "s3"}


def _named_memory(name: str, mode: str) -> MemoryStore:
    with _NAMED_LOCK:
        store = _NAMED_MEMORY.get(name)
        if store is None:
            store = _NAMED_MEMORY[name] = MemoryStore()
    return store.with_read_only(mode == "r")


def _dict_store(data: dict, mode: str) -> MemoryStore:
    """A MemoryStore whose contents live in the caller's dict (as zarr-python's
    ``MemoryStore(store_dict=d)``): writes through the store show up in ``data``."""
    return MemoryStore(data, read_only=(mode == "r"))


def _url_store(url: str, scheme: str, mode: str, storage_options) -> Store:
    if scheme == "memory":
        if storage_options:
            raise TypeError("storage_options: not used by memory:// stores")
        name = url[len("memory://"):].strip("/")
        return _named_memory(name, mode) if name else MemoryStore()
    if scheme == "file":
        path = unquote(urlsplit(url).path)
        if not path:
            raise ValueError(f"store: {url!r}: a file:// URL needs a path")
        return _path_store(path, mode)
    try:
        from zarrhpc.storage.remote import open_url
    except ImportError as exc:
        extra = _EXTRA.get(scheme, "remote")
        raise UnsupportedError(
            f"store: {url!r}: the {scheme}:// scheme needs zarrhpc's remote stores "
            f"(pip install 'zarrhpc[{extra}]'): {exc}") from None
    return open_url(url, storage_options=storage_options, read_only=(mode == "r"))


register_translation(node_json)  # N5Store's zarr.json documents (storage/n5.py)


def _path_store(path, mode: str) -> Store:
    lower = os.fspath(path).lower()
    # .ozx: OME-Zarr's zipped single-file form (RFC-9), a zip file unless a directory
    if lower.endswith(".zip") or (lower.endswith(".ozx") and not os.path.isdir(path)):
        return ZipStore(path, mode=_zip_mode(path, mode))
    store = LocalStore(path, read_only=(mode == "r"))
    if mode in ("r", "r+", "a") and is_n5_container(store):  # an N5 container: read only
        return N5Store(store)
    return store


def missing_root(store) -> str | None:
    """zarr-python's error text when ``store`` is a read-only LocalStore whose directory
    does not exist (its store refuses to open: ``data/x.zarr does not exist``), else None."""
    if type(store) is LocalStore and store.read_only and not os.path.isdir(store.root):
        return f"{store._shown} does not exist"
    return None


def resolve_store_path(store, path: str | None = None, mode: str = "r",
                       storage_options: dict | None = None) -> tuple[Store, str]:
    """``(Store, path)`` from zarr-python's ``StoreLike`` and a node path; a StorePath's own
    path is prefixed to ``path``."""
    path = (path or "").strip("/")
    if type(store).__name__ == "StorePath" and not isinstance(store, StorePath):
        inner = adapt(getattr(store, "store", None))  # zarr-python's StorePath
        if inner is not None:
            store = StorePath(inner, store.path)
    if isinstance(store, StorePath):
        joined = store / path if path else store
        return joined.store, joined.path
    return resolve_store(store, mode, storage_options), path


def resolve_store(store, mode: str = "r", storage_options: dict | None = None) -> Store:
    """A Store from what the user passed (see the module docstring)."""
    adapted = adapt(store)  # zarr-python's stores (storage/zarr_python.py)
    if adapted is not None:
        store = adapted
    if isinstance(store, Store):
        if storage_options:  # zarr-python's check and message
            raise TypeError("'storage_options' was provided but unused. 'storage_options' "
                            "is only used when the store is passed as an FSSpec URI string.")
        return store
    if isinstance(store, StorePath):
        if store.path:
            raise TypeError(f"store: {store!r} has a path; this call takes a store only")
        return store.store
    if store is None:
        return MemoryStore(read_only=False)
    if isinstance(store, dict):
        return _dict_store(store, mode)
    if isinstance(store, os.PathLike):
        store = os.fspath(store)
    if isinstance(store, str):
        match = _SCHEME.match(store)
        if match:
            return _url_store(store, match.group(1).lower(), mode, storage_options)
        if storage_options:
            raise TypeError(f"store: {store!r}: storage_options are for URLs (s3://...), "
                            f"not local paths")
        return _path_store(store, mode)
    if "fsspec" in sys.modules or "zarr" in sys.modules:  # an FSMap, zarr-python's stores
        from zarrhpc.storage.remote import adopt

        adopted = adopt(store, read_only=(mode == "r"))
        if adopted is not None:
            return adopted
    raise TypeError(
        f"store: expected a Store, StorePath, dict, None, a directory path or a URL, got "
        f"{type(store).__name__}"
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

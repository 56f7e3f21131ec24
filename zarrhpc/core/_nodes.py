"""Store resolution and node lookup shared by arrays and groups."""

from __future__ import annotations

import os
from collections import OrderedDict

from zarrhpc.errors import MetadataError, ReadOnlyError
from zarrhpc.metadata import parse_metadata_v3
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


# Parsed documents by (bytes, key): metadata objects are immutable, so opening the same
# node again skips parsing and validation (most of the cost of an open).
_PARSED: OrderedDict = OrderedDict()
_PARSED_MAX = 256


def _parse(raw: bytes, key: str):
    cache_key = (raw, key)
    md = _PARSED.get(cache_key)
    if md is None:
        md = parse_metadata_v3(raw, key)
        _PARSED[cache_key] = md
        if len(_PARSED) > _PARSED_MAX:
            _PARSED.popitem(last=False)
    return md


def read_node(store: Store, path: str):
    """The parsed metadata of the node at ``path``, or None when there is none."""
    key = meta_key(path)
    raw = store.get(key)
    if raw is None:
        return None
    try:
        return _parse(bytes(raw), key)
    except MetadataError:
        raise
    except (ValueError, TypeError) as exc:  # defensive: anything else names the document
        raise MetadataError(f"{key}: {exc}") from exc


def check_writable(store: Store, what: str) -> None:
    if store.read_only:
        raise ReadOnlyError(f"{what}: the store is read-only (opened with mode='r')")

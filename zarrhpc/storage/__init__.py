"""Stores: where zarrhpc keeps metadata documents and encoded chunks.

The Zarr v3 abstract store interface (:class:`Store`) and its implementations:

- :class:`LocalStore` -- a directory on a local or cluster file system (the default);
- :class:`MemoryStore` -- a thread-safe in-memory dict;
- :class:`ZipStore` -- a whole hierarchy in one .zip file.

Stores know nothing of arrays: they map "/"-separated keys (:mod:`.keys`) to bytes. The
conformance tests every store must pass ship as :class:`zarrhpc.testing.store.StoreTests`.
"""

from __future__ import annotations

from zarrhpc.storage.abc import RangeReader, Store
from zarrhpc.storage.keys import normalize_prefix, validate_key
from zarrhpc.storage.local import LocalStore
from zarrhpc.storage.memory import MemoryStore
from zarrhpc.storage.zip import ZipStore

__all__ = [
    "Store", "RangeReader", "LocalStore", "MemoryStore", "ZipStore", "validate_key",
    "normalize_prefix",
]

"""Stores: where zarrhpc keeps metadata documents and encoded chunks.

The Zarr v3 abstract store interface (:class:`Store`) and its implementations:

- :class:`LocalStore` -- a directory on a local or cluster file system (the default);
- :class:`MemoryStore` -- a thread-safe in-memory dict;
- :class:`ZipStore` -- a whole hierarchy in one .zip file;
- :class:`StorePath` -- a store and a path inside it (zarr-python's name);
- :class:`ObjectStore` -- zarr-python's store over an obstore store object (imported on
  first use: it needs obstore); :class:`FsspecStore` -- a store over an fsspec file
  system or URL, with zarr-python's constructors (``FsspecStore.from_url``; imported on
  first use: it needs fsspec). zarr-python's experimental caching store is
  ``zarrhpc.experimental.cache_store.CacheStore`` (:mod:`.cache`).

Stores know nothing of arrays: they map "/"-separated keys (:mod:`.keys`) to bytes. The
conformance tests every store must pass ship as :class:`zarrhpc.testing.store.StoreTests`.
"""

from __future__ import annotations

import sys
import types
import warnings

from zarrhpc.storage.abc import RangeReader, Store
from zarrhpc.storage.keys import normalize_prefix, validate_key
from zarrhpc.storage.local import LocalStore
from zarrhpc.storage.memory import MemoryStore
from zarrhpc.storage.n5 import N5Store
from zarrhpc.storage.path import StorePath
from zarrhpc.storage.wrapper import LoggingStore, WrapperStore
from zarrhpc.storage.zip import ZipStore

# zarr-python's name for what every store argument accepts (a type, for annotations)
StoreLike = Store | StorePath | str | dict

__all__ = [
    "Store", "RangeReader", "LocalStore", "MemoryStore", "ZipStore", "StorePath", "ObjectStore",
    "FsspecStore", "N5Store", "LoggingStore", "WrapperStore", "StoreLike",
    "validate_key", "normalize_prefix",
]


def __getattr__(name: str):
    # ObjectStore and FsspecStore only when asked for, so that ``import zarrhpc`` does not load the remote
    # store machinery
    if name == "ObjectStore":
        from zarrhpc.storage.objectstore import ObjectStore

        return ObjectStore
    if name == "FsspecStore":
        from zarrhpc.storage._fsspec import FsspecStore

        return FsspecStore
    raise AttributeError(f"module 'zarrhpc.storage' has no attribute {name!r}")


class _StorageModule(types.ModuleType):
    """``zarrhpc.storage`` refuses ``default_compressor`` as zarr-python 3's module does:
    a zarr-python 2 script setting it gets zarr-python's ZarrDeprecationWarning (and
    nothing is set: the v2 default compressor is ``zarrhpc.config``'s)."""

    def __setattr__(self, attr: str, value) -> None:
        if attr == "default_compressor":
            from zarrhpc.errors import ZarrDeprecationWarning

            warnings.warn(
                "setting zarr.storage.default_compressor is deprecated, use zarr.config to "
                "configure array.v2_default_compressor e.g. config.set({'codecs.zstd':"
                "'numcodecs.Zstd', 'array.v2_default_compressor.numeric': 'zstd'})",
                ZarrDeprecationWarning, stacklevel=2)
            return
        super().__setattr__(attr, value)


sys.modules[__name__].__class__ = _StorageModule

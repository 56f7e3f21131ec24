"""``zarr.experimental.cache_store``: the caching store (see :mod:`zarrhpc.storage.cache`)."""

from zarrhpc.storage.cache import CacheStore

__all__ = ["CacheStore"]

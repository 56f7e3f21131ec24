"""``zarr.abc.store``: ``Store``, the base class of every zarrhpc store (LocalStore,
MemoryStore, ZipStore, the remote stores), so ``isinstance(s, zarr.abc.store.Store)`` holds
for each. zarrhpc's Store API is synchronous; zarr-python's is asynchronous."""

from zarrhpc.storage.abc import Store

__all__ = ["Store"]

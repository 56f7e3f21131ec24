"""zarr-python's ``zarr.abc`` under ``import zarrhpc as zarr``: the abstract classes users
check against (``isinstance(store, zarr.abc.store.Store)``). Only names, no code of their
own: each is zarrhpc's class with that role."""

from zarrhpc.abc import store

__all__ = ["store"]

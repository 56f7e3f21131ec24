"""zarr-python 3's ``zarr.api`` package under zarrhpc: ``zarrhpc.api.synchronous`` holds the
same functions as the top level (``from zarr.api.synchronous import open_group`` keeps
working after ``import zarrhpc as zarr``). zarr-python's ``zarr.api.asynchronous`` has no
counterpart: zarrhpc's API is synchronous (its parallelism is its own thread pool)."""

from zarrhpc.api import synchronous

__all__ = ["synchronous"]

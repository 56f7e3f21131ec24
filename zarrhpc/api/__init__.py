"""zarr-python 3's ``zarr.api`` package under zarrhpc: ``zarrhpc.api.synchronous`` holds the
same functions as the top level (``from zarr.api.synchronous import open_group`` keeps
working after ``import zarrhpc as zarr``), ``zarrhpc.api.asynchronous`` the same as
coroutines (``await zarr.api.asynchronous.open_array(...)``), run off the event loop on
zarrhpc's synchronous engine (see :mod:`zarrhpc.core.api_async`)."""

from zarrhpc.api import asynchronous, synchronous

__all__ = ["asynchronous", "synchronous"]

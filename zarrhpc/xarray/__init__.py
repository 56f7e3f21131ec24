"""xarray integration: ``engine="zarrhpc"`` (:mod:`.backend`) and :func:`to_zarr`
(:mod:`.writer`), which writes a Dataset through zarrhpc as ``Dataset.to_zarr`` does."""

from zarrhpc.xarray.backend import ZarrhpcBackendEntrypoint
from zarrhpc.xarray.writer import to_zarr

__all__ = ["ZarrhpcBackendEntrypoint", "to_zarr"]

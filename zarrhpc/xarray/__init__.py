"""xarray integration: ``engine="zarrhpc"`` and :func:`open_zarr` (:mod:`.backend`),
:func:`to_zarr` and :func:`datatree_to_zarr` (:mod:`.writer`), which write a Dataset,
DataArray or DataTree through zarrhpc as their ``to_zarr`` methods do."""

from zarrhpc.xarray.backend import ZarrhpcBackendEntrypoint, open_zarr
from zarrhpc.xarray.writer import datatree_to_zarr, to_zarr

__all__ = ["ZarrhpcBackendEntrypoint", "datatree_to_zarr", "open_zarr", "to_zarr"]

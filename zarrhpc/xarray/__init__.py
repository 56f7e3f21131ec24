"""xarray integration: ``engine="zarrhpc"`` (:mod:`.backend`), :func:`to_zarr` and
:func:`datatree_to_zarr` (:mod:`.writer`), which write a Dataset or DataTree through
zarrhpc as ``Dataset.to_zarr`` / ``DataTree.to_zarr`` do."""

from zarrhpc.xarray.backend import ZarrhpcBackendEntrypoint
from zarrhpc.xarray.writer import datatree_to_zarr, to_zarr

__all__ = ["ZarrhpcBackendEntrypoint", "datatree_to_zarr", "to_zarr"]

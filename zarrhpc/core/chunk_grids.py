"""``zarr.core.chunk_grids`` under ``import zarrhpc as zarr``: ``RegularChunkGrid``, the
class of ``array.metadata.chunk_grid`` (:mod:`zarrhpc.core.metadata`)."""

from zarrhpc.core.metadata import RegularChunkGrid

__all__ = ["RegularChunkGrid"]

"""``zarr.core.chunk_grids`` under ``import zarrhpc as zarr``: ``RegularChunkGrid``, the
class of ``array.metadata.chunk_grid`` (:mod:`zarrhpc.core.metadata`), and ``ChunkGrid``,
zarr-python's base class of grids (``isinstance(grid, ChunkGrid)``; cubed asks it for
``from_sizes``, which zarr-python 3.1.6 does not have either, and falls back to
``RegularChunkGrid``)."""

import abc

from zarrhpc.core.metadata import RegularChunkGrid

__all__ = ["ChunkGrid", "RegularChunkGrid"]


class ChunkGrid(abc.ABC):  # noqa: B024 (a base to test against, as zarr-python's)
    """zarr-python's base class of chunk grids; ``RegularChunkGrid`` is one."""


ChunkGrid.register(RegularChunkGrid)

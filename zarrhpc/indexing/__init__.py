"""Selections and their projection onto the chunk grid (pure Python, no I/O)."""

from zarrhpc.indexing.grid import RegularChunkGrid
from zarrhpc.indexing.projection import ChunkProjection, iter_chunk_projections
from zarrhpc.indexing.selection import BasicSelection, DimSelection, normalize_basic_selection

__all__ = [
    "BasicSelection",
    "ChunkProjection",
    "DimSelection",
    "RegularChunkGrid",
    "iter_chunk_projections",
    "normalize_basic_selection",
]

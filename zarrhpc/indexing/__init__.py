"""Selections and their projection onto the chunk grid (pure Python, no I/O)."""

from zarrhpc.indexing.grid import RegularChunkGrid
from zarrhpc.indexing.projection import (
    ChunkPlan,
    ChunkProjection,
    iter_chunk_projections,
    plan_chunks,
)
from zarrhpc.indexing.selection import (
    BasicSelection,
    DimSelection,
    normalize_basic_selection,
    point_index,
)

__all__ = [
    "BasicSelection",
    "ChunkPlan",
    "ChunkProjection",
    "DimSelection",
    "RegularChunkGrid",
    "iter_chunk_projections",
    "normalize_basic_selection",
    "plan_chunks",
    "point_index",
]

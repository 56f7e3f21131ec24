"""Selections and their projection onto the chunk grid (pure Python + numpy, no I/O)."""

from zarrhpc.indexing.dispatch import (
    block_to_basic,
    check_coordinate,
    check_fields,
    check_mask,
    check_no_multi_fields,
    is_pure_fancy_indexing,
    is_pure_orthogonal_indexing,
    normalize_orthogonal,
    normalize_vindex,
    pop_fields,
)
from zarrhpc.indexing.fancy import (
    DimIndex,
    OrthogonalProjection,
    PointProjection,
    coordinate_projection,
    mask_projection,
    orthogonal_projection,
)
from zarrhpc.indexing.grid import RegularChunkGrid
from zarrhpc.indexing.projection import (
    ChunkPlan,
    ChunkProjection,
    iter_chunk_projections,
    plan_chunks,
)
from zarrhpc.indexing.rectilinear import RectilinearChunkGrid
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
    "DimIndex",
    "DimSelection",
    "OrthogonalProjection",
    "PointProjection",
    "RectilinearChunkGrid",
    "RegularChunkGrid",
    "block_to_basic",
    "check_coordinate",
    "check_fields",
    "check_mask",
    "check_no_multi_fields",
    "coordinate_projection",
    "is_pure_fancy_indexing",
    "is_pure_orthogonal_indexing",
    "iter_chunk_projections",
    "mask_projection",
    "normalize_basic_selection",
    "normalize_orthogonal",
    "normalize_vindex",
    "orthogonal_projection",
    "plan_chunks",
    "point_index",
    "pop_fields",
]

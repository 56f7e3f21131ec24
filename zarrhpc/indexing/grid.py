"""The regular chunk grid: which chunks exist, and what part of the array each covers."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

__all__ = ["RegularChunkGrid"]


@dataclass(frozen=True)
class RegularChunkGrid:
    shape: tuple[int, ...]
    chunk_shape: tuple[int, ...]

    @property
    def grid_shape(self) -> tuple[int, ...]:
        """Number of chunks along each dimension (0-d arrays have one chunk)."""
        return tuple(math.ceil(n / c) for n, c in zip(self.shape, self.chunk_shape))

    @property
    def nchunks(self) -> int:
        return math.prod(self.grid_shape)

    def all_chunk_coords(self):
        """Every chunk's grid coordinates, in C order."""
        return itertools.product(*(range(g) for g in self.grid_shape))

    def chunk_region(self, coords: tuple[int, ...]) -> tuple[slice, ...]:
        """The array region a chunk covers, clipped to the array edge."""
        return tuple(
            slice(i * c, min((i + 1) * c, n))
            for i, c, n in zip(coords, self.chunk_shape, self.shape)
        )

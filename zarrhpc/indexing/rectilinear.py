"""The rectilinear chunk grid as the indexing layer sees it: chunk boundaries per axis.

Life cycle: core builds one :class:`RectilinearChunkGrid` from an array's shape and the
edge lengths its metadata declares (``metadata.grids.RectilinearGrid``). The selection
projections (projection.py, fancy.py, dispatch.block_to_basic) take it wherever they take
a regular chunk shape and ask it for :attr:`axes`: per dimension the cumulative chunk ends,
on which every lookup is one vectorised ``np.searchsorted`` (array position -> chunk, and
the position inside it). The grid has no single chunk shape (``chunk_shape`` is None, so
code written for regular grids fails loudly instead of misplacing data); the stored shape
of each chunk is :meth:`stored_shape`.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

__all__ = ["RectilinearChunkGrid", "axes_of", "split_positions"]


class RectilinearChunkGrid:
    """Chunks of per-dimension edge lengths over an array of ``shape``.

    Parameters
    ----------
    shape : tuple of int
    edges : tuple of tuple of int
        ``edges[d][k]``: length of chunk ``k`` along ``d``; their sum reaches ``shape[d]``.
    """

    chunk_shape = None  # no single chunk shape: see the module docstring

    def __init__(self, shape: tuple[int, ...], edges: tuple[tuple[int, ...], ...]) -> None:
        self.shape = tuple(shape)
        self.edges = tuple(tuple(int(v) for v in e) for e in edges)
        self.axes = tuple(np.cumsum(np.asarray(e, dtype=np.int64)) for e in self.edges)
        for d, (ends, n) in enumerate(zip(self.axes, self.shape)):
            if not len(ends) or ends[-1] < n:
                raise ValueError(f"chunk edges along axis {d} do not reach its length {n}")

    @property
    def grid_shape(self) -> tuple[int, ...]:
        """Chunks holding array elements along each dimension."""
        return tuple(int(np.searchsorted(ends, n - 1, side="right")) + 1 if n else 0
                     for ends, n in zip(self.axes, self.shape))

    @property
    def nchunks(self) -> int:
        return math.prod(self.grid_shape)

    def all_chunk_coords(self):
        """Every chunk's grid coordinates, in C order."""
        return itertools.product(*(range(g) for g in self.grid_shape))

    def start(self, dim: int, k: int) -> int:
        """First array position of chunk ``k`` along ``dim``."""
        return int(self.axes[dim][k - 1]) if k else 0

    def chunk_region(self, coords: tuple[int, ...]) -> tuple[slice, ...]:
        """The array region chunk ``coords`` covers, clipped to the array edge."""
        return tuple(slice(self.start(d, k), min(int(self.axes[d][k]), n))
                     for d, (k, n) in enumerate(zip(coords, self.shape)))

    def stored_shape(self, coords: tuple[int, ...]) -> tuple[int, ...]:
        """The shape chunk ``coords`` is encoded with (it may run past the array's end)."""
        return tuple(self.edges[d][k] for d, k in enumerate(coords))

    def chunk_lengths(self) -> tuple[tuple[int, ...], ...]:
        """Per dimension the lengths of the chunks inside the array (dask's chunks form)."""
        out = []
        for ends, n, g in zip(self.axes, self.shape, self.grid_shape):
            stops = np.minimum(ends[:g], n)
            out.append(tuple(int(v) for v in np.diff(stops, prepend=0)))
        return tuple(out)

    def __repr__(self) -> str:
        return f"RectilinearChunkGrid(shape={self.shape}, edges={self.edges})"


def axes_of(chunk_shape) -> tuple:
    """Per dimension what the projections split on: an int (a regular chunk length) or an
    int64 array of cumulative chunk ends (a rectilinear axis)."""
    return chunk_shape.axes if isinstance(chunk_shape, RectilinearChunkGrid) else chunk_shape


def split_positions(idx: np.ndarray, axis) -> tuple[np.ndarray, np.ndarray]:
    """``(chunk index, position inside the chunk)`` of int64 positions ``idx`` on ``axis``
    (an int chunk length, or cumulative chunk ends)."""
    if isinstance(axis, np.ndarray):
        k = np.searchsorted(axis, idx, side="right").astype(np.int64, copy=False)
        starts = np.concatenate((np.zeros(1, np.int64), axis[:-1]))
        return k, idx - starts[np.minimum(k, len(axis) - 1)]
    k = idx // axis
    return k, idx - k * axis

"""Orthogonal and point selections projected onto a chunk grid (numpy, no I/O).

The grid is a regular chunk shape or a ``RectilinearChunkGrid`` (indexing.rectilinear):
positions map to chunks by division on the first, by ``np.searchsorted`` on the second's
cumulative edges; the native grouping kernels take regular grids only.

Life cycle: a selection already sorted into its kind (indexing.dispatch) is turned into
integer index arrays, then grouped by chunk with one stable ``argsort`` per dimension
(orthogonal) or over all points (coordinate, mask). The result is one frozen projection
that the read and write paths (core/_select.py) and the native engine
(``Engine.read_orthogonal`` / ``read_points``) execute: arrays only, no Python object per
element or per chunk.

- :class:`OrthogonalProjection` (``a.oindex``): per dimension a :class:`DimIndex`; the
  chunks touched are the product of the dimensions' ``chunks`` (last dimension fastest).
- :class:`PointProjection` (``a.vindex``, masks): the touched chunks in C order, each
  with its points (coordinates inside the chunk, flat index into the result).

Stable sorts keep the points of one chunk in selection order, so a write with repeated
coordinates ends with the last value, as numpy's assignment does.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from zarrhpc._kernels.points import group_points, mask_points
from zarrhpc.errors import BoundsCheckError, BroadcastError, SelectionError
from zarrhpc.indexing.rectilinear import RectilinearChunkGrid, axes_of, split_positions

__all__ = [
    "DimIndex",
    "OrthogonalProjection",
    "PointProjection",
    "coordinate_projection",
    "dim_index",
    "mask_projection",
    "orthogonal_projection",
]


@dataclass(frozen=True, eq=False)
class DimIndex:
    """One dimension of an orthogonal selection, grouped by chunk.

    ``in_chunk[offsets[k]:offsets[k+1]]`` are the indices inside chunk ``chunks[k]`` and
    ``out[...]`` the same elements' positions along the result's dimension.
    """

    chunks: np.ndarray  # (nd,) int64, increasing
    offsets: np.ndarray  # (nd+1,) int64
    in_chunk: np.ndarray  # (n,) int64
    out: np.ndarray  # (n,) int64
    dropped: bool  # an integer index: the dimension is not in the result

    @property
    def count(self) -> int:
        return len(self.in_chunk)


@dataclass(frozen=True, eq=False)
class OrthogonalProjection:
    dims: tuple[DimIndex, ...]
    full_shape: tuple[int, ...]  # integer-indexed dimensions kept as length 1
    out_shape: tuple[int, ...]

    @property
    def expand_index(self) -> tuple:
        """Index turning an ``out_shape`` array into a ``full_shape`` view."""
        return tuple(None if d.dropped else slice(None) for d in self.dims) + (Ellipsis,)

    @property
    def ntasks(self) -> int:
        n = 1
        for d in self.dims:
            n *= len(d.chunks)
        return n

    def task_coords(self) -> np.ndarray:
        """``(ntasks, ndim)`` grid coordinates of every task, last dimension fastest."""
        if not self.dims:
            return np.zeros((1, 0), dtype=np.int64)
        grids = np.meshgrid(*[d.chunks for d in self.dims], indexing="ij")
        return np.stack([g.reshape(-1) for g in grids], axis=1).astype(np.int64, copy=False)

    def task_parts(self, t: int):
        """``(chunk index tuple, out index tuple)`` of task ``t`` for ``np.ix_`` use."""
        chunk_idx, out_idx = [], []
        for d in reversed(self.dims):
            t, k = divmod(t, len(d.chunks))
            lo, hi = d.offsets[k], d.offsets[k + 1]
            chunk_idx.append(d.in_chunk[lo:hi])
            out_idx.append(d.out[lo:hi])
        return tuple(reversed(chunk_idx)), tuple(reversed(out_idx))


@dataclass(frozen=True, eq=False)
class PointProjection:
    chunk_coords: np.ndarray  # (nchunks, ndim) int64, unique, C order
    offsets: np.ndarray  # (nchunks+1,) int64
    in_chunk: np.ndarray  # (npoints, ndim) int64, grouped by chunk
    out_index: np.ndarray  # (npoints,) int64 flat C-order index into the result
    out_shape: tuple[int, ...]

    @property
    def npoints(self) -> int:
        return len(self.out_index)


def _group(idx: np.ndarray, chunk_len):
    """Stable grouping of 1-d indices by chunk: (chunks, offsets, in_chunk, order).

    ``chunk_len``: a regular chunk length or a rectilinear axis's cumulative ends.
    """
    cidx, within = split_positions(idx, chunk_len)
    if len(cidx) < 2 or bool((cidx[1:] >= cidx[:-1]).all()):
        order = np.arange(len(idx), dtype=np.int64)
        sorted_c = cidx
    else:
        order = np.argsort(cidx, kind="stable").astype(np.int64, copy=False)
        sorted_c = cidx[order]
    if len(sorted_c):
        starts = np.flatnonzero(np.r_[True, sorted_c[1:] != sorted_c[:-1]])
    else:
        starts = np.zeros(0, dtype=np.int64)
    chunks = sorted_c[starts].astype(np.int64, copy=False)
    offsets = np.append(starts, len(sorted_c)).astype(np.int64)
    in_chunk = within[order].astype(np.int64, copy=False)
    return chunks, offsets, in_chunk, order


def _check_int_array(x: np.ndarray, dim_len: int, what: str) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype.kind not in "iu":
        raise SelectionError(f"{what}: expected integers, got dtype {x.dtype}")
    x = x.astype(np.int64)  # a copy: the caller's array is never changed
    x[x < 0] += dim_len
    if x.size and (int(x.min()) < 0 or int(x.max()) >= dim_len):
        raise BoundsCheckError(f"index out of bounds for dimension with length {dim_len}")
    return x


def _is_integer(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def dim_index(sel, dim_len: int, chunk_len) -> DimIndex:
    """One dimension of an orthogonal selection: int, slice (any step), int or bool array."""
    dropped = False
    if _is_integer(sel):
        i = operator.index(sel)
        if i < 0:
            i += dim_len
        if not 0 <= i < dim_len:
            raise BoundsCheckError(f"index out of bounds for dimension with length {dim_len}")
        idx = np.array([i], dtype=np.int64)
        dropped = True
    elif isinstance(sel, slice):
        if sel.step is not None and operator.index(sel.step) == 0:
            from zarrhpc.errors import ZeroStepError  # (here: keeps the import block as main's)

            raise ZeroStepError("slice step cannot be zero")
        idx = np.arange(*sel.indices(dim_len), dtype=np.int64)
    else:
        arr = np.asarray(sel)
        if arr.dtype == bool:
            if arr.ndim != 1:
                raise SelectionError(
                    "Boolean arrays in an orthogonal selection must be 1-dimensional only")
            if arr.shape[0] != dim_len:
                raise SelectionError(
                    "Boolean array has the wrong length for dimension; expected "
                    f"{dim_len}, got {arr.shape[0]}")
            idx = np.flatnonzero(arr).astype(np.int64)
        elif arr.dtype.kind in "iu":
            if arr.ndim != 1:
                raise SelectionError(
                    "integer arrays in an orthogonal selection must be 1-dimensional only")
            idx = _check_int_array(arr, dim_len, "orthogonal selection")
        else:
            raise SelectionError(
                "unsupported selection item for orthogonal indexing; expected integer, "
                f"slice, integer array or Boolean array, got {type(sel)!r}")
    chunks, offsets, in_chunk, order = _group(idx, chunk_len)
    return DimIndex(chunks, offsets, in_chunk, order, dropped)


def orthogonal_projection(selection: tuple, shape: tuple[int, ...],
                          chunk_shape) -> OrthogonalProjection:
    """Project a normalised orthogonal selection (one item per dimension) onto a regular
    chunk shape or a ``RectilinearChunkGrid``."""
    dims = tuple(dim_index(s, n, c)
                 for s, n, c in zip(selection, shape, axes_of(chunk_shape)))
    full = tuple(d.count for d in dims)
    out = tuple(d.count for d in dims if not d.dropped)
    return OrthogonalProjection(dims, full, out)


def _points(coords: tuple[np.ndarray, ...], shape, chunk_shape,
            out_shape) -> PointProjection:
    ndim = len(shape)
    n = coords[0].size if coords else 1
    if ndim == 0:
        return PointProjection(np.zeros((1, 0), np.int64), np.array([0, n], np.int64),
                               np.zeros((n, 0), np.int64), np.zeros(n, np.int64), out_shape)
    axes = axes_of(chunk_shape)
    if not isinstance(chunk_shape, RectilinearChunkGrid):
        native = group_points(coords, shape, chunk_shape)  # one counting sort, no GIL
        if native is not None:
            return PointProjection(*native, out_shape)
    grid = tuple(len(a) if isinstance(a, np.ndarray) else max(-(-s // a), 1)
                 for s, a in zip(shape, axes))
    split = [split_positions(c, a) for c, a in zip(coords, axes)]
    cmulti = [k for k, _ in split]
    flat = np.ravel_multi_index(cmulti, grid) if n else np.zeros(0, np.int64)
    if n < 2 or bool((flat[1:] >= flat[:-1]).all()):
        order = np.arange(n, dtype=np.int64)
    else:
        order = np.argsort(flat, kind="stable").astype(np.int64, copy=False)
    sflat = flat[order]
    starts = np.flatnonzero(np.r_[True, sflat[1:] != sflat[:-1]]) if n else np.zeros(0, np.int64)
    uniq = sflat[starts]
    chunk_coords = np.stack(np.unravel_index(uniq, grid), axis=1).astype(np.int64) if n \
        else np.zeros((0, ndim), np.int64)
    offsets = np.append(starts, n).astype(np.int64)
    in_chunk = np.stack([w[order] for _, w in split], axis=1).astype(np.int64)
    return PointProjection(chunk_coords, offsets, in_chunk, order, out_shape)


def coordinate_projection(selection: tuple, shape: tuple[int, ...],
                          chunk_shape) -> PointProjection:
    """Project a coordinate selection: one integer (array) per dimension, broadcast.

    The result has the broadcast shape of the index arrays (as numpy's and zarr-python's
    ``vindex``).
    """
    arrays = []
    for s, n in zip(selection, shape):
        arrays.append(_check_int_array(np.asarray(s), n, "coordinate selection"))
    try:
        b = np.broadcast_arrays(*arrays)
    except ValueError as exc:
        raise BroadcastError(
            str(exc)) from None  # numpy's words, as zarr-python shows them
    out_shape = (b[0].shape if b else ()) or (1,)  # zarr-python: 0-d indices give (1,)
    coords = tuple(np.ascontiguousarray(x).reshape(-1) for x in b)
    return _points(coords, shape, chunk_shape, tuple(out_shape))


def mask_projection(mask: np.ndarray, shape: tuple[int, ...],
                    chunk_shape) -> PointProjection:
    """Project a full-shape boolean mask: the selected elements in C order (1-d result)."""
    if mask.ndim == 0:  # a 0-d array: the mask takes its one element or none
        n = int(bool(mask))
        return PointProjection(np.zeros((n, 0), np.int64), np.arange(n + 1, dtype=np.int64),
                               np.zeros((n, 0), np.int64), np.zeros(n, np.int64), (n,))
    if not isinstance(chunk_shape, RectilinearChunkGrid):
        native = mask_points(mask, shape, chunk_shape)  # one scan of the mask, no GIL
        if native is not None:
            return PointProjection(*native, (len(native[3]),))
    coords = tuple(c.astype(np.int64) for c in np.nonzero(mask))
    return _points(coords, shape, chunk_shape, (len(coords[0]),))

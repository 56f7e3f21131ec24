"""Resize and append: a new shape, chunks wholly outside it erased, metadata rewritten.

Life cycle: ``Array.resize`` checks the new shape and then, so that a process killed at any
moment leaves the old shape over the old chunks or the new shape over the new ones:

- growing: erases (one ``erase_values`` call) any stored chunk — shard when sharded — of
  the new grid that lies wholly outside the old shape (none exist unless an earlier shrink
  was killed after its metadata was written), then writes the new metadata document;
- shrinking: writes the new metadata document first, then erases the chunks wholly outside
  it. A kill in between leaves the new shape with unreachable chunks past its end, which
  the next grow erases before it exposes them (and ``zarrhpc verify --repair`` reports).

``store.set`` of the metadata is atomic (temporary name, then rename); the array then
prepares itself again. Chunks cut in part keep their bytes, as zarr-python keeps them:
growing the array again shows their old elements. ``append`` is a resize followed by a
write of the new region. ``delete_outside_chunks=False`` (zarr-python's
``AsyncArray.resize`` argument) erases nothing, either way: the chunks outside a smaller
shape stay, and a later grow shows their old values, as in zarr-python. Under MPI, zarrhpc.mpi.resize runs this on rank 0 and refreshes
the others.
"""

from __future__ import annotations

import itertools
import operator

from zarrhpc.core.formats import write_node
from zarrhpc.errors import ShapeError

__all__ = ["append_data", "outside_chunks", "resize_array"]


def _check_shape(new_shape, ndim: int) -> tuple[int, ...]:
    if isinstance(new_shape, int):
        new_shape = (new_shape,)
    try:
        shape = tuple(operator.index(n) for n in new_shape)
    except TypeError:
        raise ShapeError(f"new shape {new_shape!r}: expected integers") from None
    if len(shape) != ndim:
        raise ShapeError(
            f"new shape {shape}: expected {ndim} dimensions, as the array has "
            "(resize cannot change the number of dimensions)")
    if any(n < 0 for n in shape):
        # zarr-python's words
        raise ShapeError(f"Expected all values to be non-negative. Got {shape} instead.")
    return shape


def outside_chunks(old_shape, new_shape, chunk_shape):
    """Grid coordinates of the chunks of ``old_shape`` wholly outside ``new_shape``.

    Each is yielded once, under the first axis on which it lies outside, so the cost is
    the number of such chunks, not the size of the grid (an append touches one row)."""
    old_grid = [-(-n // c) for n, c in zip(old_shape, chunk_shape)]
    new_grid = [-(-n // c) for n, c in zip(new_shape, chunk_shape)]
    for d in range(len(old_grid)):
        ranges = [range(min(o, n)) for o, n in zip(old_grid[:d], new_grid[:d])]
        ranges.append(range(new_grid[d], old_grid[d]))
        ranges.extend(range(o) for o in old_grid[d + 1:])
        yield from itertools.product(*ranges)


def resize_array(prep, metadata, new_shape, written=None, delete_outside_chunks=True):
    """Write and return the new metadata, erasing chunks outside whichever shape is the
    smaller in the crash-safe order of the module docstring (none when
    ``delete_outside_chunks`` is false).

    ``written(metadata)`` is called as soon as the new document is stored: when the erase
    after it fails, the caller's handle must still take the stored shape (a handle left
    at the old shape would grow later without erasing the chunks left past the new end,
    and show their old values again)."""
    shape = _check_shape(new_shape, len(prep.shape))
    chunk_shape = prep.grid.chunk_shape if prep.shape else ()

    def erase(outer, inner):
        if not delete_outside_chunks:
            return
        keys = [prep.chunk_key(c) for c in outside_chunks(outer, inner, chunk_shape)]
        if keys:
            prep.store.erase_values(keys)

    md = metadata.with_shape(shape)
    if prep.shape:
        erase(shape, prep.shape)  # stale chunks a killed shrink left where we now grow
    write_node(prep.store, prep.path, md)
    if written is not None:
        written(md)
    if prep.shape:
        erase(prep.shape, shape)
    return md


def append_data(shape, data_shape, axis: int):
    """``(new_shape, region)`` for appending data of ``data_shape`` along ``axis``."""
    ndim = len(shape)
    if not -ndim <= axis < ndim:
        raise ShapeError(f"axis {axis} is out of range for an array with {ndim} dimensions")
    axis %= ndim
    # zarr-python's words, with the shapes less the appended axis as it shows them
    kept_data = tuple(d for i, d in enumerate(data_shape) if i != axis)
    kept = tuple(s for i, s in enumerate(shape) if i != axis)
    if len(data_shape) != ndim or kept_data != kept:
        raise ShapeError(
            "shape of data to append is not compatible with the array. The shape of the "
            f"data is ({kept_data})and the shape of the array is ({kept}).All dimensions "
            "must match except for the dimension being appended.")
    new_shape = tuple(s + (data_shape[i] if i == axis else 0) for i, s in enumerate(shape))
    region = tuple(slice(shape[i], new_shape[i]) if i == axis else slice(None)
                   for i in range(ndim))
    return new_shape, region

"""Resize and append: a new shape, chunks wholly outside it erased, metadata rewritten.

Life cycle: ``Array.resize`` checks the new shape, erases (one ``erase_values`` call) the
stored chunks — shards when sharded — that lie wholly outside it, then writes the new
metadata document (``store.set`` is atomic: temporary name, then rename), then prepares
itself again. Chunks cut in part keep their bytes, as zarr-python keeps them: growing
the array again shows their old elements. Erasing before the metadata is written means a
crash in between leaves the old shape with fill values where the erased chunks were, never
a larger shape over stale chunks. ``append`` is a resize followed by a write of the new
region. Under MPI, zarrhpc.mpi.resize runs this on rank 0 and refreshes the others.
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
        raise ShapeError(f"new shape {shape}: sizes must be >= 0")
    return shape


def outside_chunks(old_shape, new_shape, chunk_shape):
    """Grid coordinates of the chunks of ``old_shape`` wholly outside ``new_shape``."""
    old_grid = [-(-n // c) for n, c in zip(old_shape, chunk_shape)]
    new_grid = [-(-n // c) for n, c in zip(new_shape, chunk_shape)]
    for coords in itertools.product(*(range(g) for g in old_grid)):
        if any(c >= g for c, g in zip(coords, new_grid)):
            yield coords


def resize_array(prep, metadata, new_shape):
    """Erase what falls outside ``new_shape``, write and return the new metadata."""
    shape = _check_shape(new_shape, len(prep.shape))
    if prep.shape:
        keys = [prep.chunk_key(c) for c in
                outside_chunks(prep.shape, shape, prep.grid.chunk_shape)]
        if keys:
            prep.store.erase_values(keys)
    md = metadata.with_shape(shape)
    write_node(prep.store, prep.path, md)
    return md


def append_data(shape, data_shape, axis: int):
    """``(new_shape, region)`` for appending data of ``data_shape`` along ``axis``."""
    ndim = len(shape)
    if not -ndim <= axis < ndim:
        raise ShapeError(f"axis {axis} is out of range for an array with {ndim} dimensions")
    axis %= ndim
    if len(data_shape) != ndim or any(
            d != s for i, (d, s) in enumerate(zip(data_shape, shape)) if i != axis):
        raise ShapeError(
            "shape of data to append is not compatible with the array. The shape of the "
            f"data is ({data_shape})and the shape of the array is ({shape}).All dimensions "
            "must match except for the dimension being appended.")
    new_shape = tuple(s + (data_shape[i] if i == axis else 0) for i, s in enumerate(shape))
    region = tuple(slice(shape[i], new_shape[i]) if i == axis else slice(None)
                   for i in range(ndim))
    return new_shape, region

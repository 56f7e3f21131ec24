"""``zarr.core.indexing`` under ``import zarrhpc as zarr``: :class:`OrthogonalIndexer`, the
chunk projection of an orthogonal selection that libraries built on zarr use to plan
their own work chunk by chunk (cubed indexes its arrays with it).

An indexer is made from a selection, the array shape and a chunk grid (anything with a
``chunk_shape``: ``zarr.core.chunk_grids.RegularChunkGrid``, zarrhpc's or zarr-python's).
Iterating it gives one :class:`ChunkProjection` per chunk the selection touches, in C order
of the chunk grid: ``block[chunk_selection]`` (after dropping ``drop_axes`` when the
selection is advanced) is what lands at ``out[out_selection]`` in a result of ``shape``.
The grouping by chunk is zarrhpc's own (:func:`zarrhpc.indexing.orthogonal_projection`).
Selections as zarrhpc's ``oindex`` takes them: ints, slices (any step), integer and Boolean
arrays, lists, one ``...``.
"""

from __future__ import annotations

import itertools
from typing import Any, NamedTuple

import numpy as np

from zarrhpc.indexing import normalize_orthogonal, orthogonal_projection

__all__ = ["ChunkProjection", "OrthogonalIndexer", "Selection"]

Selection = Any  # int, slice, ndarray, list, Ellipsis or a tuple of them


class ChunkProjection(NamedTuple):
    """One chunk's part of a selection (zarr-python's fields and order)."""

    chunk_coords: tuple[int, ...]
    chunk_selection: tuple
    out_selection: tuple
    is_complete_chunk: bool


def _run(idx: np.ndarray, step: int):
    """``slice`` equal to the indices ``idx`` when they step by ``step``, else None."""
    if len(idx) == 1:
        return slice(int(idx[0]), int(idx[0]) + 1, 1)
    if len(idx) and step and bool((np.diff(idx) == step).all()):
        stop = int(idx[-1]) + step
        return slice(int(idx[0]), stop if stop >= 0 else None, step)
    return None


def _is_basic(item) -> bool:
    return isinstance(item, (slice, int, np.integer))


class OrthogonalIndexer:
    """The chunks an orthogonal selection touches and each one's part of it.

    Parameters
    ----------
    selection : int, slice, array, list, Ellipsis or a tuple of them
        One item per dimension (missing trailing dimensions are taken whole).
    shape : tuple of int
        The array's shape.
    chunk_grid : object with ``chunk_shape``
        A regular chunk grid.

    Attributes
    ----------
    shape : tuple of int
        The result's shape (integer-indexed dimensions dropped).
    chunk_shape : tuple of int
    is_advanced : bool
        True when the selection holds an integer or Boolean array.
    drop_axes : tuple of int
        Integer-indexed dimensions of an advanced selection, kept as length 1 by
        ``chunk_selection``: drop them from the block before assigning.
    """

    def __init__(self, selection: Selection, shape: tuple[int, ...], chunk_grid) -> None:
        shape = tuple(int(n) for n in shape)
        self.chunk_shape = tuple(int(c) for c in chunk_grid.chunk_shape)
        selection = normalize_orthogonal(selection, shape)
        self._kinds = tuple("int" if isinstance(s, (int, np.integer)) else
                            "slice" if isinstance(s, slice) else "array" for s in selection)
        self._steps = tuple(s.indices(n)[2] if isinstance(s, slice) else 1
                            for s, n in zip(selection, shape))
        self._projection = orthogonal_projection(selection, shape, self.chunk_shape)
        self._shape = shape
        self.shape = self._projection.out_shape
        self.is_advanced = "array" in self._kinds
        self.drop_axes = (tuple(i for i, k in enumerate(self._kinds) if k == "int")
                          if self.is_advanced else ())

    def _dim_parts(self, axis: int, k: int):
        """(chunk index, chunk selection, out selection or None, covers the chunk, in-chunk
        indices, out positions) of piece ``k`` of dimension ``axis``."""
        d = self._projection.dims[axis]
        lo, hi = int(d.offsets[k]), int(d.offsets[k + 1])
        chunk, c, n = int(d.chunks[k]), self.chunk_shape[axis], self._shape[axis]
        inside, out = d.in_chunk[lo:hi], d.out[lo:hi]
        # zarr-python's hint (a writer may skip reading the chunk): an integer covers a
        # chunk of length 1, a slice of step 1 the chunk's in-array extent; an array never
        complete = (c == 1 if self._kinds[axis] == "int" else
                    self._kinds[axis] == "slice" and self._steps[axis] == 1
                    and hi - lo == min(c, n - chunk * c))
        if self._kinds[axis] == "int":
            return chunk, int(inside[0]), None, complete, inside, out
        step = self._steps[axis] if self._kinds[axis] == "slice" else 1
        chunk_sel = _run(inside, step)
        out_sel = _run(out, 1)
        return (chunk, inside if chunk_sel is None else chunk_sel,
                out if out_sel is None else slice(out_sel.start, out_sel.stop), complete,
                inside, out)

    def __iter__(self):
        dims = self._projection.dims
        for ks in itertools.product(*(range(len(d.chunks)) for d in dims)):
            parts = [self._dim_parts(axis, k) for axis, k in enumerate(ks)]
            coords = tuple(p[0] for p in parts)
            chunk_sel = tuple(p[1] for p in parts)
            out_sel = tuple(p[2] for p in parts if p[2] is not None)
            if self.is_advanced:
                # numpy indexes arrays pointwise: make every item an index array of its
                # own axis (np.ix_), integers kept as length-1 axes (drop_axes)
                chunk_sel = np.ix_(*(p[4] for p in parts))
                if not all(_is_basic(s) for s in out_sel):
                    out_sel = np.ix_(*(p[5] for p in parts if p[2] is not None))
            yield ChunkProjection(coords, chunk_sel, out_sel, all(p[3] for p in parts))

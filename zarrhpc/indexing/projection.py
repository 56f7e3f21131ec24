"""Project a basic selection onto a chunk grid (regular, or rectilinear: indexing.rectilinear).

For every chunk the selection touches this gives the chunk's grid coordinates, the part
of the chunk wanted (one slice per dimension, in chunk coordinates, any step) and where
that part lands in the result (one contiguous slice per dimension of the full-shape
result). Work is per dimension and per chunk, never per element.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from zarrhpc.indexing.rectilinear import axes_of
from zarrhpc.indexing.selection import BasicSelection, DimSelection

__all__ = [
    "ChunkPlan",
    "ChunkProjection",
    "DimPiece",
    "dim_pieces",
    "iter_chunk_projections",
    "plan_chunks",
]


@dataclass(frozen=True)
class DimPiece:
    """The elements of one chunk along one dimension that a selection takes."""

    chunk_index: int
    chunk_slice: slice  # in chunk coordinates
    out_slice: slice  # in the full-shape result
    count: int
    chunk_len: int  # extent of this chunk inside the array

    @property
    def covers_chunk(self) -> bool:
        """True when every in-array element of the chunk is selected."""
        return self.count == self.chunk_len


@dataclass(frozen=True)
class ChunkProjection:
    chunk_coords: tuple[int, ...]
    chunk_selection: tuple  # slices, then Ellipsis
    out_selection: tuple  # slices, then Ellipsis
    covers_chunk: bool  # the selection covers the whole in-array part of the chunk


def _slice(first: int, step: int, count: int) -> slice:
    stop = first + step * count
    return slice(first, stop if stop >= 0 else None, step)


def _groups_increasing(start: int, step: int, count: int, c: int):
    """(chunk index, first k, last k) for the increasing indices start + k*step."""
    if step >= c:
        # every element lies in its own chunk
        for k in range(count):
            yield (start + k * step) // c, k, k
        return
    last = start + (count - 1) * step
    for ci in range(start // c, last // c + 1):
        lo = ci * c
        hi = lo + c - 1
        k_lo = max(0, -((start - lo) // step))  # ceil((lo - start) / step)
        k_hi = min(count - 1, (hi - start) // step)
        if k_lo <= k_hi:
            yield ci, k_lo, k_hi


def _groups_edges(start: int, step: int, count: int, ends: np.ndarray):
    """:func:`_groups_increasing` on a rectilinear axis (cumulative chunk ``ends``)."""
    last = start + (count - 1) * step
    first_c = int(np.searchsorted(ends, start, side="right"))
    last_c = int(np.searchsorted(ends, last, side="right"))
    if step > 1 and last_c - first_c > count:  # sparser than the chunks: per element
        idx = start + step * np.arange(count, dtype=np.int64)
        ks = np.searchsorted(ends, idx, side="right")
        cuts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
        for a, b in zip(cuts, np.r_[cuts[1:], count]):
            yield int(ks[a]), int(a), int(b) - 1
        return
    for ci in range(first_c, last_c + 1):
        lo = int(ends[ci - 1]) if ci else 0
        hi = int(ends[ci]) - 1
        k_lo = max(0, -((start - lo) // step))
        k_hi = min(count - 1, (hi - start) // step)
        if k_lo <= k_hi:
            yield ci, k_lo, k_hi


def _dim_pieces_edges(d: DimSelection, ends: np.ndarray, dim_len: int) -> list[DimPiece]:
    def piece(ci, first_k, k_lo, n):
        lo = int(ends[ci - 1]) if ci else 0
        first = d.start + first_k * d.step - lo
        return DimPiece(ci, _slice(first, d.step, n), slice(k_lo, k_lo + n), n,
                        min(int(ends[ci]), dim_len) - lo)

    if d.step > 0:
        return [piece(ci, k_lo, k_lo, k_hi - k_lo + 1)
                for ci, k_lo, k_hi in _groups_edges(d.start, d.step, d.count, ends)]
    last = d.start + (d.count - 1) * d.step
    out = []
    for ci, m_lo, m_hi in _groups_edges(last, -d.step, d.count, ends):
        k_lo = d.count - 1 - m_hi
        out.append(piece(ci, k_lo, k_lo, m_hi - m_lo + 1))
    return out


def dim_pieces(d: DimSelection, chunk_len, dim_len: int) -> list[DimPiece]:
    """Split one dimension's selection into per-chunk pieces, in chunk order.

    ``chunk_len``: the regular chunk length, or a rectilinear axis's cumulative ends.
    """
    if d.count == 0:
        return []
    if isinstance(chunk_len, np.ndarray):
        return _dim_pieces_edges(d, chunk_len, dim_len)
    c = chunk_len
    pieces = []
    if d.step > 0:
        for ci, k_lo, k_hi in _groups_increasing(d.start, d.step, d.count, c):
            n = k_hi - k_lo + 1
            first = d.start + k_lo * d.step - ci * c
            pieces.append(
                DimPiece(ci, _slice(first, d.step, n), slice(k_lo, k_hi + 1), n,
                         min(c, dim_len - ci * c))
            )
    else:
        # walk the same indices in increasing order, then map back
        last = d.start + (d.count - 1) * d.step
        for ci, m_lo, m_hi in _groups_increasing(last, -d.step, d.count, c):
            n = m_hi - m_lo + 1
            k_lo = d.count - 1 - m_hi  # first output position of this chunk
            first = d.start + k_lo * d.step - ci * c
            pieces.append(
                DimPiece(ci, _slice(first, d.step, n), slice(k_lo, k_lo + n), n,
                         min(c, dim_len - ci * c))
            )
    return pieces


def iter_chunk_projections(sel: BasicSelection, chunk_shape):
    """Yield a :class:`ChunkProjection` for every chunk the selection touches.

    ``chunk_shape``: a regular chunk shape, or a ``RectilinearChunkGrid``.
    """
    per_dim = [dim_pieces(d, c, n) for d, c, n in zip(sel.dims, axes_of(chunk_shape),
                                                       sel.shape)]
    if any(not p for p in per_dim):
        return
    for combo in itertools.product(*per_dim):
        yield _projection(combo)


def _projection(combo) -> ChunkProjection:
    # the trailing Ellipsis keeps numpy returning a view (not a scalar) for 0-d arrays
    return ChunkProjection(
        tuple(p.chunk_index for p in combo),
        tuple(p.chunk_slice for p in combo) + (Ellipsis,),
        tuple(p.out_slice for p in combo) + (Ellipsis,),
        all(p.covers_chunk for p in combo),
    )


class ChunkPlan:
    """Every chunk a selection touches, as per-dimension pieces (their product).

    The native engine takes :meth:`arrays` and enumerates the chunks itself (task ``t``
    is the ``t``-th element of ``itertools.product`` over the dimensions' pieces), so the
    plan costs one small list per dimension, never one object per chunk.
    """

    __slots__ = ("ntasks", "per_dim", "steps")

    def __init__(self, sel: BasicSelection, chunk_shape) -> None:
        self.per_dim = [dim_pieces(d, c, n)
                        for d, c, n in zip(sel.dims, axes_of(chunk_shape), sel.shape)]
        self.steps = tuple(d.step for d in sel.dims)
        ntasks = 1
        for pieces in self.per_dim:
            ntasks *= len(pieces)
        self.ntasks = ntasks

    def arrays(self) -> tuple[np.ndarray, ...]:
        """``(npieces, piece_off, chunk_index, first, count, out_start)`` as int64 arrays."""
        flat = [p for pieces in self.per_dim for p in pieces]
        npieces = np.array([len(p) for p in self.per_dim], dtype=np.int64)
        offsets = np.zeros(len(self.per_dim), dtype=np.int64)
        if len(npieces) > 1:
            offsets[1:] = np.cumsum(npieces[:-1])
        table = np.array(
            [(p.chunk_index, p.chunk_slice.start, p.count, p.out_slice.start) for p in flat],
            dtype=np.int64,
        ).reshape(-1, 4)
        return (npieces, offsets, *(np.ascontiguousarray(table[:, i]) for i in range(4)))

    def _combo(self, t: int):
        idx = []
        for pieces in reversed(self.per_dim):
            t, k = divmod(t, len(pieces))
            idx.append(pieces[k])
        return idx[::-1]

    def coords(self, t: int) -> tuple[int, ...]:
        """Grid coordinates of task ``t``'s chunk."""
        return tuple(p.chunk_index for p in self._combo(t))

    def projection(self, t: int) -> ChunkProjection:
        """Task ``t`` as a :class:`ChunkProjection`."""
        return _projection(self._combo(t))

    def iter_coords(self):
        """Grid coordinates of every task, in task order."""
        return itertools.product(*[[p.chunk_index for p in pieces] for pieces in self.per_dim])


def plan_chunks(sel: BasicSelection, chunk_shape: tuple[int, ...]) -> ChunkPlan:
    """The :class:`ChunkPlan` of ``sel`` on a regular grid of ``chunk_shape``."""
    return ChunkPlan(sel, chunk_shape)

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Point selections grouped by chunk, in one pass each, without the GIL.

:func:`group_points` (coordinate selections) and :func:`mask_points` (boolean masks)
build what :class:`zarrhpc.indexing.PointProjection` holds: the touched chunks in C
order, where each one's points start, their coordinates inside the chunk and their
flat index in the result, points of a chunk in selection order (a stable counting sort
by chunk, not an argsort; a mask is scanned twice, 8 bytes at a time where it is
empty, instead of ``nonzero`` plus a sort).  Both return None when the chunk grid is
too large for a count per chunk; the caller then sorts with numpy.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.string cimport memcpy

cnp.import_array()

DEF MAXD = 64


cdef int64_t _grid(shape, chunk_shape, int64_t *grid, int64_t *cs, int64_t *gstride,
                   int64_t *shp) except -2:
    cdef int nd = len(shape), d
    cdef int64_t total = 1
    for d in range(nd):
        shp[d] = shape[d]
        cs[d] = chunk_shape[d]
        if cs[d] <= 0:
            raise ValueError("chunk shape must be positive")
        grid[d] = max((shp[d] + cs[d] - 1) // cs[d], 1)
    for d in range(nd - 1, -1, -1):
        gstride[d] = total
        total *= grid[d]
    return total


cdef tuple _finish(int nd, int64_t nchunks, int64_t[::1] counts, int64_t *grid):
    """Touched chunks (counts > 0) in C order: their coordinates and point offsets."""
    cdef int64_t k, m = 0, t, acc = 0
    cdef int d
    for k in range(nchunks):
        if counts[k] > 0:
            m += 1
    cc = np.empty((m, nd), dtype=np.int64)
    offs = np.empty(m + 1, dtype=np.int64)
    cdef int64_t[:, ::1] ccv = cc
    cdef int64_t[::1] ov = offs
    m = 0
    for k in range(nchunks):
        if counts[k] > 0:
            t = k
            for d in range(nd - 1, -1, -1):
                ccv[m, d] = t % grid[d]
                t //= grid[d]
            ov[m] = acc
            acc += counts[k]
            m += 1
    ov[m] = acc
    return cc, offs


def group_points(coords, shape, chunk_shape):
    """``(chunk_coords, offsets, in_chunk, out_index)`` of points ``coords`` (one
    int64 array per dimension, equal lengths, in range), or None (grid too large or
    a coordinate out of range)."""
    cdef int nd = len(shape), d
    if nd == 0 or nd > MAXD or len(coords) != nd:
        return None
    cdef int64_t grid[MAXD]
    cdef int64_t cs[MAXD]
    cdef int64_t gstride[MAXD]
    cdef int64_t shp[MAXD]
    cdef int64_t nchunks = _grid(shape, chunk_shape, grid, cs, gstride, shp)
    arrs = [np.ascontiguousarray(x, dtype=np.int64).reshape(-1) for x in coords]
    cdef int64_t n = arrs[0].shape[0], i, c, lin, pos
    if any(a.shape[0] != n for a in arrs) or nchunks > max(4 * n, 1 << 20):
        return None
    cdef const int64_t *cp[MAXD]
    cdef cnp.ndarray a
    for d in range(nd):
        a = arrs[d]
        cp[d] = <const int64_t *> cnp.PyArray_DATA(a)
    lin_a = np.empty(n, dtype=np.int64)
    counts_a = np.zeros(nchunks, dtype=np.int64)
    nxt_a = np.empty(nchunks, dtype=np.int64)
    in_chunk = np.empty((n, nd), dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] linv = lin_a, counts = counts_a, nxt = nxt_a, ov = order
    cdef int64_t[:, ::1] icv = in_chunk
    cdef bint bad = False
    with nogil:
        for i in range(n):
            lin = 0
            for d in range(nd):
                c = cp[d][i]
                if c < 0 or c >= shp[d]:
                    bad = True
                    break
                lin += (c // cs[d]) * gstride[d]
            if bad:
                break
            linv[i] = lin
            counts[lin] += 1
        if not bad:
            pos = 0
            for lin in range(nchunks):
                nxt[lin] = pos
                pos += counts[lin]
            for i in range(n):
                pos = nxt[linv[i]]
                nxt[linv[i]] = pos + 1
                ov[pos] = i
                for d in range(nd):
                    c = cp[d][i]
                    icv[pos, d] = c - (c // cs[d]) * cs[d]
    if bad:
        return None
    cc, offs = _finish(nd, nchunks, counts, grid)
    return cc, offs, in_chunk, order


cdef inline bint _zero8(const uint8_t *p) noexcept nogil:
    cdef uint64_t v
    memcpy(&v, p, 8)
    return v == 0


cdef inline int64_t _row_base(int nd, const int64_t *idx, const int64_t *cs,
                              const int64_t *gstride) noexcept nogil:
    """The linear chunk index of the row's first chunk (the row's outer coordinates)."""
    cdef int64_t base = 0
    cdef int d
    for d in range(nd - 1):
        base += (idx[d] // cs[d]) * gstride[d]
    return base


cdef inline void _next_row(int nd, int64_t *idx, const int64_t *shp) noexcept nogil:
    """Advance the outer coordinates to the next row (C order)."""
    cdef int d
    for d in range(nd - 2, -1, -1):
        idx[d] += 1
        if idx[d] < shp[d]:
            return
        idx[d] = 0


def mask_points(mask, shape, chunk_shape):
    """``(chunk_coords, offsets, in_chunk, out_index)`` of the true elements of a
    full-shape boolean ``mask``, in C order (``out_index`` is their rank), or None."""
    cdef int nd = len(shape), d
    if nd == 0 or nd > MAXD or tuple(mask.shape) != tuple(shape):
        return None
    cdef int64_t grid[MAXD]
    cdef int64_t cs[MAXD]
    cdef int64_t gstride[MAXD]
    cdef int64_t shp[MAXD]
    cdef int64_t idx[MAXD]
    cdef int64_t nchunks = _grid(shape, chunk_shape, grid, cs, gstride, shp)
    cdef cnp.ndarray m = np.ascontiguousarray(mask, dtype=np.bool_)
    cdef const uint8_t *mp = <const uint8_t *> cnp.PyArray_DATA(m)
    cdef int64_t L = shp[nd - 1], csl = cs[nd - 1], rows = 1, r, k, j0, j1, seg, base, lin
    cdef int64_t total = 0, pos, rank
    for d in range(nd - 1):
        rows *= shp[d]
    if L == 0 or rows == 0:
        return None
    counts_a = np.zeros(nchunks, dtype=np.int64)
    nxt_a = np.empty(nchunks, dtype=np.int64)
    cdef int64_t[::1] counts = counts_a, nxt = nxt_a
    cdef const uint8_t *row
    with nogil:
        # pass 1: points per chunk
        for d in range(nd):
            idx[d] = 0
        for r in range(rows):
            base = _row_base(nd, idx, cs, gstride)
            row = mp + r * L
            k = 0
            while k < L:
                if k + 8 <= L and _zero8(row + k):
                    k += 8
                    continue
                if row[k]:
                    counts[base + k // csl] += 1
                k += 1
            _next_row(nd, idx, shp)
        for lin in range(nchunks):
            nxt[lin] = total
            total += counts[lin]
    in_chunk = np.empty((total, nd), dtype=np.int64)
    order = np.empty(total, dtype=np.int64)
    cdef int64_t[:, ::1] icv = in_chunk
    cdef int64_t[::1] ov = order
    with nogil:
        # pass 2: each point at its chunk's next place, its rank as the result index
        rank = 0
        for d in range(nd):
            idx[d] = 0
        for r in range(rows):
            base = _row_base(nd, idx, cs, gstride)
            row = mp + r * L
            k = 0
            while k < L:
                if k + 8 <= L and _zero8(row + k):
                    k += 8
                    continue
                if row[k]:
                    lin = base + k // csl
                    pos = nxt[lin]
                    nxt[lin] = pos + 1
                    for d in range(nd - 1):
                        icv[pos, d] = idx[d] - (idx[d] // cs[d]) * cs[d]
                    icv[pos, nd - 1] = k - (k // csl) * csl
                    ov[pos] = rank
                    rank += 1
                k += 1
            _next_row(nd, idx, shp)
    cc, offs = _finish(nd, nchunks, counts, grid)
    return cc, offs, in_chunk, order

# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Point selections grouped by chunk, in one pass each, without the GIL.

:func:`group_points` (coordinate selections) and :func:`mask_points` (boolean masks)
build what :class:`zarrhpc.indexing.PointProjection` holds: the touched chunks in C
order, where each one's points start, their coordinates inside the chunk and their
flat index in the result, points of a chunk in selection order (a stable counting sort
by chunk, not an argsort; a mask is scanned once, 64 bytes at a time where it is
empty, instead of ``nonzero`` plus a sort).  Both return None when the chunk grid is
too large for a count per chunk; the caller then sorts with numpy.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
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


cdef extern from *:
    """
    static inline int zh_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    """
    int zh_ctz64(unsigned long long x) noexcept nogil


cdef inline uint64_t _word(const uint8_t *p) noexcept nogil:
    cdef uint64_t v
    memcpy(&v, p, 8)
    return v


cdef inline uint64_t _nonzero_bytes(uint64_t v) noexcept nogil:
    """Bit 8*j set where byte j of ``v`` is not zero (any value counts as true)."""
    v |= v >> 4
    v |= v >> 2
    v |= v >> 1
    return v & <uint64_t>0x0101010101010101


cdef struct _Found:
    int64_t n, cap, nrows, rows_cap
    int64_t *lin    # per point: linear chunk index
    int64_t *kin    # per point: coordinate inside the chunk, last dimension
    int64_t *row    # per point: its row in ``rows``
    int64_t *rows   # per row holding points: coordinates inside the chunk, outer dimensions


cdef int _grow(int64_t **p, int64_t cap) noexcept nogil:
    cdef int64_t *q = <int64_t *> realloc(p[0], cap * sizeof(int64_t))
    if q == NULL:
        return -1
    p[0] = q
    return 0


cdef inline int _add(_Found *f, int64_t lin, int64_t kin) noexcept nogil:
    if f.n == f.cap:
        f.cap *= 2
        if _grow(&f.lin, f.cap) or _grow(&f.kin, f.cap) or _grow(&f.row, f.cap):
            return -1
    f.lin[f.n] = lin
    f.kin[f.n] = kin
    f.row[f.n] = f.nrows - 1
    f.n += 1
    return 0


cdef void _free_found(_Found *f) noexcept nogil:
    free(f.lin)
    free(f.kin)
    free(f.row)
    free(f.rows)


def mask_points(mask, shape, chunk_shape):
    """``(chunk_coords, offsets, in_chunk, out_index)`` of the true elements of a
    full-shape boolean ``mask``, in C order (``out_index`` is their rank), or None.

    One scan of the mask, row by row and within a row chunk by chunk (64 bytes at a time
    while they are all false, then the true bytes of a word by bit tricks, no branch per
    byte), records each true element's chunk and coordinates; the counting sort then
    runs over those points only.  No division per point or per row.
    """
    cdef int nd = len(shape), d
    if nd == 0 or nd > MAXD or tuple(mask.shape) != tuple(shape):
        return None
    cdef int64_t grid[MAXD]
    cdef int64_t cs[MAXD]
    cdef int64_t gstride[MAXD]
    cdef int64_t shp[MAXD]
    cdef int64_t idx[MAXD]   # the row's outer coordinates
    cdef int64_t cidx[MAXD]  # ... their chunk
    cdef int64_t inoff[MAXD]  # ... and place inside it
    cdef int64_t nchunks = _grid(shape, chunk_shape, grid, cs, gstride, shp)
    cdef cnp.ndarray m = np.ascontiguousarray(mask, dtype=np.bool_)
    cdef const uint8_t *mp = <const uint8_t *> cnp.PyArray_DATA(m)
    cdef int64_t L = shp[nd - 1], csl = cs[nd - 1], rows = 1, r, k, k1, base, lin, seg, pos, i
    cdef int64_t row_added, rw_n = nd - 1 if nd > 1 else 1
    cdef uint64_t bits
    for d in range(nd - 1):
        rows *= shp[d]
    if L == 0 or rows == 0:
        return None
    cdef _Found f
    f.n = 0
    f.cap = 1024
    f.nrows = 0
    f.rows_cap = 64
    f.lin = <int64_t *> malloc(f.cap * sizeof(int64_t))
    f.kin = <int64_t *> malloc(f.cap * sizeof(int64_t))
    f.row = <int64_t *> malloc(f.cap * sizeof(int64_t))
    f.rows = <int64_t *> malloc(f.rows_cap * rw_n * sizeof(int64_t))
    if f.lin == NULL or f.kin == NULL or f.row == NULL or f.rows == NULL:
        _free_found(&f)
        raise MemoryError("mask selection: no memory for the selected points")
    counts_a = np.zeros(nchunks, dtype=np.int64)
    nxt_a = np.empty(nchunks, dtype=np.int64)
    cdef int64_t[::1] counts = counts_a, nxt = nxt_a
    cdef const uint8_t *row
    cdef bint nomem = False
    with nogil:
        for d in range(nd):
            idx[d] = 0
            cidx[d] = 0
            inoff[d] = 0
        for r in range(rows):
            base = 0
            for d in range(nd - 1):
                base += cidx[d] * gstride[d]
            row = mp + r * L
            row_added = 0
            seg = 0
            while seg * csl < L and not nomem:
                k = seg * csl
                k1 = k + csl
                if k1 > L:
                    k1 = L
                lin = base + seg
                while k < k1:
                    if k + 64 <= k1 and (_word(row + k) | _word(row + k + 8)
                                         | _word(row + k + 16) | _word(row + k + 24)
                                         | _word(row + k + 32) | _word(row + k + 40)
                                         | _word(row + k + 48) | _word(row + k + 56)) == 0:
                        k += 64
                        continue
                    if k + 8 <= k1:
                        bits = _nonzero_bytes(_word(row + k))
                    else:  # the segment's tail, a byte at a time
                        bits = <uint64_t>1 if row[k] else 0
                    if bits:
                        if not row_added:  # the row's outer coordinates, once
                            if f.nrows == f.rows_cap:
                                f.rows_cap *= 2
                                if _grow(&f.rows, f.rows_cap * rw_n):
                                    nomem = True
                                    break
                            for d in range(nd - 1):
                                f.rows[f.nrows * rw_n + d] = inoff[d]
                            f.nrows += 1
                            row_added = 1
                        while bits:
                            if _add(&f, lin, k - seg * csl + (zh_ctz64(bits) >> 3)):
                                nomem = True
                                break
                            counts[lin] += 1
                            bits &= bits - 1
                        if nomem:
                            break
                    k += 8 if k + 8 <= k1 else 1
                seg += 1
            if nomem:
                break
            # next row (C order): an odometer over the outer dimensions, no division
            for d in range(nd - 2, -1, -1):
                idx[d] += 1
                inoff[d] += 1
                if inoff[d] == cs[d]:
                    inoff[d] = 0
                    cidx[d] += 1
                if idx[d] < shp[d]:
                    break
                idx[d] = 0
                inoff[d] = 0
                cidx[d] = 0
    if nomem:
        _free_found(&f)
        raise MemoryError("mask selection: no memory for the selected points")
    in_chunk = np.empty((f.n, nd), dtype=np.int64)
    order = np.empty(f.n, dtype=np.int64)
    cdef int64_t[:, ::1] icv = in_chunk
    cdef int64_t[::1] ov = order
    cdef const int64_t *rw
    with nogil:
        pos = 0
        for lin in range(nchunks):
            nxt[lin] = pos
            pos += counts[lin]
        # each point at its chunk's next place, its rank (C order) as the result index
        for i in range(f.n):
            pos = nxt[f.lin[i]]
            nxt[f.lin[i]] = pos + 1
            ov[pos] = i
            rw = f.rows + f.row[i] * rw_n
            for d in range(nd - 1):
                icv[pos, d] = rw[d]
            icv[pos, nd - 1] = f.kin[i]
    _free_found(&f)
    cc, offs = _finish(nd, nchunks, counts, grid)
    return cc, offs, in_chunk, order

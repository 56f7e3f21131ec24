# cython: language_level=3
"""The native batch engine: every chunk of one request read or written in one call.

An :class:`Engine` holds what every chunk of an array shares (decoded layout, the
bytes->bytes codec chain, fill value); :meth:`Engine.read` and :meth:`Engine.write` take
the request as per-dimension pieces (see csrc/zh_engine.h) and run all its chunks on the
native pool (csrc/zh_pool.c) with the GIL released: file I/O, decompression, byte swap,
transpose and the copy into place, without a Python object per chunk.

Outcome per task (one task per chunk, in itertools.product order): ``DONE``, ``FALLBACK``
(the caller must do this chunk with the Python codecs) or ``FAILED``/``SKIPPED``; the
first failure by task number comes back as ``(task, code, message)``.

Files: ``_engine_decl.pxi`` declares the C side (csrc/zh_engine.h, zh_select.h, zh_mask.h,
zh_codecs.h, zh_status.h) and the status constants; ``_engine_base.pxi`` holds the small
helpers and :class:`_EngineBase` (the array's layout and codec chain, job set-up, basic
reads and writes); :class:`Engine` here adds the selection reads (points, orthogonal,
masks, and the lean small read) and the point, orthogonal and mask writes.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t, uint8_t, uint64_t, uintptr_t
from libc.stdlib cimport malloc, free, calloc
from libc.string cimport memset, strncpy
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_SIMPLE

include "_engine_decl.pxi"
include "_engine_base.pxi"


cdef class Engine(_EngineBase):
    """What every chunk of one array shares, in the engine's terms.

    Parameters
    ----------
    chunk_shape : tuple of int
    lstrides : tuple of int
        Byte strides of a decoded chunk in logical (array) order: C order of the stored
        (transposed) layout, permuted back.
    itemsize : int
    swap : int
        Byte-swap component size between stored and native order (0: none).
    steps : list of zarrhpc.codecs.abc.NativeStep
        The bytes->bytes codecs in chain order: records with the attributes ``kind``
        (a ``BB_*`` constant), ``level``, ``checksum``, ``shuffle``, ``typesize``,
        ``blocksize``, ``cname`` and ``decoded_size`` (-1: not fixed).
    fill_native, fill_stored : bytes
        The fill value's bytes in native and in stored byte order.
    """

    def read_points(self, cnp.ndarray out not None, chunk_coords, offsets, in_chunk,
                    out_index, *, path_prefix=None, int64_t root_len=0, int key_kind=0,
                    str sep="/", sources=None, ranges=None, int nthreads=1, int floor=0):
        """Read scattered elements (a PointProjection) into ``out`` (contiguous).

        Chunk ``k`` (grid coordinates ``chunk_coords[k]``) holds the points
        ``offsets[k]:offsets[k+1]``; point ``i`` is element ``in_chunk[i]`` of its chunk
        and goes to ``out.flat[out_index[i]]``. One task per chunk, each chunk decoded
        once (or only the bytes / blosc blocks its points need). ``sources`` (when no
        ``path_prefix``) are the stored bytes per chunk; ``ranges`` (with
        ``path_prefix``) place each chunk in a range of another chunk's file (inner
        chunks of shards, see ``_ranged``). Returns ``(task_status, err_task, err_code,
        err_msg)``, tasks being chunks. ``floor`` (``zarrhpc bench``'s floor rows): 1
        reads and decodes each chunk whole, 2 only what the points need, and neither
        touches ``out``.
        """
        if not 0 <= floor <= 2:
            raise ValueError("engine: read_points: floor must be 0, 1 or 2")
        if not cnp.PyArray_ISWRITEABLE(out) or not cnp.PyArray_IS_C_CONTIGUOUS(out):
            raise ValueError("engine: read_points: out must be writable and C-contiguous")
        if cnp.PyArray_ITEMSIZE(out) != self.itemsize:
            raise ValueError("engine: read_points: out has the wrong itemsize")
        cdef zh_job_t job
        cdef zh_points_t pj
        cdef int rc
        arrays = self._points_job(&job, &pj, chunk_coords, offsets, in_chunk, out_index)
        cdef Py_ssize_t nchunks = pj.nchunks
        cdef cnp.ndarray status = np.zeros(nchunks, dtype=np.uint8)
        job.task_status = <uint8_t *> cnp.PyArray_DATA(status)
        pj.out = <char *> cnp.PyArray_DATA(out)
        pj.out_size = cnp.PyArray_SIZE(out)
        pj.floor = floor
        keep = self._store_target(&job, path_prefix, root_len, key_kind, sep, sources, nchunks)
        keep_r = None
        if ranges is not None and path_prefix is not None:
            keep_r = self._ranged(&job, ranges, nchunks)
        with nogil:
            rc = zh_points_run(&pj, nthreads)
        del keep, keep_r, arrays
        return status, job.err_task, job.err_code, job.err_msg.decode("utf-8", "replace")

    cdef list _points_job(self, zh_job_t *job, zh_points_t *pj, chunk_coords, offsets,
                          in_chunk, out_index):
        """Set ``job`` and ``pj`` up for a PointProjection's arrays (see
        :meth:`read_points`; the buffer is the caller's to set); returns the arrays they
        point into."""
        cdef int nd = self.ndim
        cdef cnp.ndarray cc = _i64_2d(chunk_coords, nd, "chunk_coords")
        cdef Py_ssize_t nchunks = cc.shape[0]
        cdef cnp.ndarray offs = _i64(offsets, nchunks + 1, "offsets")
        cdef cnp.ndarray inc = _i64_2d(in_chunk, nd, "in_chunk")
        cdef Py_ssize_t npoints = inc.shape[0]
        cdef cnp.ndarray oi = _i64(out_index, npoints, "out_index")
        self._fill_common(job)
        memset(pj, 0, sizeof(zh_points_t))
        pj.job = job
        pj.nchunks = nchunks
        pj.npoints = npoints
        pj.chunk_coords = _p(cc)
        pj.offsets = _p(offs)
        pj.in_chunk = _p(inc)
        pj.out_index = _p(oi)
        return [cc, offs, inc, oi]

    def read_orthogonal(self, cnp.ndarray full not None, tuple tables, *, path_prefix=None,
                        int64_t root_len=0, int key_kind=0, str sep="/", sources=None,
                        ranges=None, int nthreads=1):
        """Read an orthogonal selection (an OrthogonalProjection) into ``full``.

        ``tables`` is ``(nchunks, chunks, offsets, in_chunk, out)``, the dimensions'
        DimIndex tables concatenated: ``nchunks[d]`` touched chunks of dimension ``d``,
        whose indices start at ``sum(nchunks[:d])`` in ``chunks`` and at that plus ``d``
        in ``offsets`` (``nchunks[d] + 1`` entries, values indexing the concatenated
        ``in_chunk``/``out`` directly): the indices inside the chunk and their positions
        along that dimension of ``full`` (the result with integer-indexed dimensions kept
        as length 1; any strides). Tasks are the product of the per-dimension chunks,
        last dimension fastest; ``sources`` (when no ``path_prefix``) are the stored
        bytes per task, ``ranges`` as for :meth:`read_points`. Returns ``(task_status,
        err_task, err_code, err_msg)``.
        """
        if not cnp.PyArray_ISWRITEABLE(full):
            raise ValueError("engine: the result buffer is read-only")
        cdef zh_job_t job
        cdef zh_ortho_t oj
        cdef int rc
        cdef Py_ssize_t ntasks
        arrays = self._ortho_job(&job, &oj, full, tables, "read_orthogonal", &ntasks)
        cdef cnp.ndarray status = np.zeros(ntasks, dtype=np.uint8)
        job.task_status = <uint8_t *> cnp.PyArray_DATA(status)
        keep = self._store_target(&job, path_prefix, root_len, key_kind, sep, sources, ntasks)
        keep_r = None
        if ranges is not None and path_prefix is not None:
            keep_r = self._ranged(&job, ranges, ntasks)
        with nogil:
            rc = zh_ortho_run(&oj, nthreads)
        del keep, keep_r, arrays
        return status, job.err_task, job.err_code, job.err_msg.decode("utf-8", "replace")

    def write_orthogonal(self, cnp.ndarray value not None, tuple tables, array_shape, *,
                         str path_prefix, int64_t root_len, int key_kind=0, str sep="/",
                         bint write_empty_chunks=False, bint durable=False, int nthreads=1):
        """Store ``value`` (the selection's values with integer-indexed dimensions kept
        as length 1, any strides, 0 for broadcast dimensions) at an orthogonal selection:
        ``tables`` as for :meth:`read_orthogonal`, ``out`` placing along ``value``'s
        dimensions. Each touched chunk read (unless every element is set), merged,
        encoded and written atomically under ``path_prefix``, or erased when all fill
        (unless ``write_empty_chunks``). Returns ``(task_status, err_task, err_code,
        err_msg)``; FALLBACK tasks wrote nothing."""
        cdef zh_job_t job
        cdef zh_ortho_t oj
        cdef int rc
        cdef Py_ssize_t ntasks
        cdef list keep = []
        arrays = self._ortho_job(&job, &oj, value, tables, "write_orthogonal", &ntasks)
        cdef cnp.ndarray status = np.zeros(ntasks, dtype=np.uint8)
        job.task_status = <uint8_t *> cnp.PyArray_DATA(status)
        self._write_target(&job, keep, array_shape, path_prefix, root_len, key_kind, sep,
                           write_empty_chunks, durable)
        with nogil:
            rc = zh_ortho_write_run(&oj, nthreads)
        del keep, arrays
        return status, job.err_task, job.err_code, job.err_msg.decode("utf-8", "replace")

    cdef list _ortho_job(self, zh_job_t *job, zh_ortho_t *oj, cnp.ndarray full, tuple tables,
                         str what, Py_ssize_t *ntasks_out):
        """Set ``job`` and ``oj`` up for the orthogonal ``tables`` over ``full`` (see
        :meth:`read_orthogonal`); returns the arrays they point into."""
        cdef int nd = self.ndim, d
        if cnp.PyArray_NDIM(full) != nd or len(tables) != 5:
            raise ValueError(f"engine: {what}: expected {nd} dimensions and 5 tables")
        if cnp.PyArray_ITEMSIZE(full) != self.itemsize:
            raise ValueError(f"engine: {what}: the buffer has the wrong itemsize")
        nchunks_t, chunks_t, offsets_t, in_t, out_t = tables
        cdef cnp.ndarray nch = _i64(nchunks_t, nd, "nchunks")
        if (nch < 0).any():
            raise ValueError(f"engine: {what}: negative chunk count")
        cdef Py_ssize_t npc = int(nch.sum()) if nd else 0
        cdef cnp.ndarray chunks = _i64(chunks_t, npc, "chunks")
        cdef cnp.ndarray offs = _i64(offsets_t, npc + nd, "offsets")
        in_a = np.ascontiguousarray(in_t, dtype=np.int64)
        cdef Py_ssize_t nq = in_a.shape[0] if in_a.ndim == 1 else -1
        if nq < 0:
            raise ValueError(f"engine: {what}: in_chunk must be one-dimensional")
        starts, counts, piece_off = [], [], []
        cdef Py_ssize_t ntasks = 1, base = 0
        for d in range(nd):
            o = offs[base + d: base + d + nch[d] + 1]
            starts.append(o[:-1])
            counts.append(np.diff(o))
            piece_off.append(base)
            base += nch[d]
            ntasks *= nch[d]
        arrays = [nch, _i64(piece_off, nd, "piece_off"), chunks,
                  _i64(np.concatenate(starts) if nd else [], npc, "starts"),
                  _i64(np.concatenate(counts) if nd else [], npc, "counts"),
                  _i64(in_a, nq, "in_chunk"), _i64(out_t, nq, "out"),
                  _i64([full.shape[d] for d in range(nd)], nd, "full_shape"),
                  _i64([full.strides[d] for d in range(nd)], nd, "strides")]
        self._fill_common(job)
        job.npieces = _p(arrays[0])
        job.piece_off = _p(arrays[1])
        job.p_chunk = _p(arrays[2])
        job.buf = <char *> cnp.PyArray_DATA(full)
        job.buf_strides = _p(arrays[8])
        memset(oj, 0, sizeof(zh_ortho_t))
        oj.job = job
        oj.q_start = _p(arrays[3])
        oj.q_count = _p(arrays[4])
        oj.q_in = _p(arrays[5])
        oj.q_out = _p(arrays[6])
        oj.nq = nq
        oj.full_shape = _p(arrays[7])
        ntasks_out[0] = ntasks
        return arrays

    cdef int64_t _mask_grid(self, shape, int64_t *shp, int64_t *grid, int64_t *rows) except -1:
        """The array's extents and grid; returns the words per row segment."""
        cdef int nd = self.ndim, d
        if nd == 0 or nd > 64 or len(shape) != nd:
            raise ValueError("engine: mask: one extent per dimension expected")
        cdef const int64_t *cs = _p(self.chunk_shape)
        rows[0] = 1
        for d in range(nd):
            shp[d] = shape[d]
            if shp[d] < 0:
                raise ValueError("engine: mask: negative extent")
            grid[d] = (shp[d] + cs[d] - 1) // cs[d]
            if d < nd - 1:
                rows[0] *= shp[d]
        return (cs[nd - 1] + 63) // 64

    cdef int64_t _mask_checked(self, shape, cnp.ndarray rank, cnp.ndarray bits, int64_t *shp,
                               int64_t *grid, int64_t *ntasks, str what) except -1:
        """The extents, grid and task count of a mask job, ``rank`` and ``bits`` checked
        against them; returns the selected elements (the last rank)."""
        cdef int64_t rows
        cdef int64_t wps = self._mask_grid(shape, shp, grid, &rows)
        cdef int nd = self.ndim, d
        ntasks[0] = 1
        for d in range(nd):
            ntasks[0] *= grid[d]
        cdef int64_t nseg = grid[nd - 1]
        if (rank.dtype != np.int64 or not cnp.PyArray_IS_C_CONTIGUOUS(rank)
                or cnp.PyArray_SIZE(rank) != ZH_MASK_RANKS(rows, nseg)
                or bits.dtype != np.uint64
                or not cnp.PyArray_IS_C_CONTIGUOUS(bits)
                or cnp.PyArray_SIZE(bits) != rows * nseg * wps):
            raise ValueError(f"engine: {what}: rank or bits do not fit the array")
        return (<const int64_t *> cnp.PyArray_DATA(rank))[ZH_MASK_RANKS(rows, nseg) - 1]

    def mask_ranks(self, mask, shape, int nthreads=1):
        """``(rank, bits)`` of a full-shape boolean ``mask`` (C-contiguous, one byte per
        element): per row segment the result index of its first selected element, as a
        rank inside its block of rows plus the block's rank (the total last), and its
        elements as bits (see csrc/zh_mask.h), what :meth:`read_mask` reads with."""
        cdef int64_t shp[64]
        cdef int64_t grid[64]
        cdef int64_t rows
        cdef int64_t wps = self._mask_grid(shape, shp, grid, &rows)
        cdef int nd = self.ndim
        cdef cnp.ndarray m = mask
        if (not cnp.PyArray_IS_C_CONTIGUOUS(m) or cnp.PyArray_ITEMSIZE(m) != 1
                or tuple(mask.shape) != tuple(shape)):
            raise ValueError("engine: mask: a C-contiguous one-byte array of the array's "
                             "shape expected")
        cdef int64_t nseg = grid[nd - 1]
        cdef cnp.ndarray rank = np.empty(ZH_MASK_RANKS(rows, nseg), dtype=np.int64)
        cdef cnp.ndarray bits = np.empty(rows * nseg * wps, dtype=np.uint64)
        cdef const uint8_t *mp = <const uint8_t *> cnp.PyArray_DATA(m)
        cdef int64_t *rp = <int64_t *> cnp.PyArray_DATA(rank)
        cdef uint64_t *bp = <uint64_t *> cnp.PyArray_DATA(bits)
        cdef int64_t row_len = shp[nd - 1], seg_len = _p(self.chunk_shape)[nd - 1]
        with nogil:
            zh_mask_count(mp, rows, row_len, seg_len, rp, bp, nthreads)
        return rank, bits

    def read_mask(self, cnp.ndarray out not None, shape, cnp.ndarray rank not None,
                  cnp.ndarray bits not None, *, str path_prefix, int64_t root_len=0,
                  int key_kind=0, str sep="/", int nthreads=1):
        """Read the elements a mask selects (C order) into ``out`` (contiguous, as many
        elements as ``rank[-1]``), one task per chunk of the grid (C order), from the
        directory ``path_prefix``; ``rank`` and ``bits`` from :meth:`mask_ranks`.
        Returns ``(task_status, err_task, err_code, err_msg)``."""
        cdef int64_t shp[64]
        cdef int64_t grid[64]
        cdef int64_t ntasks
        cdef int64_t nplaces = self._mask_checked(shape, rank, bits, shp, grid, &ntasks,
                                                  "read_mask")
        cdef const int64_t *rp = <const int64_t *> cnp.PyArray_DATA(rank)
        if not cnp.PyArray_ISWRITEABLE(out) or not cnp.PyArray_IS_C_CONTIGUOUS(out):
            raise ValueError("engine: read_mask: out must be writable and C-contiguous")
        if (cnp.PyArray_ITEMSIZE(out) != self.itemsize
                or cnp.PyArray_SIZE(out) != nplaces):
            raise ValueError("engine: read_mask: out does not fit the selection")
        cdef cnp.ndarray status = np.zeros(ntasks, dtype=np.uint8)
        cdef zh_job_t job
        cdef zh_mask_t mj
        cdef int rc
        self._fill_common(&job)
        job.task_status = <uint8_t *> cnp.PyArray_DATA(status)
        memset(&mj, 0, sizeof(mj))
        mj.job = &job
        mj.bits = <const uint64_t *> cnp.PyArray_DATA(bits)
        mj.shape = shp
        mj.grid = grid
        mj.rank = rp
        mj.out = <char *> cnp.PyArray_DATA(out)
        mj.out_size = cnp.PyArray_SIZE(out)
        keep = self._store_target(&job, path_prefix, root_len, key_kind, sep, None, 0)
        with nogil:
            rc = zh_mask_run(&mj, ntasks, nthreads)
        del keep
        return status, job.err_task, job.err_code, job.err_msg.decode("utf-8", "replace")

    cdef int _values(self, cnp.ndarray values, int64_t nplaces, str what) except -1:
        """1 when ``values`` is one value for every place, 0 when one per place."""
        if not cnp.PyArray_IS_C_CONTIGUOUS(values) or cnp.PyArray_ITEMSIZE(values) != self.itemsize:
            raise ValueError(f"engine: {what}: values must be C-contiguous of the array's itemsize")
        if cnp.PyArray_SIZE(values) == 1:
            return 1
        if cnp.PyArray_SIZE(values) != nplaces:
            raise ValueError(f"engine: {what}: expected {nplaces} values or one")
        return 0

    def write_mask(self, cnp.ndarray values not None, shape, cnp.ndarray rank not None,
                   cnp.ndarray bits not None, *, str path_prefix, int64_t root_len,
                   int key_kind=0, str sep="/", bint write_empty_chunks=False,
                   bint durable=False, int nthreads=1):
        """Set the elements a mask selects (C order) to ``values`` (one per selected
        element, or one for all; C-contiguous, native byte order), one task per chunk of
        the grid: each chunk holding any read (unless wholly selected), merged, encoded
        and written atomically under ``path_prefix``, or erased when all fill (unless
        ``write_empty_chunks``); chunks holding none are not touched. ``rank`` and
        ``bits`` from :meth:`mask_ranks`. Returns ``(task_status, err_task, err_code,
        err_msg)``; FALLBACK tasks wrote nothing."""
        cdef int64_t shp[64]
        cdef int64_t grid[64]
        cdef int64_t ntasks
        cdef int nd = self.ndim, d
        cdef int64_t nplaces = self._mask_checked(shape, rank, bits, shp, grid, &ntasks,
                                                  "write_mask")
        cdef const int64_t *rp = <const int64_t *> cnp.PyArray_DATA(rank)
        cdef int scalar = self._values(values, nplaces, "write_mask")
        cdef cnp.ndarray status = np.zeros(ntasks, dtype=np.uint8)
        cdef zh_job_t job
        cdef zh_mask_t mj
        cdef list keep = []
        cdef int rc
        self._fill_common(&job)
        job.task_status = <uint8_t *> cnp.PyArray_DATA(status)
        self._write_target(&job, keep, [shp[d] for d in range(nd)], path_prefix, root_len,
                           key_kind, sep, write_empty_chunks, durable)
        memset(&mj, 0, sizeof(mj))
        mj.job = &job
        mj.bits = <const uint64_t *> cnp.PyArray_DATA(bits)
        mj.shape = shp
        mj.grid = grid
        mj.rank = rp
        mj.out = <char *> cnp.PyArray_DATA(values)
        mj.out_size = nplaces
        mj.scalar = scalar
        with nogil:
            rc = zh_mask_write_run(&mj, ntasks, nthreads)
        del keep
        return status, job.err_task, job.err_code, job.err_msg.decode("utf-8", "replace")

    def write_points(self, cnp.ndarray values not None, chunk_coords, offsets, in_chunk,
                     out_index, array_shape, *, str path_prefix, int64_t root_len,
                     int key_kind=0, str sep="/", bint write_empty_chunks=False,
                     bint durable=False, int nthreads=1):
        """Set scattered elements (a PointProjection) from ``values`` (one per point in
        result order, or one for all; C-contiguous, native byte order): chunk ``k``'s
        points ``offsets[k]:offsets[k+1]``, point ``i`` element ``in_chunk[i]`` of its
        chunk set to ``values[out_index[i]]`` in point order (a repeated point keeps its
        last value). Each chunk read once, merged, encoded and written atomically under
        ``path_prefix``, or erased when all fill (unless ``write_empty_chunks``).
        Returns ``(task_status, err_task, err_code, err_msg)``; FALLBACK tasks wrote
        nothing."""
        cdef zh_job_t job
        cdef zh_points_t pj
        cdef list keep = []
        cdef int rc
        arrays = self._points_job(&job, &pj, chunk_coords, offsets, in_chunk, out_index)
        pj.scalar = self._values(values, pj.npoints, "write_points")
        pj.out = <char *> cnp.PyArray_DATA(values)
        pj.out_size = pj.npoints
        cdef cnp.ndarray status = np.zeros(pj.nchunks, dtype=np.uint8)
        job.task_status = <uint8_t *> cnp.PyArray_DATA(status)
        self._write_target(&job, keep, array_shape, path_prefix, root_len, key_kind, sep,
                           write_empty_chunks, durable)
        with nogil:
            rc = zh_points_write_run(&pj, nthreads)
        del keep, arrays
        return status, job.err_task, job.err_code, job.err_msg.decode("utf-8", "replace")

    def write_shard_points(self, cnp.ndarray values not None, chunk_coords, offsets,
                           in_chunk, out_index, array_shape, tuple shards, *,
                           bint index_start, bint index_crc, str path_prefix,
                           int64_t root_len, int key_kind=0, str sep="/",
                           bint write_empty_chunks=False, bint durable=False,
                           int nthreads=1):
        """:meth:`write_points` into shards: this engine's chunks are the inner chunks
        (``chunk_coords`` etc. as there), ``shards`` is ``(shard_coords (ns, ndim),
        first (ns+1,), member, member_flat, chunks_per_shard)``: shard ``s`` holds the
        point chunks ``member[first[s]:first[s+1]]`` at ``member_flat[...]`` in its
        index. One task per shard: read once, its touched inner chunks merged, the
        others kept, written atomically (csrc/zh_shard_sel.c). Returns
        ``(task_status, err_task, err_code, err_msg)``, tasks being shards; FALLBACK
        shards wrote nothing."""
        cdef zh_job_t job
        cdef zh_points_t pj
        cdef zh_shard_points_t sp
        cdef list keep = []
        cdef int rc
        arrays = self._points_job(&job, &pj, chunk_coords, offsets, in_chunk, out_index)
        pj.scalar = self._values(values, pj.npoints, "write_shard_points")
        pj.out = <char *> cnp.PyArray_DATA(values)
        pj.out_size = pj.npoints
        shard_coords, first, member, member_flat, per_shard = shards
        cdef cnp.ndarray sc = _i64_2d(shard_coords, self.ndim, "shard_coords")
        cdef Py_ssize_t ns = sc.shape[0]
        cdef cnp.ndarray fi = _i64(first, ns + 1, "first")
        cdef cnp.ndarray mem = _i64(member, len(member), "member")
        cdef cnp.ndarray mf = _i64(member_flat, len(mem), "member_flat")
        if per_shard <= 0:
            raise ValueError("engine: write_shard_points: chunks_per_shard must be positive")
        memset(&sp, 0, sizeof(sp))
        sp.pj = &pj
        sp.nshards = ns
        sp.nchunks_per_shard = per_shard
        sp.shard_coords = _p(sc)
        sp.first = _p(fi)
        sp.member = _p(mem)
        sp.member_flat = _p(mf)
        sp.index_start = index_start
        sp.index_crc = index_crc
        cdef cnp.ndarray status = np.zeros(ns, dtype=np.uint8)
        job.task_status = <uint8_t *> cnp.PyArray_DATA(status)
        self._write_target(&job, keep, array_shape, path_prefix, root_len, key_kind, sep,
                           write_empty_chunks, durable)
        with nogil:
            rc = zh_shard_points_write_run(&sp, nthreads)
        del keep, arrays
        return status, job.err_task, job.err_code, job.err_msg.decode("utf-8", "replace")

    def read_small(self, selection, shape, dtype, str path_prefix, int64_t root_len=0,
                   int key_kind=0, str sep="/", int nthreads=1, int64_t max_items=32768):
        """The lean path of a small basic read (ints and step-1 slices, one entry per
        dimension) from a directory: the chunk plan is made here, each chunk read through
        the orthogonal kernel (only the byte runs or blosc blocks the box touches).

        Returns the result (C order), or None when the selection is not of this kind,
        larger than ``max_items`` elements, or anything but a clean read happened: the
        caller then takes the general path, which raises the right error.
        """
        cdef int nd = self.ndim, d
        cdef int64_t start[64]
        cdef int64_t count[64]
        cdef int64_t npc[64]
        cdef int64_t poff[64]
        cdef int64_t full_shape[64]
        cdef int64_t bstrides[64]
        cdef int64_t n, i, total = 1, npieces = 0, nq = 0, cs, c0, k, j, pos
        if type(selection) is not tuple:
            selection = (selection,)
        if nd == 0 or nd > 64 or len(selection) != nd:
            return None
        # (no Python objects per dimension: this path is a W4 read's whole Python cost)
        cdef cnp.npy_intp dims[64]
        cdef int odim = 0
        cdef Py_ssize_t sa, sb, ss
        cdef const int64_t *cshape = _p(self.chunk_shape)
        for d in range(nd):
            sel = selection[d]
            n = shape[d]
            if type(sel) is slice:
                try:
                    PySlice_Unpack(sel, &sa, &sb, &ss)
                except Exception:
                    return None  # the general path raises the error
                if ss != 1:
                    return None
                PySlice_AdjustIndices(n, &sa, &sb, ss)
                start[d] = sa
                count[d] = sb - sa if sb > sa else 0
                dims[odim] = count[d]
                odim += 1
            elif type(sel) is int or isinstance(sel, np.integer):
                i = sel
                if i < 0:
                    i += n
                if i < 0 or i >= n:
                    return None
                start[d] = i
                count[d] = 1
            else:
                return None
            if count[d] == 0:
                return None
            total *= count[d]
            cs = cshape[d]
            npc[d] = (start[d] + count[d] - 1) // cs - start[d] // cs + 1
            poff[d] = npieces
            npieces += npc[d]
            nq += count[d]
            full_shape[d] = count[d]
        if odim == 0 or total > max_items or npieces > 256:
            return None
        cdef cnp.ndarray out
        # PyArray_EMPTY knows the type number only: strings would come out one byte
        # wide (the engine then wrote past the result) and datetimes without their unit
        if (not isinstance(dtype, np.dtype) or dtype.kind not in "biufc"
                or dtype.fields is not None or not dtype.isnative):
            out = np.empty(tuple([dims[d] for d in range(odim)]), dtype=dtype)
        else:
            out = cnp.PyArray_EMPTY(odim, dims, dtype.num, 0)
        cdef int64_t stride = self.itemsize
        for d in range(nd - 1, -1, -1):
            bstrides[d] = stride
            stride *= count[d]
        cdef int64_t *mem = <int64_t *> malloc(sizeof(int64_t) * (3 * npieces + 2 * nq))
        if mem == NULL:
            raise MemoryError()
        cdef int64_t *p_chunk = mem
        cdef int64_t *q_start = mem + npieces
        cdef int64_t *q_count = mem + 2 * npieces
        cdef int64_t *q_in = mem + 3 * npieces
        cdef int64_t *q_out = q_in + nq
        cdef int64_t q = 0, first, last
        k = 0
        for d in range(nd):
            cs = cshape[d]
            pos = 0
            c0 = start[d] // cs
            for j in range(npc[d]):
                first = start[d] if j == 0 else (c0 + j) * cs
                last = min(start[d] + count[d], (c0 + j + 1) * cs)
                p_chunk[k] = c0 + j
                q_start[k] = q
                q_count[k] = last - first
                for i in range(first, last):
                    q_in[q] = i - (c0 + j) * cs
                    q_out[q] = pos
                    q += 1
                    pos += 1
                k += 1
        cdef int64_t ntasks = 1
        for d in range(nd):
            ntasks *= npc[d]
        cdef uint8_t status_small[64]
        cdef uint8_t *status = &status_small[0]
        if ntasks > 64:
            status = <uint8_t *> calloc(ntasks, 1)
        cdef zh_job_t job
        cdef zh_ortho_t oj
        cdef int rc
        if status == NULL:
            free(mem)
            raise MemoryError()
        self._fill_common(&job)
        job.task_status = status
        job.npieces = npc
        job.piece_off = poff
        job.p_chunk = p_chunk
        job.buf = <char *> cnp.PyArray_DATA(out)
        job.buf_strides = bstrides
        keep = self._store_target(&job, path_prefix, root_len, key_kind, sep, None, 0)
        memset(&oj, 0, sizeof(oj))
        oj.job = &job
        oj.q_start = q_start
        oj.q_count = q_count
        oj.q_in = q_in
        oj.q_out = q_out
        oj.nq = nq
        oj.full_shape = full_shape
        # threads only from 4 chunks on: waking a worker for a second chunk of a small box
        # cost more than it saved, in CPU and in wall time (W4 block8 blosc: 31-32 us
        # with a worker, 29-29.5 us without, both on 1.3 chunks per read)
        with nogil:
            rc = zh_ortho_run(&oj, nthreads if ntasks >= 4 else 1)
            for k in range(ntasks):
                if status[k] != ZH_TASK_DONE:
                    rc = -1
        free(mem)
        if ntasks > 64:
            free(status)
        return out if rc == 0 else None

    def read_element(self, selection, shape, dtype, str path_prefix, int64_t root_len=0,
                     int key_kind=0, str sep="/"):
        """One element from a directory, ``selection`` being one int per dimension (or an
        int for a 1-d array): a 0-d array of ``dtype`` (zarr-python's ``a[i, j]``), made
        without a Python object per dimension (W4's element read is all fixed cost).

        Returns None for anything else: not all ints, an index out of range, a chunk the
        Python codecs must decode or any failure; the general path then reads it or
        raises the right error.
        """
        cdef int nd = self.ndim, d, rc
        cdef int64_t c_chunk[64]
        cdef int64_t c_first[64]
        cdef int64_t i, n, cs
        cdef uint8_t status = 0
        cdef zh_job_t job
        cdef const int64_t *cshape = _p(self.chunk_shape)
        if type(selection) is not tuple:
            selection = (selection,)
        if nd == 0 or nd > 64 or len(selection) != nd or len(shape) != nd:
            return None
        for d in range(nd):
            sel = selection[d]
            if type(sel) is not int and not isinstance(sel, np.integer):
                return None
            i = sel
            n = shape[d]
            if i < 0:
                i += n
            if i < 0 or i >= n:
                return None
            cs = cshape[d]
            c_chunk[d] = i // cs
            c_first[d] = i - c_chunk[d] * cs
        cdef cnp.ndarray out
        # PyArray_EMPTY knows the type number only (see read_small)
        if (not isinstance(dtype, np.dtype) or dtype.kind not in "biufc"
                or dtype.fields is not None or not dtype.isnative):
            out = np.empty((), dtype=dtype)
        else:
            out = cnp.PyArray_EMPTY(0, NULL, dtype.num, 0)
        if cnp.PyArray_ITEMSIZE(out) != self.itemsize:
            return None
        rc = self._read_one(&job, out, c_chunk, c_first, &status, path_prefix, root_len,
                            key_kind, sep, None)
        return out if rc == 0 and job.err_code == 0 and status == ZH_TASK_DONE else None

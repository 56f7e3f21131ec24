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
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t, uint8_t, uint64_t, uintptr_t
from libc.stdlib cimport malloc, free, calloc
from libc.string cimport memset, strncpy
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_SIMPLE

cdef extern from "Python.h":
    int PySlice_Unpack(object slice, Py_ssize_t *start, Py_ssize_t *stop,
                       Py_ssize_t *step) except -1
    Py_ssize_t PySlice_AdjustIndices(Py_ssize_t length, Py_ssize_t *start, Py_ssize_t *stop,
                                     Py_ssize_t step)

cnp.import_array()

cdef extern from "pthread.h":
    ctypedef struct pthread_mutex_t:
        pass

cdef extern from "zh_codecs.h":
    ctypedef struct zh_bb:
        int kind
        int level
        int checksum
        int shuffle
        int typesize
        int blocksize
        char cname[16]
        int64_t decoded_size
    ctypedef int (*zh_blosc1_compress_fn)(int, int, size_t, size_t, const void *, void *,
                                          size_t, const char *, size_t, int) noexcept nogil
    void zh_set_blosc1_compress(zh_blosc1_compress_fn fn)
    int zh_have_blosc1_compress()
    unsigned int zh_crc32c(unsigned int crc, const void *data, size_t n) nogil

cdef extern from "zh_blosc1.h":
    int zh_blosc1_handles(const char *cname, int clevel)
    int64_t zh_blosc1_encode(const char *cname, int clevel, int shuffle, int typesize,
                             int64_t block_bytes, const void *src, size_t n, void *dst,
                             size_t cap) nogil

cdef extern from "zh_engine.h":
    enum:
        ZH_TASK_TODO, ZH_TASK_DONE, ZH_TASK_FALLBACK, ZH_TASK_FAILED, ZH_TASK_SKIPPED
    ctypedef struct zh_job_t:
        int ndim
        int64_t itemsize
        int swap
        const int64_t *chunk_shape
        const int64_t *chunk_lstrides
        int64_t decoded_size
        const int64_t *array_shape
        const zh_bb *steps
        int nsteps
        const char *fill_stored
        const char *fill_native
        const int64_t *npieces
        const int64_t *piece_off
        const int64_t *p_chunk
        const int64_t *p_first
        const int64_t *p_count
        const int64_t *p_out
        const int64_t *step
        char *buf
        const int64_t *buf_strides
        const char *path_prefix
        int64_t root_len
        int key_kind
        char sep
        const char *const *mem_ptr
        const int64_t *mem_len
        int partial_ok
        int direct_ok
        int write_empty_chunks
        int durable
        const int64_t *shard_ratio
        const int64_t *g_n
        const int64_t *g_off
        const int64_t *g_piece
        const int64_t *g_count
        const int64_t *g_shard
        int index_start
        int index_crc
        const int64_t *src_coords
        const int64_t *src_file
        const int64_t *src_off
        const int64_t *src_len
        uint8_t *task_status
        int failed
        int64_t err_task
        int err_code
        char err_msg[320]
    int zh_read_run(zh_job_t *job, int nthreads) nogil
    int zh_write_run(zh_job_t *job, int nthreads) nogil
    int zh_shard_write_run(zh_job_t *job, int nthreads) nogil

cdef extern from "zh_select.h":
    ctypedef struct zh_points_t:
        zh_job_t *job
        int64_t nchunks
        int64_t npoints
        const int64_t *chunk_coords
        const int64_t *offsets
        const int64_t *in_chunk
        const int64_t *out_index
        char *out
        int64_t out_size
    ctypedef struct zh_ortho_t:
        zh_job_t *job
        const int64_t *q_start
        const int64_t *q_count
        const int64_t *q_in
        const int64_t *q_out
        int64_t nq
        const int64_t *full_shape
    int zh_points_run(zh_points_t *pj, int nthreads) nogil
    int zh_ortho_run(zh_ortho_t *oj, int nthreads) nogil

cdef extern from "zh_mask.h":
    ctypedef struct zh_mask_t:
        zh_job_t *job
        const uint64_t *bits
        const int64_t *shape
        const int64_t *grid
        const int64_t *rank
        char *out
        int64_t out_size
    void zh_mask_count(const uint8_t *mask, int64_t rows, int64_t row_len, int64_t seg_len,
                       int64_t *rank, uint64_t *bits, int nthreads) nogil
    int zh_mask_run(zh_mask_t *mj, int64_t ntasks, int nthreads) nogil

BB_CRC32C, BB_ZSTD, BB_GZIP, BB_BLOSC, BB_ZLIB = 1, 2, 3, 4, 5
DONE, FALLBACK, FAILED, SKIPPED = ZH_TASK_DONE, ZH_TASK_FALLBACK, ZH_TASK_FAILED, ZH_TASK_SKIPPED
cdef extern from "zh_status.h":
    enum:
        ZH_OK, ZH_ERR_SHAPE, ZH_ERR_ITEMSIZE, ZH_ERR_BOUNDS, ZH_ERR_NDIM, ZH_ERR_CORRUPT,
        ZH_ERR_IO, ZH_FALLBACK, ZH_ERR_NOMEM, ZH_ERR_CODEC, ZH_ERR_STORE,
        ZH_KEY_DEFAULT, ZH_KEY_V2
    const char *ZH_TMP_PREFIX
    const char *ZH_TMP_SUFFIX

#: status codes of the kernels (csrc/zh_status.h); zarrhpc.errors maps them to exceptions
STATUS = {
    "ERR_SHAPE": ZH_ERR_SHAPE, "ERR_ITEMSIZE": ZH_ERR_ITEMSIZE, "ERR_BOUNDS": ZH_ERR_BOUNDS,
    "ERR_NDIM": ZH_ERR_NDIM, "ERR_CORRUPT": ZH_ERR_CORRUPT, "ERR_IO": ZH_ERR_IO,
    "FALLBACK": ZH_FALLBACK, "ERR_NOMEM": ZH_ERR_NOMEM, "ERR_CODEC": ZH_ERR_CODEC,
    "ERR_STORE": ZH_ERR_STORE,
}
#: chunk key encoding name -> the key kind the engine builds file names for
KEY_KINDS = {"default": ZH_KEY_DEFAULT, "v2": ZH_KEY_V2}
#: LocalStore's temporary file names, as csrc/zh_engine.c writes them
TEMP_PREFIX = (<bytes>ZH_TMP_PREFIX).decode("ascii")
TEMP_SUFFIX = (<bytes>ZH_TMP_SUFFIX).decode("ascii")


def set_blosc1_compress(uintptr_t address):
    """Give the engine c-blosc1's ``blosc_compress_ctx`` (its address in numcodecs)."""
    zh_set_blosc1_compress(<zh_blosc1_compress_fn> address)


def have_blosc1_compress():
    return bool(zh_have_blosc1_compress())


def blosc1_handles(str cname, int clevel):
    """Whether :func:`blosc1_encode` writes chunks for this compressor and level."""
    return bool(zh_blosc1_handles(cname.encode("ascii"), clevel))


def blosc1_encode(data, str cname, int clevel, int shuffle, int typesize, int64_t block_bytes):
    """One c-blosc1 chunk of non-split ``block_bytes`` blocks (csrc/zh_blosc1.c), or None
    when this chunk must go to c-blosc1 (see zh_blosc1.h); the GIL is released."""
    out = bytearray(memoryview(data).nbytes + 16)
    r = blosc1_encode_into(data, out, cname, clevel, shuffle, typesize, block_bytes)
    if r == 0:
        return None
    del out[r:]
    return bytes(out)


def blosc1_encode_into(data, out, str cname, int clevel, int shuffle, int typesize,
                       int64_t block_bytes):
    """:func:`blosc1_encode` into the writable buffer ``out`` (at least ``len(data) + 16``
    bytes): the chunk's length, or 0 when this chunk must go to c-blosc1."""
    cdef const unsigned char[::1] view = memoryview(data).cast("B")
    cdef unsigned char[::1] dst = memoryview(out).cast("B")
    cdef size_t n = view.shape[0]
    if <size_t>dst.shape[0] < n + 16:
        raise ValueError(f"blosc: output buffer of {dst.shape[0]} bytes, need {n + 16}")
    cdef bytes cn = cname.encode("ascii")
    cdef const char *c_cn = cn
    cdef int64_t r
    with nogil:
        r = zh_blosc1_encode(c_cn, clevel, shuffle, typesize, block_bytes,
                             &view[0] if n else NULL, n, &dst[0], n + 16)
    if r < 0:
        raise MemoryError("blosc: out of memory") if r == -2 else ValueError(
            f"blosc: cannot encode with cname={cname!r} clevel={clevel} shuffle={shuffle} "
            f"typesize={typesize} block_bytes={block_bytes}")
    return r


def crc32c(data):
    """CRC-32C of a bytes-like object (the engine's implementation, for tests)."""
    cdef const unsigned char[::1] view = memoryview(data).cast("B")
    cdef unsigned int c
    with nogil:
        c = zh_crc32c(0, &view[0] if view.shape[0] else NULL, view.shape[0])
    return c


cdef cnp.ndarray _i64(obj, Py_ssize_t n, str what):
    cdef cnp.ndarray a = np.ascontiguousarray(obj, dtype=np.int64)
    if a.ndim != 1 or a.shape[0] != n:
        raise ValueError(f"engine: {what}: expected {n} integers, got shape {(<object> a).shape}")
    return a


cdef inline const int64_t *_p(cnp.ndarray a):
    return <const int64_t *> cnp.PyArray_DATA(a)


cdef cnp.ndarray _i64_2d(obj, Py_ssize_t cols, str what):
    cdef cnp.ndarray a = np.ascontiguousarray(obj, dtype=np.int64)
    if a.ndim == 1 and a.shape[0] == 0:
        a = a.reshape(0, cols)
    if a.ndim != 2 or a.shape[1] != cols:
        raise ValueError(f"engine: {what}: expected shape (n, {cols}), got {(<object> a).shape}")
    return a


cdef class _Sources:
    """The stored bytes of every task, held (buffer views) while the engine reads them."""
    cdef Py_buffer *views
    cdef const char **ptrs
    cdef int64_t *lens
    cdef Py_ssize_t n
    cdef list objs

    def __cinit__(self, sources, Py_ssize_t n):
        self.views = NULL
        self.n = 0
        if sources is None or len(sources) != n:
            raise ValueError(f"engine: expected {n} sources")
        self.objs = list(sources)
        self.views = <Py_buffer *> calloc(max(1, n), sizeof(Py_buffer))
        self.ptrs = <const char **> calloc(max(1, n), sizeof(char *))
        self.lens = <int64_t *> calloc(max(1, n), sizeof(int64_t))
        if self.views == NULL or self.ptrs == NULL or self.lens == NULL:
            raise MemoryError()
        cdef Py_ssize_t i
        for i in range(n):
            src = self.objs[i]
            if src is None:
                continue
            PyObject_GetBuffer(src, &self.views[i], PyBUF_SIMPLE)
            self.n = i + 1
            self.ptrs[i] = <const char *> self.views[i].buf if self.views[i].len else <const char *> ""
            self.lens[i] = self.views[i].len

    def __dealloc__(self):
        cdef Py_ssize_t i
        if self.views != NULL:
            for i in range(self.n):
                if self.ptrs[i] != NULL:
                    PyBuffer_Release(&self.views[i])
        free(self.views)
        free(self.ptrs)
        free(self.lens)




cdef class Engine:
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

    cdef int ndim
    cdef int64_t itemsize, decoded_size
    cdef int swap
    cdef cnp.ndarray chunk_shape, lstrides
    cdef zh_bb *steps
    cdef int nsteps
    cdef bytes fill_native, fill_stored
    cdef readonly object kinds

    def __cinit__(self):
        self.steps = NULL

    def __init__(self, chunk_shape, lstrides, int64_t itemsize, int swap, steps,
                 bytes fill_native, bytes fill_stored):
        self.ndim = len(chunk_shape)
        self.chunk_shape = _i64(chunk_shape, self.ndim, "chunk_shape")
        self.lstrides = _i64(lstrides, self.ndim, "lstrides")
        self.itemsize = itemsize
        self.swap = swap
        self.decoded_size = itemsize
        for c in chunk_shape:
            self.decoded_size *= c
        if len(fill_native) != itemsize or len(fill_stored) != itemsize:
            raise ValueError("engine: fill value bytes must be itemsize long")
        self.fill_native = fill_native
        self.fill_stored = fill_stored
        self.nsteps = len(steps)
        self.kinds = tuple(s.kind for s in steps)
        self.steps = <zh_bb *> calloc(max(1, self.nsteps), sizeof(zh_bb))
        if self.steps == NULL:
            raise MemoryError()
        cdef bytes cname
        for i, s in enumerate(steps):
            self.steps[i].kind = s.kind
            self.steps[i].level = s.level
            self.steps[i].checksum = s.checksum
            self.steps[i].shuffle = s.shuffle
            self.steps[i].typesize = s.typesize
            self.steps[i].blocksize = s.blocksize
            cname = (s.cname or "").encode("ascii")[:15]
            strncpy(self.steps[i].cname, cname, 15)
            self.steps[i].decoded_size = s.decoded_size

    def __dealloc__(self):
        free(self.steps)

    @property
    def decoded_size(self):
        return self.decoded_size

    cdef void _fill_common(self, zh_job_t *job):
        """Zero ``job`` and set what every job of this array shares."""
        memset(job, 0, sizeof(zh_job_t))
        job.ndim = self.ndim
        job.itemsize = self.itemsize
        job.swap = self.swap
        job.chunk_shape = _p(self.chunk_shape)
        job.chunk_lstrides = _p(self.lstrides)
        job.decoded_size = self.decoded_size
        job.steps = self.steps
        job.nsteps = self.nsteps
        job.fill_stored = self.fill_stored
        job.fill_native = self.fill_native

    cdef int _write_target(self, zh_job_t *job, list keep, array_shape, str path_prefix,
                           int64_t root_len, int key_kind, str sep, bint write_empty_chunks,
                           bint durable) except -1:
        """Set where and how a write job stores its chunks; ``keep`` holds what the job
        points into until it has run."""
        cdef cnp.ndarray shape = _i64(array_shape, self.ndim, "array_shape")
        cdef bytes prefix_b = path_prefix.encode("utf-8", "surrogateescape")
        keep.extend([shape, prefix_b])
        job.array_shape = _p(shape)
        job.path_prefix = prefix_b
        job.root_len = root_len
        job.key_kind = key_kind
        job.sep = ord(sep)
        job.write_empty_chunks = write_empty_chunks
        job.durable = durable
        return 0

    cdef int _setup(self, zh_job_t *job, cnp.ndarray buf, tuple pieces, object step,
                    list keep) except -1:
        npieces, piece_off, p_chunk, p_first, p_count, p_out = pieces
        if cnp.PyArray_NDIM(buf) != self.ndim:
            raise ValueError(f"engine: buffer has {(<object> buf).ndim} dimensions, expected {self.ndim}")
        cdef Py_ssize_t total = len(p_chunk)
        arrays = [_i64(npieces, self.ndim, "npieces"), _i64(piece_off, self.ndim, "piece_off"),
                  _i64(p_chunk, total, "p_chunk"), _i64(p_first, total, "p_first"),
                  _i64(p_count, total, "p_count"), _i64(p_out, total, "p_out"),
                  _i64(step, self.ndim, "step"),
                  _i64([buf.strides[d] for d in range(self.ndim)], self.ndim, "strides")]
        keep.extend(arrays)
        self._fill_common(job)
        job.npieces = _p(arrays[0])
        job.piece_off = _p(arrays[1])
        job.p_chunk = _p(arrays[2])
        job.p_first = _p(arrays[3])
        job.p_count = _p(arrays[4])
        job.p_out = _p(arrays[5])
        job.step = _p(arrays[6])
        job.buf = <char *> cnp.PyArray_DATA(buf)
        job.buf_strides = _p(arrays[7])
        direct = all(buf.strides[d] == self.lstrides[d]
                     for d in range(self.ndim) if self.chunk_shape[d] > 1)
        job.direct_ok = 1 if direct else 0
        ntasks = 1
        for n in arrays[0]:
            ntasks *= int(n)
        return ntasks

    def read(self, cnp.ndarray buf not None, tuple pieces, step, *, path_prefix=None,
             int64_t root_len=0, int key_kind=0, str sep="/", sources=None,
             bint partial_ok=True, int nthreads=1):
        """Fill ``buf`` (the result, full shape) from every chunk of the request.

        Either ``path_prefix`` (chunk files under a directory: prefix + chunk key) or
        ``sources`` (the stored bytes of every task, None when missing) is given.
        Returns ``(task_status, err_task, err_code, err_msg)``.
        """
        if not cnp.PyArray_ISWRITEABLE(buf):
            raise ValueError("engine: the result buffer is read-only")
        cdef zh_job_t job
        cdef list keep = []
        cdef Py_ssize_t ntasks = self._setup(&job, buf, pieces, step, keep)
        cdef cnp.ndarray status = np.zeros(ntasks, dtype=np.uint8)
        job.task_status = <uint8_t *> cnp.PyArray_DATA(status)
        job.partial_ok = partial_ok
        cdef int rc
        target = self._store_target(&job, path_prefix, root_len, key_kind, sep, sources, ntasks)
        with nogil:
            rc = zh_read_run(&job, nthreads)
        del target, keep
        return status, job.err_task, job.err_code, job.err_msg.decode("utf-8", "replace")

    def read_point(self, cnp.ndarray out not None, coords, within, path_prefix=None,
                   int64_t root_len=0, int key_kind=0, str sep="/", source=None):
        """Read one element (chunk ``coords``, index ``within`` it) into the 0-d ``out``.

        The fixed-cost path of single-element reads: one task, no plan arrays. Same
        sources and return value as :meth:`read` (``source``: that chunk's bytes or None).
        """
        cdef int d, nd = self.ndim
        cdef int64_t c_npieces[64]
        cdef int64_t c_off[64]
        cdef int64_t c_chunk[64]
        cdef int64_t c_first[64]
        cdef int64_t c_count[64]
        cdef int64_t c_out[64]
        cdef int64_t c_step[64]
        cdef int64_t c_strides[64]
        cdef uint8_t status = 0
        cdef zh_job_t job
        cdef bytes prefix_b
        cdef Py_buffer view
        cdef const char *ptr = NULL
        cdef int64_t length = 0
        cdef int rc
        if nd > 64 or len(coords) != nd or len(within) != nd:
            raise ValueError("engine: read_point: coords and within need one entry per dimension")
        if cnp.PyArray_NDIM(out) != 0 or not cnp.PyArray_ISWRITEABLE(out):
            raise ValueError("engine: read_point: out must be a writable 0-d array")
        for d in range(nd):
            c_npieces[d] = 1
            c_off[d] = d
            c_chunk[d] = coords[d]
            c_first[d] = within[d]
            c_count[d] = 1
            c_out[d] = 0
            c_step[d] = 1
            c_strides[d] = 0
        self._fill_common(&job)
        job.npieces = c_npieces
        job.piece_off = c_off
        job.p_chunk = c_chunk
        job.p_first = c_first
        job.p_count = c_count
        job.p_out = c_out
        job.step = c_step
        job.buf = <char *> cnp.PyArray_DATA(out)
        job.buf_strides = c_strides
        job.partial_ok = 1
        job.direct_ok = 0
        job.task_status = &status
        if path_prefix is not None:
            target = self._store_target(&job, path_prefix, root_len, key_kind, sep, None, 0)
            with nogil:
                rc = zh_read_run(&job, 1)
        else:
            job.mem_ptr = &ptr
            job.mem_len = &length
            if source is None:
                with nogil:
                    rc = zh_read_run(&job, 1)
            else:
                PyObject_GetBuffer(source, &view, PyBUF_SIMPLE)
                try:
                    ptr = <const char *> view.buf if view.len else <const char *> ""
                    length = view.len
                    with nogil:
                        rc = zh_read_run(&job, 1)
                finally:
                    PyBuffer_Release(&view)
        return status, job.err_task, job.err_code, job.err_msg.decode("utf-8", "replace")

    cdef object _store_target(self, zh_job_t *job, path_prefix, int64_t root_len,
                              int key_kind, str sep, sources, Py_ssize_t ntasks):
        """Point ``job`` at a directory or at per-task sources; returns what must stay
        alive while the job runs."""
        cdef bytes prefix_b
        cdef _Sources src
        if path_prefix is not None:
            prefix_b = path_prefix.encode("utf-8", "surrogateescape")
            job.path_prefix = prefix_b
            job.root_len = root_len
            job.key_kind = key_kind
            job.sep = ord(sep)
            return prefix_b
        src = _Sources(sources, ntasks)
        job.mem_ptr = src.ptrs
        job.mem_len = src.lens
        return src

    cdef object _ranged(self, zh_job_t *job, ranges, Py_ssize_t ntasks):
        """Point ``job``'s tasks at byte ranges of stored (outer) chunk files:
        ``ranges = (file_coords (nfiles, ndim), file (ntasks,), offset, length)``, length
        -1 where the task's chunk is not stored.  Returns what must stay alive."""
        if len(ranges) != 4:
            raise ValueError("engine: ranges must be (file_coords, file, offset, length)")
        cdef cnp.ndarray fc = _i64_2d(ranges[0], self.ndim, "file_coords")
        cdef cnp.ndarray fi = _i64(ranges[1], ntasks, "file")
        cdef cnp.ndarray off = _i64(ranges[2], ntasks, "offset")
        cdef cnp.ndarray ln = _i64(ranges[3], ntasks, "length")
        if ntasks and ((fi < 0).any() or (fi >= fc.shape[0]).any()):
            raise ValueError("engine: ranges: a task names a file out of range")
        job.src_coords = _p(fc)
        job.src_file = _p(fi)
        job.src_off = _p(off)
        job.src_len = _p(ln)
        return (fc, fi, off, ln)

    def read_points(self, cnp.ndarray out not None, chunk_coords, offsets, in_chunk,
                    out_index, *, path_prefix=None, int64_t root_len=0, int key_kind=0,
                    str sep="/", sources=None, ranges=None, int nthreads=1):
        """Read scattered elements (a PointProjection) into ``out`` (contiguous).

        Chunk ``k`` (grid coordinates ``chunk_coords[k]``) holds the points
        ``offsets[k]:offsets[k+1]``; point ``i`` is element ``in_chunk[i]`` of its chunk
        and goes to ``out.flat[out_index[i]]``. One task per chunk, each chunk decoded
        once (or only the bytes / blosc blocks its points need). ``sources`` (when no
        ``path_prefix``) are the stored bytes per chunk; ``ranges`` (with
        ``path_prefix``) place each chunk in a range of another chunk's file (inner
        chunks of shards, see ``_ranged``). Returns ``(task_status, err_task, err_code,
        err_msg)``, tasks being chunks.
        """
        if not cnp.PyArray_ISWRITEABLE(out) or not cnp.PyArray_IS_C_CONTIGUOUS(out):
            raise ValueError("engine: read_points: out must be writable and C-contiguous")
        if cnp.PyArray_ITEMSIZE(out) != self.itemsize:
            raise ValueError("engine: read_points: out has the wrong itemsize")
        cdef int nd = self.ndim
        cdef cnp.ndarray cc = _i64_2d(chunk_coords, nd, "chunk_coords")
        cdef Py_ssize_t nchunks = cc.shape[0]
        cdef cnp.ndarray offs = _i64(offsets, nchunks + 1, "offsets")
        cdef cnp.ndarray inc = _i64_2d(in_chunk, nd, "in_chunk")
        cdef Py_ssize_t npoints = inc.shape[0]
        cdef cnp.ndarray oi = _i64(out_index, npoints, "out_index")
        cdef cnp.ndarray status = np.zeros(nchunks, dtype=np.uint8)
        cdef zh_job_t job
        cdef zh_points_t pj
        cdef int rc
        self._fill_common(&job)
        job.task_status = <uint8_t *> cnp.PyArray_DATA(status)
        memset(&pj, 0, sizeof(pj))
        pj.job = &job
        pj.nchunks = nchunks
        pj.npoints = npoints
        pj.chunk_coords = _p(cc)
        pj.offsets = _p(offs)
        pj.in_chunk = _p(inc)
        pj.out_index = _p(oi)
        pj.out = <char *> cnp.PyArray_DATA(out)
        pj.out_size = cnp.PyArray_SIZE(out)
        keep = self._store_target(&job, path_prefix, root_len, key_kind, sep, sources, nchunks)
        keep_r = None
        if ranges is not None and path_prefix is not None:
            keep_r = self._ranged(&job, ranges, nchunks)
        with nogil:
            rc = zh_points_run(&pj, nthreads)
        del keep, keep_r
        return status, job.err_task, job.err_code, job.err_msg.decode("utf-8", "replace")

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
        cdef int nd = self.ndim, d
        if cnp.PyArray_NDIM(full) != nd or len(tables) != 5:
            raise ValueError(f"engine: read_orthogonal: expected {nd} dimensions and 5 tables")
        if cnp.PyArray_ITEMSIZE(full) != self.itemsize:
            raise ValueError("engine: read_orthogonal: the result has the wrong itemsize")
        nchunks_t, chunks_t, offsets_t, in_t, out_t = tables
        cdef cnp.ndarray nch = _i64(nchunks_t, nd, "nchunks")
        if (nch < 0).any():
            raise ValueError("engine: read_orthogonal: negative chunk count")
        cdef Py_ssize_t npc = int(nch.sum()) if nd else 0
        cdef cnp.ndarray chunks = _i64(chunks_t, npc, "chunks")
        cdef cnp.ndarray offs = _i64(offsets_t, npc + nd, "offsets")
        in_a = np.ascontiguousarray(in_t, dtype=np.int64)
        cdef Py_ssize_t nq = in_a.shape[0] if in_a.ndim == 1 else -1
        if nq < 0:
            raise ValueError("engine: read_orthogonal: in_chunk must be one-dimensional")
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
        base = nq
        cdef cnp.ndarray status = np.zeros(ntasks, dtype=np.uint8)
        cdef zh_job_t job
        cdef zh_ortho_t oj
        cdef int rc
        self._fill_common(&job)
        job.task_status = <uint8_t *> cnp.PyArray_DATA(status)
        job.npieces = _p(arrays[0])
        job.piece_off = _p(arrays[1])
        job.p_chunk = _p(arrays[2])
        job.buf = <char *> cnp.PyArray_DATA(full)
        job.buf_strides = _p(arrays[8])
        memset(&oj, 0, sizeof(oj))
        oj.job = &job
        oj.q_start = _p(arrays[3])
        oj.q_count = _p(arrays[4])
        oj.q_in = _p(arrays[5])
        oj.q_out = _p(arrays[6])
        oj.nq = base
        oj.full_shape = _p(arrays[7])
        keep = self._store_target(&job, path_prefix, root_len, key_kind, sep, sources, ntasks)
        keep_r = None
        if ranges is not None and path_prefix is not None:
            keep_r = self._ranged(&job, ranges, ntasks)
        with nogil:
            rc = zh_ortho_run(&oj, nthreads)
        del keep, keep_r
        return status, job.err_task, job.err_code, job.err_msg.decode("utf-8", "replace")

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

    def mask_ranks(self, mask, shape, int nthreads=1):
        """``(rank, bits)`` of a full-shape boolean ``mask`` (C-contiguous, one byte per
        element): per row segment the result index of its first selected element (the
        total last) and its elements as bits (see csrc/zh_mask.h), what
        :meth:`read_mask` reads with."""
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
        cdef cnp.ndarray rank = np.empty(rows * nseg + 1, dtype=np.int64)
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
        cdef int64_t rows
        cdef int64_t wps = self._mask_grid(shape, shp, grid, &rows)
        cdef int nd = self.ndim, d
        cdef int64_t ntasks = 1
        for d in range(nd):
            ntasks *= grid[d]
        cdef int64_t nseg = grid[nd - 1]
        if (rank.dtype != np.int64 or not cnp.PyArray_IS_C_CONTIGUOUS(rank)
                or cnp.PyArray_SIZE(rank) != rows * nseg + 1 or bits.dtype != np.uint64
                or not cnp.PyArray_IS_C_CONTIGUOUS(bits)
                or cnp.PyArray_SIZE(bits) != rows * nseg * wps):
            raise ValueError("engine: read_mask: rank or bits do not fit the array")
        if not cnp.PyArray_ISWRITEABLE(out) or not cnp.PyArray_IS_C_CONTIGUOUS(out):
            raise ValueError("engine: read_mask: out must be writable and C-contiguous")
        cdef const int64_t *rp = <const int64_t *> cnp.PyArray_DATA(rank)
        if cnp.PyArray_ITEMSIZE(out) != self.itemsize or cnp.PyArray_SIZE(out) != rp[rows * nseg]:
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
        with nogil:
            rc = zh_ortho_run(&oj, nthreads if ntasks > 1 else 1)
            for k in range(ntasks):
                if status[k] != ZH_TASK_DONE:
                    rc = -1
        free(mem)
        if ntasks > 64:
            free(status)
        return out if rc == 0 else None

    def write(self, cnp.ndarray buf not None, tuple pieces, step, array_shape, *,
              str path_prefix, int64_t root_len, int key_kind=0, str sep="/",
              bint write_empty_chunks=False, bint durable=False, int nthreads=1):
        """Write every chunk of the request from ``buf`` (the value, full shape) as files.

        Returns ``(task_status, err_task, err_code, err_msg)``.
        """
        cdef zh_job_t job
        cdef list keep = []
        cdef Py_ssize_t ntasks = self._setup(&job, buf, pieces, step, keep)
        cdef cnp.ndarray status = np.zeros(ntasks, dtype=np.uint8)
        cdef int rc
        job.task_status = <uint8_t *> cnp.PyArray_DATA(status)
        self._write_target(&job, keep, array_shape, path_prefix, root_len, key_kind, sep,
                           write_empty_chunks, durable)
        with nogil:
            rc = zh_write_run(&job, nthreads)
        return status, job.err_task, job.err_code, job.err_msg.decode("utf-8", "replace")

    def write_shards(self, cnp.ndarray buf not None, tuple pieces, array_shape, shard_ratio,
                     tuple groups, *, bint index_start, bint index_crc, str path_prefix,
                     int64_t root_len, int key_kind=0, str sep="/",
                     bint write_empty_chunks=False, bint durable=False, int nthreads=1):
        """Write whole shards from ``buf`` (the value, full shape); this engine is the
        inner chain's.

        ``pieces`` plan the selection over the inner chunk grid (step 1, whole inner
        chunks); ``groups`` is ``(g_n, g_off, g_piece, g_count, g_shard)``: per dimension
        the runs of pieces that make up one shard (see csrc/zh_engine.h). The index is
        uint64 little-endian pairs, with a crc32c after it when ``index_crc``.
        Returns ``(status per shard, err_shard, err_code, err_msg)``; shards are the
        product of the groups, last dimension fastest.
        """
        cdef zh_job_t job
        cdef list keep = []
        self._setup(&job, buf, pieces, [1] * self.ndim, keep)
        g_n, g_off, g_piece, g_count, g_shard = groups
        cdef Py_ssize_t ngroups = len(g_piece)
        garrays = [_i64(shard_ratio, self.ndim, "shard_ratio"), _i64(g_n, self.ndim, "g_n"),
                   _i64(g_off, self.ndim, "g_off"), _i64(g_piece, ngroups, "g_piece"),
                   _i64(g_count, ngroups, "g_count"), _i64(g_shard, ngroups, "g_shard")]
        nshards = 1
        for n in garrays[1]:
            nshards *= int(n)
        cdef cnp.ndarray status = np.zeros(max(1, nshards), dtype=np.uint8)
        cdef int rc
        job.shard_ratio = _p(garrays[0])
        job.g_n = _p(garrays[1])
        job.g_off = _p(garrays[2])
        job.g_piece = _p(garrays[3])
        job.g_count = _p(garrays[4])
        job.g_shard = _p(garrays[5])
        job.index_start = index_start
        job.index_crc = index_crc
        job.task_status = <uint8_t *> cnp.PyArray_DATA(status)
        keep.append(garrays)
        self._write_target(&job, keep, array_shape, path_prefix, root_len, key_kind, sep,
                           write_empty_chunks, durable)
        with nogil:
            rc = zh_shard_write_run(&job, nthreads)
        return status[:nshards], job.err_task, job.err_code, job.err_msg.decode("utf-8", "replace")

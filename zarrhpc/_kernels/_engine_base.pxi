# Helpers and the base class of zarrhpc/_kernels/engine.pyx (included there): what every
# chunk of one array shares, job set-up, and the basic reads and writes.
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


#: most outer files one call keeps open at once (sharded reads, ``_ranged``)
cdef Py_ssize_t _SHARED_FILES = 256


cdef class _EngineBase:
    """The array's layout, codec chain and fill value, and the basic reads and writes
    of the engine; :class:`Engine` (engine.pyx) adds the selection reads."""

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
             bint partial_ok=True, int nthreads=1, ranges=None):
        """Fill ``buf`` (the result, full shape) from every chunk of the request.

        Either ``path_prefix`` (chunk files under a directory: prefix + chunk key) or
        ``sources`` (the stored bytes of every task, None when missing) is given;
        ``ranges`` (with ``path_prefix``) place each task's chunk in a byte range of
        another chunk's file (inner chunks of shards, see ``_ranged``).
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
        keep_r = None
        if ranges is not None and path_prefix is not None:
            keep_r = self._ranged(&job, ranges, ntasks)
        with nogil:
            rc = zh_read_run(&job, nthreads)
        del target, keep, keep_r
        return status, job.err_task, job.err_code, job.err_msg.decode("utf-8", "replace")

    def read_point(self, cnp.ndarray out not None, coords, within, path_prefix=None,
                   int64_t root_len=0, int key_kind=0, str sep="/", source=None):
        """Read one element (chunk ``coords``, index ``within`` it) into the 0-d ``out``.

        The fixed-cost path of single-element reads: one task, no plan arrays. Same
        sources and return value as :meth:`read` (``source``: that chunk's bytes or None).
        """
        cdef int d, nd = self.ndim
        cdef int64_t c_chunk[64]
        cdef int64_t c_first[64]
        cdef uint8_t status = 0
        cdef zh_job_t job
        if nd > 64 or len(coords) != nd or len(within) != nd:
            raise ValueError("engine: read_point: coords and within need one entry per dimension")
        if cnp.PyArray_NDIM(out) != 0 or not cnp.PyArray_ISWRITEABLE(out):
            raise ValueError("engine: read_point: out must be a writable 0-d array")
        for d in range(nd):
            c_chunk[d] = coords[d]
            c_first[d] = within[d]
        self._read_one(&job, out, c_chunk, c_first, &status, path_prefix, root_len, key_kind,
                       sep, source)
        return status, job.err_task, job.err_code, job.err_msg.decode("utf-8", "replace")

    cdef int _read_one(self, zh_job_t *job, cnp.ndarray out, const int64_t *chunk,
                       const int64_t *first, uint8_t *status, path_prefix, int64_t root_len,
                       int key_kind, str sep, source) except -2:
        """Run the one-task job reading element ``first`` of chunk ``chunk`` into the 0-d
        ``out`` (from the directory at ``path_prefix``, else from ``source``, that chunk's
        bytes or None): read_point's and read_element's shared part. Returns zh_read_run's
        code; the outcome is in ``*status`` and ``job``."""
        cdef int d, nd = self.ndim, rc
        cdef int64_t c_npieces[64]
        cdef int64_t c_off[64]
        cdef int64_t c_count[64]
        cdef int64_t c_out[64]
        cdef int64_t c_step[64]
        cdef int64_t c_strides[64]
        cdef Py_buffer view
        cdef const char *ptr = NULL
        cdef int64_t length = 0
        for d in range(nd):
            c_npieces[d] = 1
            c_off[d] = d
            c_count[d] = 1
            c_out[d] = 0
            c_step[d] = 1
            c_strides[d] = 0
        self._fill_common(job)
        job.npieces = c_npieces
        job.piece_off = c_off
        job.p_chunk = chunk
        job.p_first = first
        job.p_count = c_count
        job.p_out = c_out
        job.step = c_step
        job.buf = <char *> cnp.PyArray_DATA(out)
        job.buf_strides = c_strides
        job.partial_ok = 1
        job.direct_ok = 0
        job.task_status = status
        if path_prefix is not None:
            target = self._store_target(job, path_prefix, root_len, key_kind, sep, None, 0)
            with nogil:
                rc = zh_read_run(job, 1)
            del target
            return rc
        job.mem_ptr = &ptr
        job.mem_len = &length
        if source is None:
            with nogil:
                rc = zh_read_run(job, 1)
            return rc
        PyObject_GetBuffer(source, &view, PyBUF_SIMPLE)
        try:
            ptr = <const char *> view.buf if view.len else <const char *> ""
            length = view.len
            with nogil:
                rc = zh_read_run(job, 1)
        finally:
            PyBuffer_Release(&view)
        return rc

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
        # each file opened once per call, shared by its tasks (csrc/zh_job.c); a call
        # over more files than _SHARED_FILES opens one per task (no descriptor limit hit)
        if fc.shape[0] > _SHARED_FILES:
            return (fc, fi, off, ln)
        cdef cnp.ndarray fd1 = np.zeros(max(1, fc.shape[0]), dtype=np.intc)
        cdef cnp.ndarray size = np.zeros(max(1, fc.shape[0]), dtype=np.int64)
        job.src_nfiles = fc.shape[0]
        job.src_fd1 = <int *> cnp.PyArray_DATA(fd1)
        job.src_size = <int64_t *> cnp.PyArray_DATA(size)
        return (fc, fi, off, ln, fd1, size)

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

# cython: language_level=3
"""Large result buffers that stay faulted in between reads.

A new numpy array is memory the kernel has to zero page by page on first touch:
measured here, ``np.copyto`` into a fresh ``np.empty`` runs at about a quarter of the
speed of a copy into memory already touched. :func:`empty` hands out 2 MiB-aligned
blocks marked for transparent huge pages, and when the last array using a block goes
away, the block is kept (up to :func:`set_limit` bytes in all, oldest dropped first) for
the next large result of about the same size, so a loop that reads one field after
another stops paying for page faults. Every element of a result is written by the read,
so a reused block never shows old data.

All bookkeeping happens with the GIL held (allocation and ``__dealloc__``).
"""
import numpy as np
cimport numpy as cnp
from cpython.buffer cimport PyBUF_WRITABLE
from libc.stdint cimport uintptr_t

cnp.import_array()

cdef extern from "sys/mman.h":
    void *mmap(void *addr, size_t length, int prot, int flags, int fd, long offset) nogil
    int munmap(void *addr, size_t length) nogil
    int madvise(void *addr, size_t length, int advice) nogil
    int PROT_READ, PROT_WRITE, MAP_PRIVATE, MAP_ANONYMOUS
    void *MAP_FAILED

DEF HUGE = 2097152  # 2 MiB
DEF SLOTS = 16
DEF MADV_HUGEPAGE = 14

cdef size_t _limit = 0  # set by zarrhpc.config
cdef size_t _cached = 0
cdef char *_slot_ptr[SLOTS]
cdef size_t _slot_size[SLOTS]
cdef int _nslots = 0

#: results smaller than this come from numpy's allocator
MIN_BYTES = 4 * 1024 * 1024


cdef void _drop_oldest():
    global _nslots, _cached
    munmap(_slot_ptr[0], _slot_size[0])
    _cached -= _slot_size[0]
    for i in range(1, _nslots):
        _slot_ptr[i - 1] = _slot_ptr[i]
        _slot_size[i - 1] = _slot_size[i]
    _nslots -= 1


cdef char *_take(size_t size):
    """A cached block of at least size bytes and at most twice that, or NULL."""
    global _nslots, _cached
    cdef int best = -1
    for i in range(_nslots):
        if _slot_size[i] >= size and _slot_size[i] <= 2 * size:
            if best < 0 or _slot_size[i] < _slot_size[best]:
                best = i
    if best < 0:
        return NULL
    cdef char *p = _slot_ptr[best]
    _cached -= _slot_size[best]
    for i in range(best + 1, _nslots):
        _slot_ptr[i - 1] = _slot_ptr[i]
        _slot_size[i - 1] = _slot_size[i]
    _nslots -= 1
    return p


cdef void _give(char *p, size_t size):
    global _nslots, _cached
    if size > _limit:
        munmap(p, size)
        return
    while _nslots and (_cached + size > _limit or _nslots == SLOTS):
        _drop_oldest()
    _slot_ptr[_nslots] = p
    _slot_size[_nslots] = size
    _nslots += 1
    _cached += size


cdef class Block:
    """A writable, page-aligned block of memory with the buffer protocol."""

    cdef char *ptr
    cdef size_t size
    cdef Py_ssize_t nbytes
    cdef Py_ssize_t shape[1]
    cdef Py_ssize_t strides[1]

    def __cinit__(self, Py_ssize_t nbytes):
        cdef size_t size = ((<size_t> max(nbytes, 1) + HUGE - 1) // HUGE) * HUGE
        cdef size_t lead
        cdef char *p = _take(size)
        if p == NULL:
            p = <char *> mmap(NULL, size + HUGE, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            if <void *> p == MAP_FAILED:
                raise MemoryError(f"cannot map {size} bytes")
            # trim to a 2 MiB-aligned block so that every page can be a huge page
            lead = (HUGE - (<uintptr_t> p) % HUGE) % HUGE
            if lead:
                munmap(p, lead)
            if HUGE - lead:
                munmap(p + lead + size, HUGE - lead)
            p += lead
            madvise(p, size, MADV_HUGEPAGE)
        self.ptr = p
        self.size = size
        self.nbytes = nbytes

    def __dealloc__(self):
        if self.ptr != NULL:
            _give(self.ptr, self.size)
            self.ptr = NULL

    def __getbuffer__(self, Py_buffer *buf, int flags):
        self.shape[0] = self.nbytes
        self.strides[0] = 1
        buf.buf = self.ptr
        buf.obj = self
        buf.len = self.nbytes
        buf.readonly = 0
        buf.itemsize = 1
        buf.format = "B"
        buf.ndim = 1
        buf.shape = self.shape
        buf.strides = self.strides
        buf.suboffsets = NULL
        buf.internal = NULL

    def __releasebuffer__(self, Py_buffer *buf):
        pass


def empty(shape, dtype, order="C"):
    """Like ``numpy.empty``; large arrays come from the block cache."""
    dtype = np.dtype(dtype)
    n = dtype.itemsize
    for s in shape:
        n *= s
    if n < MIN_BYTES or dtype.hasobject:
        return np.empty(shape, dtype=dtype, order=order)
    return np.ndarray(shape, dtype=dtype, buffer=Block(n), order=order)


def set_limit(Py_ssize_t nbytes):
    """Keep at most ``nbytes`` of freed blocks (0: keep none, free at once)."""
    global _limit
    if nbytes < 0:
        raise ValueError("buffer cache limit must be >= 0")
    _limit = nbytes
    while _nslots and _cached > _limit:
        _drop_oldest()


def cached_bytes():
    """Bytes held in freed blocks waiting for reuse."""
    return _cached

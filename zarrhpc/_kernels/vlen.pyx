# cython: language_level=3
"""Variable-length element framing (numcodecs' VLenUTF8 / VLenBytes layout) in one pass.

Layout: a little-endian ``uint32`` item count, then per item a little-endian ``uint32``
byte length followed by that many bytes. Bytes after the last item are ignored (numcodecs
does the same, so what zarr-python reads, zarrhpc reads).

Decode builds the result objects (``str`` or ``bytes``) straight into an object array:
one C call per element to make the object, no Python-level call. Every length is checked
against the bytes left before anything is read; a bad buffer raises ``ValueError`` with
what was wrong (the codec turns it into a CorruptChunkError naming the key). Encode takes
an object array, reads each element's UTF-8 (cached in the ``str`` object) or bytes
pointer, sizes the output once and copies.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport uint32_t, uint8_t, int64_t, uint64_t
from libc.string cimport memcpy
from libc.stdlib cimport malloc, free
from cpython.unicode cimport PyUnicode_DecodeUTF8, PyUnicode_Check
from cpython.bytes cimport PyBytes_FromStringAndSize, PyBytes_Check, PyBytes_AS_STRING, PyBytes_GET_SIZE

cnp.import_array()

cdef extern from "Python.h":
    const char *PyUnicode_AsUTF8AndSize(object s, Py_ssize_t *size) except NULL

cdef extern from "numpy/ndarraytypes.h":
    ctypedef struct npy_string_allocator:
        pass
    ctypedef struct npy_packed_static_string:
        pass
    ctypedef struct npy_static_string:
        size_t size
        const char *buf
    ctypedef struct PyArray_StringDTypeObject:
        pass

cdef extern from "numpy/arrayobject.h":
    npy_string_allocator *NpyString_acquire_allocator(const PyArray_StringDTypeObject *descr) nogil
    void NpyString_release_allocator(npy_string_allocator *allocator) nogil
    int NpyString_pack(npy_string_allocator *allocator, npy_packed_static_string *packed,
                       const char *buf, size_t size) nogil
    int NpyString_load(npy_string_allocator *allocator, const npy_packed_static_string *packed,
                       npy_static_string *unpacked) nogil


cdef inline uint32_t _u32(const uint8_t *p) noexcept nogil:
    return (<uint32_t> p[0]) | (<uint32_t> p[1] << 8) | (<uint32_t> p[2] << 16) | (<uint32_t> p[3] << 24)

cdef inline void _put_u32(uint8_t *p, uint32_t v) noexcept nogil:
    p[0] = v & 0xFF
    p[1] = (v >> 8) & 0xFF
    p[2] = (v >> 16) & 0xFF
    p[3] = (v >> 24) & 0xFF


cdef Py_ssize_t _count(const uint8_t[::1] buf, Py_ssize_t expected) except -1:
    """The item count of the header, checked against the buffer and ``expected``."""
    cdef Py_ssize_t size = buf.shape[0]
    if size < 4:
        raise ValueError(f"vlen buffer of {size} bytes is shorter than its 4-byte header")
    cdef Py_ssize_t n = _u32(&buf[0])
    if expected >= 0 and n != expected:
        raise ValueError(f"vlen header declares {n} items, expected {expected}")
    # each item needs at least its 4-byte length: refuse before allocating n items
    if n > (size - 4) // 4:
        raise ValueError(f"vlen header declares {n} items, but only {size} bytes follow")
    return n


cdef object _decode(const uint8_t[::1] buf, Py_ssize_t expected, bint text):
    cdef Py_ssize_t size = buf.shape[0]
    cdef Py_ssize_t n = _count(buf, expected)
    cdef const uint8_t *p = &buf[0]
    out = np.empty(n, dtype=object)
    cdef object[::1] view = out
    cdef Py_ssize_t pos = 4, i
    cdef Py_ssize_t length
    for i in range(n):
        if size - pos < 4:
            raise ValueError(f"vlen buffer truncated at item {i} of {n} (offset {pos})")
        length = _u32(p + pos)
        pos += 4
        if length > size - pos:
            raise ValueError(
                f"vlen item {i} declares {length} bytes, only {size - pos} left (offset {pos})")
        if text:
            view[i] = PyUnicode_DecodeUTF8(<const char *> (p + pos), length, "strict")
        else:
            view[i] = PyBytes_FromStringAndSize(<const char *> (p + pos), length)
        pos += length
    return out


def decode_utf8(buf, Py_ssize_t expected=-1):
    """Decode a vlen-utf8 buffer into a 1-d object array of ``str``.

    Parameters
    ----------
    buf : bytes-like
        The encoded chunk.
    expected : int
        Number of items the chunk must hold (-1: any).

    Raises
    ------
    ValueError
        Truncated or inconsistent buffer, invalid UTF-8 (``UnicodeDecodeError``).
    """
    return _decode(_view(buf), expected, True)


def decode_bytes(buf, Py_ssize_t expected=-1):
    """Decode a vlen-bytes buffer into a 1-d object array of ``bytes`` (see decode_utf8)."""
    return _decode(_view(buf), expected, False)


cdef const uint8_t[::1] _view(buf):
    mv = memoryview(buf)
    if not mv.c_contiguous:
        mv = memoryview(mv.tobytes())
    if mv.ndim != 1 or mv.format != "B":
        mv = mv.cast("B")
    if mv.nbytes == 0:
        return np.zeros(0, dtype=np.uint8)
    return mv


cdef object _encode(cnp.ndarray arr, bint text):
    cdef Py_ssize_t n = arr.shape[0], i
    if n > 0xFFFFFFFF:
        raise ValueError(f"vlen: {n} items do not fit the 32-bit item count")
    cdef object[::1] view = arr  # before the mallocs: a refused buffer leaks nothing
    cdef const char **ptrs = <const char **> malloc(max(n, 1) * sizeof(char *))
    cdef Py_ssize_t *lens = <Py_ssize_t *> malloc(max(n, 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t total = 4, length
    cdef uint8_t *q
    cdef object item
    if ptrs == NULL or lens == NULL:
        free(ptrs)
        free(lens)
        raise MemoryError()
    try:
        for i in range(n):
            item = view[i]
            if item is None:  # numcodecs writes None as an empty item
                ptrs[i] = NULL
                lens[i] = 0
            elif text:
                if not PyUnicode_Check(item):
                    raise TypeError(f"vlen-utf8: expected str, got {type(item).__name__} "
                                    f"at flat index {i}")
                ptrs[i] = PyUnicode_AsUTF8AndSize(item, &length)
                lens[i] = length
            else:
                if not PyBytes_Check(item):
                    raise TypeError(f"vlen-bytes: expected bytes, got {type(item).__name__} "
                                    f"at flat index {i}")
                ptrs[i] = PyBytes_AS_STRING(item)
                lens[i] = PyBytes_GET_SIZE(item)
            if lens[i] > 0xFFFFFFFF:
                raise ValueError(f"vlen: item {i} of {lens[i]} bytes exceeds 4 GiB")
            total += 4 + lens[i]
        out = np.empty(total, dtype=np.uint8)
        q = <uint8_t *> cnp.PyArray_DATA(out)
        _put_u32(q, <uint32_t> n)
        q += 4
        # the objects stay alive (arr holds them), so their buffers do too
        for i in range(n):
            _put_u32(q, <uint32_t> lens[i])
            q += 4
            if lens[i]:
                memcpy(q, ptrs[i], lens[i])
                q += lens[i]
        return out
    finally:
        free(ptrs)
        free(lens)


def encode_utf8(arr):
    """Encode a 1-d contiguous object array of ``str`` (or None) as vlen-utf8 (uint8 array).

    Raises
    ------
    TypeError
        An element is neither ``str`` nor None.
    """
    return _encode(_objects(arr), True)


def encode_bytes(arr):
    """Encode a 1-d contiguous object array of ``bytes`` (or None) as vlen-bytes."""
    return _encode(_objects(arr), False)


cdef cnp.ndarray _objects(arr):
    a = np.ascontiguousarray(arr, dtype=object).reshape(-1)
    return a


# ---------------------------------------------------------------------------------------
# numpy StringDType: straight between the framing and numpy's packed strings, no str objects


cdef bint _valid_utf8(const uint8_t *p, Py_ssize_t n) noexcept nogil:
    """Strict UTF-8 (no overlongs, no surrogates, at most U+10FFFF), as Python decodes."""
    cdef Py_ssize_t i = 0
    cdef uint8_t c, c1
    while i < n:
        c = p[i]
        if c < 0x80:
            i += 1
            continue
        if c < 0xC2 or c > 0xF4:
            return False
        if c < 0xE0:
            if i + 1 >= n or (p[i + 1] & 0xC0) != 0x80:
                return False
            i += 2
            continue
        if i + 2 >= n or (p[i + 1] & 0xC0) != 0x80 or (p[i + 2] & 0xC0) != 0x80:
            return False
        c1 = p[i + 1]
        if c < 0xF0:
            if (c == 0xE0 and c1 < 0xA0) or (c == 0xED and c1 >= 0xA0):
                return False
            i += 3
            continue
        if i + 3 >= n or (p[i + 3] & 0xC0) != 0x80:
            return False
        if (c == 0xF0 and c1 < 0x90) or (c == 0xF4 and c1 >= 0x90):
            return False
        i += 4
    return True


def decode_utf8_strings(buf, Py_ssize_t expected, dtype):
    """Decode a vlen-utf8 buffer into a 1-d array of numpy ``StringDType`` ``dtype``.

    Strings are packed into numpy's own storage: no Python object per element. Lengths
    and UTF-8 are checked as :func:`decode_utf8` does (``ValueError`` on corruption).
    """
    cdef const uint8_t[::1] view = _view(buf)
    cdef Py_ssize_t size = view.shape[0]
    cdef Py_ssize_t n = _count(view, expected)
    cdef const uint8_t *p = &view[0]
    out = np.empty(n, dtype=dtype)
    cdef cnp.ndarray arr = out
    cdef char *data = <char *> cnp.PyArray_DATA(arr)
    cdef Py_ssize_t itemsize = arr.descr.itemsize
    cdef cnp.dtype descr = arr.descr
    cdef npy_string_allocator *alloc
    cdef Py_ssize_t pos = 4, i = 0, length = 0
    cdef int err = 0  # 1 truncated, 2 length, 3 utf-8, 4 memory
    # the allocator is taken and given back with the GIL released: a thread holding it
    # while waiting for the GIL deadlocks with one holding the GIL while waiting for it
    with nogil:
        alloc = NpyString_acquire_allocator(<const PyArray_StringDTypeObject *> <void *> descr)
        while i < n:
            if size - pos < 4:
                err = 1
                break
            length = _u32(p + pos)
            pos += 4
            if length > size - pos:
                err = 2
                break
            if not _valid_utf8(p + pos, length):
                err = 3
                break
            if NpyString_pack(alloc, <npy_packed_static_string *> (data + i * itemsize),
                              <const char *> (p + pos), length) < 0:
                err = 4
                break
            pos += length
            i += 1
        NpyString_release_allocator(alloc)
    if err == 1:
        raise ValueError(f"vlen buffer truncated at item {i} of {n} (offset {pos})")
    if err == 2:
        raise ValueError(
            f"vlen item {i} declares {length} bytes, only {size - pos} left (offset {pos})")
    if err == 3:
        raise ValueError(f"vlen item {i}: invalid UTF-8 (offset {pos})")
    if err == 4:
        raise MemoryError()
    return out


def encode_utf8_strings(arr):
    """Encode a numpy ``StringDType`` array (flattened in C order) as vlen-utf8 (uint8).

    Missing values (the dtype's ``na_object``) are written as empty strings.
    """
    cdef cnp.ndarray a = np.ascontiguousarray(arr).reshape(-1)
    cdef Py_ssize_t n = a.shape[0], i
    if n > 0xFFFFFFFF:
        raise ValueError(f"vlen: {n} items do not fit the 32-bit item count")
    cdef char *data = <char *> cnp.PyArray_DATA(a)
    cdef Py_ssize_t itemsize = a.descr.itemsize
    cdef npy_static_string s
    cdef Py_ssize_t total = 4
    cdef int rc
    cdef uint8_t *q
    cdef cnp.dtype descr = a.descr
    cdef npy_string_allocator *alloc
    cdef Py_ssize_t bad = -1
    cdef int big = 0
    # the allocator is only ever held with the GIL released (see decode_utf8_strings):
    # two passes, each taking and giving it back inside its nogil block
    with nogil:
        alloc = NpyString_acquire_allocator(<const PyArray_StringDTypeObject *> <void *> descr)
        for i in range(n):
            rc = NpyString_load(alloc, <const npy_packed_static_string *> (data + i * itemsize), &s)
            if rc < 0:
                bad = i
                break
            if rc == 0:
                if <uint64_t> s.size > <uint64_t> 0xFFFFFFFF:
                    bad = i
                    big = 1
                    break
                total += 4 + s.size
            else:
                total += 4
        NpyString_release_allocator(alloc)
    if bad >= 0:
        if big:
            raise ValueError(f"vlen: item {bad} exceeds 4 GiB")
        raise ValueError(f"vlen-utf8: cannot read string {bad}")
    out = np.empty(total, dtype=np.uint8)
    q = <uint8_t *> cnp.PyArray_DATA(out)
    _put_u32(q, <uint32_t> n)
    q += 4
    with nogil:
        alloc = NpyString_acquire_allocator(<const PyArray_StringDTypeObject *> <void *> descr)
        for i in range(n):
            rc = NpyString_load(alloc, <const npy_packed_static_string *> (data + i * itemsize), &s)
            if rc != 0:
                _put_u32(q, 0)
                q += 4
                continue
            _put_u32(q, <uint32_t> s.size)
            q += 4
            if s.size:
                memcpy(q, s.buf, s.size)
                q += s.size
        NpyString_release_allocator(alloc)
    return out

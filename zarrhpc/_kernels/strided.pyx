# cython: language_level=3
"""Strided copy and fill between numpy views, byte swap fused into the copy.

The Python layer expresses a chunk selection, an output selection and a transpose as
numpy *views* (slicing and ``transpose`` only change strides); these kernels then move
the bytes in one pass.  Preconditions are checked once in the ``def`` wrappers (every
refusal is a :class:`zarrhpc.errors.KernelError`); the C cores in csrc/zh_strided.c run
with the GIL released for blocks above 16 KiB.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t, intptr_t
from cpython.buffer cimport PyObject_CheckBuffer

from operator import index as _index

from zarrhpc.errors import KernelError, raise_for_status

cnp.import_array()

cdef extern from "numpy/arrayobject.h":
    # true when elements hold Python references (object fields): raw copies would
    # corrupt reference counts
    bint PyDataType_REFCHK(cnp.PyArray_Descr *) nogil

cdef extern from "zh_strided.h":
    int ZH_MAX_DIMS
    int zh_copy_strided(char *dst, const char *src, int ndim, const int64_t *shape,
                        const int64_t *dst_bstrides, const int64_t *src_bstrides,
                        int64_t itemsize, int swap) nogil
    int zh_fill_strided(char *dst, int ndim, const int64_t *shape,
                        const int64_t *dst_bstrides, const char *value,
                        int64_t itemsize) nogil

# below this many bytes, releasing the GIL costs more than it saves
cdef int64_t NOGIL_BYTES = 16384

# numpy 2 allows 64 dimensions, as does csrc; both limits are checked
cdef enum:
    MAX_DIMS = 64


cdef inline object _shape_of(cnp.ndarray a):
    return (<object> a).shape


cdef int _check_dst(cnp.ndarray dst, str where) except -1:
    if cnp.PyArray_NDIM(dst) > MAX_DIMS or cnp.PyArray_NDIM(dst) > ZH_MAX_DIMS:
        raise KernelError(
            f"{where}: dst has {cnp.PyArray_NDIM(dst)} dimensions, at most {ZH_MAX_DIMS}"
        )
    if not cnp.PyArray_ISWRITEABLE(dst):
        raise KernelError(f"{where}: destination is read-only")
    if PyDataType_REFCHK(cnp.PyArray_DESCR(dst)):
        raise KernelError(
            f"{where}: dst dtype {(<object> dst).dtype} holds Python objects; only raw bytes can be copied"
        )
    return 0


cdef void _extent(cnp.ndarray a, intptr_t *lo, intptr_t *hi) noexcept:
    """Byte range [lo, hi) that the elements of the non-empty array ``a`` cover."""
    cdef int i
    cdef intptr_t base = <intptr_t> cnp.PyArray_DATA(a)
    cdef intptr_t l = base, h = base + cnp.PyArray_ITEMSIZE(a)
    cdef intptr_t span
    for i in range(cnp.PyArray_NDIM(a)):
        span = (cnp.PyArray_DIMS(a)[i] - 1) * cnp.PyArray_STRIDES(a)[i]
        if span < 0:
            l += span
        else:
            h += span
    lo[0] = l
    hi[0] = h


cdef int _copy(cnp.ndarray dst, cnp.ndarray src, int swap) except -1:
    """Checked arrays in, status out: the shared core of copy_into."""
    cdef int ndim = cnp.PyArray_NDIM(dst)
    cdef int64_t itemsize = cnp.PyArray_ITEMSIZE(dst)
    cdef int64_t shape[MAX_DIMS]
    cdef int64_t ds[MAX_DIMS]
    cdef int64_t ss[MAX_DIMS]
    cdef int i, status
    for i in range(ndim):
        shape[i] = cnp.PyArray_DIMS(dst)[i]
        ds[i] = cnp.PyArray_STRIDES(dst)[i]
        ss[i] = cnp.PyArray_STRIDES(src)[i]
    cdef char *dp = cnp.PyArray_BYTES(dst)
    cdef const char *sp = cnp.PyArray_BYTES(src)
    if cnp.PyArray_SIZE(dst) * itemsize >= NOGIL_BYTES:
        with nogil:
            status = zh_copy_strided(dp, sp, ndim, shape, ds, ss, itemsize, swap)
    else:
        status = zh_copy_strided(dp, sp, ndim, shape, ds, ss, itemsize, swap)
    if status:
        raise_for_status(status, "copy_into")
    return 0


def copy_into(cnp.ndarray dst not None, cnp.ndarray src not None, swap=0):
    """Copy ``src`` into ``dst`` element by element (``dst[...] = src`` on raw bytes).

    Parameters
    ----------
    dst : numpy.ndarray
        Writable destination view, any strides.
    src : numpy.ndarray
        Source view of the same shape and itemsize, any strides (zero, negative). Its
        dtype is not interpreted: bytes move as they are, except for ``swap``.
    swap : int
        0 (or 1): no byte swap; 2, 4 or 8: reverse the bytes of every ``swap``-byte
        component of each element (4 for complex64, 8 for float64/complex128, ...).
        ``swap`` must divide the itemsize.

    Raises
    ------
    KernelError
        Shapes or itemsizes differ, ``dst`` is read-only, either dtype holds Python
        objects, ``swap`` is not 0, 1, 2, 4 or 8 or does not divide the itemsize.

    Notes
    -----
    If the two buffers may overlap (their byte ranges intersect), ``src`` is first
    copied to a temporary, so the result is always that of a copy from a snapshot of
    ``src`` (``copy_into(a, a, swap=4)`` swaps in place).  The GIL is released for
    blocks of more than 16 KiB; no Python object is touched while it is released, but
    the caller must keep other threads from resizing or freeing the buffers.
    """
    cdef int ndim = cnp.PyArray_NDIM(dst)
    cdef int64_t itemsize = cnp.PyArray_ITEMSIZE(dst)
    cdef int i
    cdef Py_ssize_t cswap
    try:
        cswap = _index(swap)
    except TypeError:
        raise TypeError(f"copy_into: swap must be an integer, got {swap!r}") from None
    except OverflowError:
        cswap = -1
    if cnp.PyArray_NDIM(src) != ndim:
        raise KernelError(
            f"copy_into: shape mismatch: dst {_shape_of(dst)}, src {_shape_of(src)}"
        )
    for i in range(ndim):
        if cnp.PyArray_DIMS(src)[i] != cnp.PyArray_DIMS(dst)[i]:
            raise KernelError(
                f"copy_into: shape mismatch: dst {_shape_of(dst)}, src {_shape_of(src)}"
            )
    if cnp.PyArray_ITEMSIZE(src) != itemsize:
        raise KernelError(
            f"copy_into: itemsize mismatch: dst {itemsize}, src {cnp.PyArray_ITEMSIZE(src)}"
        )
    _check_dst(dst, "copy_into")
    if PyDataType_REFCHK(cnp.PyArray_DESCR(src)):
        raise KernelError(
            f"copy_into: src dtype {(<object> src).dtype} holds Python objects; only raw bytes can be copied"
        )
    if cswap not in (0, 1, 2, 4, 8):
        raise KernelError(f"copy_into: swap must be 0, 1, 2, 4 or 8, got {swap!r}")
    if cswap > 1 and itemsize % cswap:
        raise KernelError(f"copy_into: swap {cswap} does not divide itemsize {itemsize}")
    if itemsize == 0 or cnp.PyArray_SIZE(dst) == 0:
        return
    cdef intptr_t dlo, dhi, slo, shi
    cdef cnp.ndarray tmp
    _extent(dst, &dlo, &dhi)
    _extent(src, &slo, &shi)
    if dlo < shi and slo < dhi:
        # the byte ranges meet: snapshot src first (rare; costs one extra copy)
        tmp = np.empty(_shape_of(src), dtype=np.dtype(("V", itemsize)))
        _copy(tmp, src, 0)
        src = tmp
    _copy(dst, src, <int> cswap)


def fill(cnp.ndarray dst not None, value):
    """Write the element ``value`` into every element of ``dst``.

    Parameters
    ----------
    dst : numpy.ndarray
        Writable destination view, any strides.
    value : bytes-like
        The raw bit pattern of one element in ``dst``'s byte order: any object with the
        buffer protocol (``bytes``, a 0-d numpy array, ...) of exactly ``dst.itemsize``
        bytes.

    Raises
    ------
    KernelError
        ``value`` has the wrong length, ``dst`` is read-only or holds Python objects.

    Notes
    -----
    The GIL is released for blocks of more than 16 KiB.
    """
    if not PyObject_CheckBuffer(value):
        raise TypeError(f"fill: value must be a bytes-like object, got {type(value).__name__}")
    cdef bytes pattern = memoryview(value).tobytes()
    cdef int ndim = cnp.PyArray_NDIM(dst)
    cdef int64_t itemsize = cnp.PyArray_ITEMSIZE(dst)
    _check_dst(dst, "fill")
    if len(pattern) != itemsize:
        raise KernelError(f"fill: value has {len(pattern)} bytes, element has {itemsize}")
    if itemsize == 0 or cnp.PyArray_SIZE(dst) == 0:
        return
    cdef int64_t shape[MAX_DIMS]
    cdef int64_t ds[MAX_DIMS]
    cdef int i
    for i in range(ndim):
        shape[i] = cnp.PyArray_DIMS(dst)[i]
        ds[i] = cnp.PyArray_STRIDES(dst)[i]
    cdef char *dp = cnp.PyArray_BYTES(dst)
    cdef const char *vp = pattern
    cdef int status
    if cnp.PyArray_SIZE(dst) * itemsize >= NOGIL_BYTES:
        with nogil:
            status = zh_fill_strided(dp, ndim, shape, ds, vp, itemsize)
    else:
        status = zh_fill_strided(dp, ndim, shape, ds, vp, itemsize)
    raise_for_status(status, "fill")

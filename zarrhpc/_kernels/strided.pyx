# cython: language_level=3
"""Strided copy and fill between numpy views, byte swap fused into the copy.

The Python layer expresses a chunk selection, an output selection and a transpose as
numpy *views* (slicing and ``transpose`` only change strides); these kernels then move
the bytes in one pass.  Preconditions are checked once in the ``def`` wrappers; the C
cores in csrc/zh_strided.c run with the GIL released for blocks above a small size.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t

from zarrhpc.errors import KernelError, raise_for_status

cnp.import_array()

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


def copy_into(cnp.ndarray dst not None, cnp.ndarray src not None, int swap=0):
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

    Notes
    -----
    ``dst`` and ``src`` must not overlap.  The GIL is released for blocks of more than
    16 KiB.
    """
    cdef int ndim = dst.ndim
    cdef int64_t itemsize = dst.itemsize
    cdef int i
    if src.ndim != ndim or any(src.shape[i] != dst.shape[i] for i in range(ndim)):
        raise KernelError(
            f"copy_into: shape mismatch: dst {(<object> dst).shape}, src {(<object> src).shape}"
        )
    if src.itemsize != itemsize:
        raise KernelError(f"copy_into: itemsize mismatch: dst {itemsize}, src {src.itemsize}")
    if not dst.flags.writeable:
        raise KernelError("copy_into: destination is read-only")
    if ndim > ZH_MAX_DIMS:
        raise KernelError(f"copy_into: {ndim} dimensions, at most {ZH_MAX_DIMS}")
    if swap > 1 and (swap not in (2, 4, 8) or itemsize % swap):
        raise KernelError(f"copy_into: swap {swap} does not divide itemsize {itemsize}")
    cdef int64_t shape[64]
    cdef int64_t ds[64]
    cdef int64_t ss[64]
    for i in range(ndim):
        shape[i] = dst.shape[i]
        ds[i] = dst.strides[i]
        ss[i] = src.strides[i]
    cdef char *dp = <char *> cnp.PyArray_DATA(dst)
    cdef const char *sp = <const char *> cnp.PyArray_DATA(src)
    cdef int64_t nbytes = dst.size * itemsize
    cdef int status
    if nbytes >= NOGIL_BYTES:
        with nogil:
            status = zh_copy_strided(dp, sp, ndim, shape, ds, ss, itemsize, swap)
    else:
        status = zh_copy_strided(dp, sp, ndim, shape, ds, ss, itemsize, swap)
    raise_for_status(status, "copy_into")


def fill(cnp.ndarray dst not None, value):
    """Write the element ``value`` (bytes of length ``dst.itemsize``) into every element.

    ``value`` is the raw bit pattern of one element in ``dst``'s byte order.  The GIL is
    released for blocks of more than 16 KiB.
    """
    cdef bytes pattern = bytes(value)
    cdef int ndim = dst.ndim
    cdef int64_t itemsize = dst.itemsize
    if len(pattern) != itemsize:
        raise KernelError(f"fill: value has {len(pattern)} bytes, element has {itemsize}")
    if not dst.flags.writeable:
        raise KernelError("fill: destination is read-only")
    if ndim > ZH_MAX_DIMS:
        raise KernelError(f"fill: {ndim} dimensions, at most {ZH_MAX_DIMS}")
    cdef int64_t shape[64]
    cdef int64_t ds[64]
    cdef int i
    for i in range(ndim):
        shape[i] = dst.shape[i]
        ds[i] = dst.strides[i]
    cdef char *dp = <char *> cnp.PyArray_DATA(dst)
    cdef const char *vp = pattern
    cdef int64_t nbytes = dst.size * itemsize
    cdef int status
    if nbytes >= NOGIL_BYTES:
        with nogil:
            status = zh_fill_strided(dp, ndim, shape, ds, vp, itemsize)
    else:
        status = zh_fill_strided(dp, ndim, shape, ds, vp, itemsize)
    raise_for_status(status, "fill")

"""What a selection and a value look like before ``Array`` dispatches them: the dtype an
array shows (stored byte order, explicit order as zarr-python shows it), a value as the
point and scalar writes take it (numpy's rules, zarr-python's errors), the lean-path test
for plain basic selections and index arrays given as Arrays. Pure functions, no I/O: the
dispatch itself stays in :mod:`zarrhpc.core.array`."""

from __future__ import annotations

import functools
import math
import sys

import numpy as np

from zarrhpc.errors import BroadcastError, SelectionError

__all__ = ["NUMERIC_SCALARS", "as_numpy_element", "index_array", "is_plain_basic",
           "one_element", "other_order", "points_value", "shown_dtype"]


@functools.lru_cache(maxsize=64)
def other_order(stored) -> np.dtype | None:
    """A v2 stored dtype whose numbers are in the other byte order than the machine's
    (``'>u4'`` on little-endian), or None: what such an array's ``dtype`` and reads show,
    as in zarr-python (the engine itself works in machine order)."""
    if stored is None or stored.fields is not None or stored.kind not in "iufcmM":
        return None
    if stored.itemsize == 1 or stored.byteorder in ("=", "|") or stored.isnative:
        return None
    return stored


def shown_dtype(dtype: np.dtype) -> np.dtype:
    """``dtype`` as zarr-python's ``Array.dtype`` shows it: a multi-byte number with its
    byte order explicit (``dtype('<f8')``, not ``dtype('float64')``; equal either way)."""
    if dtype.kind in "iufc" and dtype.itemsize > 1 and dtype.byteorder == "=":
        return dtype.newbyteorder("<" if sys.byteorder == "little" else ">")
    return dtype


def points_value(value, out_shape):
    """A coordinate selection's value as zarr-python takes it: a value of several
    dimensions is taken element by element in C order (its shape need not be the
    selection's), a 1-d one must have one element per point (or one)."""
    if np.ndim(value) == 0 or isinstance(value, (str, bytes)):
        return value
    arr = value if isinstance(value, np.ndarray) else np.asarray(value)
    n = math.prod(out_shape)
    flat = arr.reshape(-1) if arr.ndim > 1 else arr
    if flat.shape[0] not in (1, n):
        raise BroadcastError(f"Attempting to set a selection of {n} elements with an array "
                             f"of {flat.shape[0]} elements.")
    return flat.reshape(out_shape) if flat.shape[0] == n else flat


# numpy scalars a 0-d array is made from directly (strings and records go through an
# array of the array's dtype, which keeps their length)
NUMERIC_SCALARS = (np.number, np.bool_, np.datetime64)


def one_element(selection, ndim: int) -> bool:
    """An int per dimension: numpy assigns the value as a scalar there."""
    sel = selection if type(selection) is tuple else (selection,)
    return len(sel) == ndim and all(isinstance(s, (int, np.integer)) for s in sel)


def as_numpy_element(value, dtype):
    """``value`` as numpy's scalar assignment converts it. For the masked constant (whose
    data is a plain 0) that is NaN with numpy's warning for floats and MaskError for ints,
    as zarr-python (a numpy setitem) gives; a slice or fancy selection takes its data 0,
    as numpy's does."""
    arr = np.empty((), dtype=dtype)
    arr[()] = value
    return arr


def is_plain_basic(selection) -> bool:
    """Ints, slices and Ellipsis only: basic indexing, no dispatch needed."""
    if type(selection) is tuple:
        for s in selection:  # (a loop, not all() of a generator: W4's reads pass here)
            if type(s) is not slice and type(s) is not int and s is not Ellipsis:
                return False
        return True
    return type(selection) in (int, slice) or selection is Ellipsis


def index_array(arr) -> np.ndarray:
    """An Array given as an index (oindex/vindex): its values, integer or boolean only."""
    if arr.dtype.kind not in "iub":
        raise SelectionError(
            f"Invalid array dtype: {arr.dtype}. Arrays used as indices must be of integer "
            "or boolean type")
    return np.asarray(arr)

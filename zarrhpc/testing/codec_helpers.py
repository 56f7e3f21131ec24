"""Shared helpers and hypothesis strategies for the codec tests (imported by name)."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import strategies as st

# every data type of the v3 core spec as numpy sees it (native byte order), plus raw types
NUMERIC_DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
RAW_DTYPES = ["V1", "V2", "V3", "V8"]
ALL_DTYPES = NUMERIC_DTYPES + RAW_DTYPES


def random_array(shape, dtype, seed: int) -> np.ndarray:
    """A C-contiguous array of arbitrary bit patterns (0/1 for bool)."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape, dtype=np.int64))
    if dtype.kind == "b":
        return rng.integers(0, 2, n, dtype=np.uint8).view(bool).reshape(shape)
    # few distinct bytes so that compressors have something to find
    raw = rng.integers(0, 4, n * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    """Bitwise equality of two arrays of equal shape and itemsize (NaNs compare equal)."""
    if a.shape != b.shape or a.dtype.itemsize != b.dtype.itemsize:
        return False
    return np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


shapes = st.lists(st.integers(1, 6), min_size=0, max_size=4).map(tuple)
seeds = st.integers(0, 2**32 - 1)


def field_re(doc: str, field: str) -> str:
    """Regex matching the start of an error message naming ``doc`` and ``field``."""
    return re.escape(f"{doc}: {field}" if doc else field)


def to_native(decoded: np.ndarray) -> np.ndarray:
    """Copy a decoded chunk into a native-order C array, as the core does."""
    from zarrhpc._kernels import copy_into
    from zarrhpc.codecs import swap_size

    out = np.empty(decoded.shape, dtype=decoded.dtype.newbyteorder("="))
    copy_into(out, decoded, swap_size(decoded.dtype))
    return out

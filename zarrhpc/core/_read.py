"""Read a basic selection: plan once, then fetch, decode and copy each chunk.

For every chunk the plan touches: the store returns the encoded bytes (LocalStore maps
large files), the pipeline decodes them into a view in the stored byte order and layout,
and one strided copy (byte swap and transpose fused) moves the wanted part into the
output. Missing chunks are filled with the fill value. Chunks run on the shared worker
pool when there is more than one; every heavy step releases the GIL.
"""

from __future__ import annotations

import numpy as np

from zarrhpc import config
from zarrhpc._kernels import copy_into, fill
from zarrhpc.codecs import swap_size
from zarrhpc.errors import SelectionError
from zarrhpc.indexing import iter_chunk_projections, normalize_basic_selection

__all__ = ["read_selection", "decode_chunk_into"]


def decode_chunk_into(array, key: str, dst: np.ndarray, chunk_selection) -> None:
    """Fill ``dst`` with ``chunk[chunk_selection]`` of the chunk stored at ``key``."""
    raw = array._store.get(key)
    if raw is None:
        fill(dst, array._fill_bytes)
        return
    decoded = array._pipeline.decode(raw, key)
    src = decoded[chunk_selection]
    copy_into(dst, src, swap_size(src.dtype))


def _check_out(out, shape, dtype) -> np.ndarray:
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out: expected a numpy.ndarray, got {type(out).__name__}")
    if out.shape != shape:
        raise SelectionError(f"out: shape {out.shape} does not match the selection's {shape}")
    if out.dtype != dtype:
        raise TypeError(f"out: dtype {out.dtype} does not match the array's {dtype}")
    if not out.flags.writeable:
        raise ValueError("out: the buffer is read-only")
    return out


def _has_ellipsis(selection) -> bool:
    if isinstance(selection, tuple):
        return any(s is Ellipsis for s in selection)
    return selection is Ellipsis


def read_selection(array, selection, out=None):
    """``array[selection]`` as numpy returns it (a scalar for an all-integer index)."""
    sel = normalize_basic_selection(selection, array.shape)
    dtype = array.dtype
    if out is None:
        result = np.empty(sel.out_shape, dtype=dtype, order=array._order)
    else:
        result = _check_out(out, sel.out_shape, dtype)
    full = result[sel.expand_index]  # a view with dropped dims as length 1
    plan = [
        (array._chunk_key(p.chunk_coords), full[p.out_selection], p.chunk_selection)
        for p in iter_chunk_projections(sel, array.chunks)
    ]
    pool = config.executor() if len(plan) > 1 else None
    if pool is None:
        for key, dst, csel in plan:
            decode_chunk_into(array, key, dst, csel)
    else:
        # list() re-raises the first worker exception here
        list(pool.map(lambda job: decode_chunk_into(array, *job), plan))
    if out is None and result.ndim == 0 and not _has_ellipsis(selection):
        return result[()]  # numpy gives a scalar for a full integer index, not for `...`
    return result

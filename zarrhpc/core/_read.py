"""Read a basic selection: plan once, then every chunk in one native call.

The plan is per dimension (indexing.ChunkPlan). When the array's codec chain has a
native form (codecs.native), the engine reads every chunk the plan touches on its own
threads with the GIL released: a LocalStore's chunk files are opened and read by the
engine itself (only the bytes wanted when a chunk is uncompressed), other stores hand
over their buffers first. Each chunk is decompressed straight into the result when it is
wholly wanted and lies there in its decoded layout, otherwise into a per-thread buffer,
then moved by one strided copy with the byte swap and transpose fused. Missing chunks
are filled with the fill value.

Chunks the engine cannot do (a chain with a Python-only codec, an odd stream such as a
multi-member gzip) run here in Python: decode with the pipeline, then the same copy.
"""

from __future__ import annotations

import numpy as np

from zarrhpc import config
from zarrhpc._kernels import alloc, copy_into, fill
from zarrhpc.codecs import swap_size
from zarrhpc.codecs.native import FALLBACK
from zarrhpc.errors import CodecError, CorruptChunkError, SelectionError, StoreError
from zarrhpc.indexing import (
    iter_chunk_projections,
    normalize_basic_selection,
    plan_chunks,
    point_index,
)

__all__ = ["decode_chunk_into", "engine_error", "native_target", "raise_engine_error",
           "read_selection"]

# engine status codes (csrc/zh_status.h) -> exception class
_CORRUPT, _IO, _NOMEM, _CODEC, _STORE = 5, 6, 8, 9, 10


def decode_chunk_into(array, key: str, dst: np.ndarray, chunk_selection) -> None:
    """Fill ``dst`` with ``chunk[chunk_selection]`` of the chunk stored at ``key``."""
    raw = array._store.get(key)
    if raw is None:
        fill(dst, array._fill_bytes)
        return
    decoded = array._pipeline.decode(raw, key)
    src = decoded[chunk_selection]
    copy_into(dst, src, swap_size(src.dtype))


def raise_engine_error(array, plan, task: int, code: int, msg: str):
    """Raise the exception for the engine's first failure (task ``task`` of ``plan``)."""
    raise engine_error(array, array._chunk_key(plan.coords(task)), code, msg)


def engine_error(array, key: str, code: int, msg: str) -> Exception:
    """The exception for an engine failure with status ``code`` at chunk (shard) ``key``."""
    if code == _CORRUPT:
        return CorruptChunkError(f"{key}: {msg}")
    if code == _NOMEM:
        return MemoryError(f"{key}: out of memory")
    if code == _CODEC:
        return CodecError(f"{key}: {msg}")
    return StoreError(f"{key!r}: {msg} in {array._store!r}")


def native_target(array):
    """``(path_prefix, root_len, key_kind, separator)`` for a store the engine opens itself."""
    root = array._store.native_root
    if root is None:
        return None
    enc = array._spec.chunk_key_encoding
    kind = {"default": 0, "v2": 1}.get(getattr(enc, "name", None))
    if kind is None:  # another key scheme (the 2022 draft's): keys come from Python
        return None
    prefix = root + "/" + array._key_prefix
    return prefix, len(root), kind, enc.separator


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


def _read_native(array, engine, sel, full: np.ndarray) -> None:
    plan = plan_chunks(sel, array.chunks)
    if plan.ntasks == 0:
        return
    target = native_target(array)
    # no more threads than chunks: waking an idle worker for a one-chunk read (each dask
    # task reads one) costs more than the read itself on a busy machine
    nthreads = min(config.get("threads"), plan.ntasks)
    if target is not None:
        prefix, root_len, kind, sep = target
        status, err_task, code, msg = engine.read(
            full, plan.arrays(), plan.steps, path_prefix=prefix, root_len=root_len,
            key_kind=kind, sep=sep, nthreads=nthreads,
        )
    else:
        store = array._store
        sources = [store.get(array._chunk_key(c)) for c in plan.iter_coords()]
        status, err_task, code, msg = engine.read(
            full, plan.arrays(), plan.steps, sources=sources, nthreads=nthreads
        )
    if code:
        raise_engine_error(array, plan, err_task, code, msg)
    for t in np.flatnonzero(status == FALLBACK):
        p = plan.projection(int(t))
        decode_chunk_into(array, array._chunk_key(p.chunk_coords), full[p.out_selection],
                          p.chunk_selection)


def _read_python(array, sel, full: np.ndarray) -> None:
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


def _read_point(array, engine, idx):
    """One element: the shortest path (one task, no plan)."""
    chunks = array.chunks
    coords = [i // c for i, c in zip(idx, chunks)]
    within = [i - k * c for i, k, c in zip(idx, coords, chunks)]
    out = np.empty((), dtype=array.dtype)
    target = native_target(array)
    if target is not None:
        prefix, root_len, kind, sep = target
        status, _, code, msg = engine.read_point(out, coords, within, prefix, root_len, kind, sep)
    else:
        key = array._chunk_key(coords)
        status, _, code, msg = engine.read_point(out, coords, within,
                                                 source=array._store.get(key))
    if code or status == FALLBACK:
        return None  # the general path decodes in Python or raises the error
    return out[()]


def read_selection(array, selection, out=None):
    """``array[selection]`` as numpy returns it (a scalar for an all-integer index)."""
    engine = array._engine
    if out is None and engine is not None:
        idx = point_index(selection, array.shape) if array.shape else None
        if idx is not None:
            value = _read_point(array, engine, idx)
            if value is not None:
                return value
    sel = normalize_basic_selection(selection, array.shape)
    dtype = array.dtype
    if out is None:
        result = alloc.empty(sel.out_shape, dtype, array._order)
    else:
        result = _check_out(out, sel.out_shape, dtype)
    full = result[sel.expand_index]  # a view with dropped dims as length 1
    if engine is not None:
        _read_native(array, engine, sel, full)
    else:
        _read_python(array, sel, full)
    if out is None and result.ndim == 0 and not _has_ellipsis(selection):
        return result[()]  # numpy gives a scalar for a full integer index, not for `...`
    return result
